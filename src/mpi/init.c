/* MPI_Init*, MPI_Finalize: the host starts and stops MPI, the engine starts and stops around it. */
#include "core/engine.h"
#include "mpi/api.h"
#include "mpi/host_finalize.h"
#include "mpi/host_waits.h"
#include "remora/remora.h"
#include "runtime/host_abi.h"
#include "runtime/host_mpi.h"
#include "runtime/log.h"

#include <dlfcn.h>

/* The abi flavour serves C programs only (runtime/host_abi.h): a program
 * that carries an MPI Fortran binding (libmpifort_abi: mpi_init_) is refused
 * before Remora serves anything, rather than run with Fortran attribute,
 * keyval and error-handler paths nobody has checked. */
static void refuse_fortran(void)
{
    if (REMORA_STANDARD_ABI && dlsym(RTLD_DEFAULT, "mpi_init_"))
        remora_fatal("the abi flavour of Remora (%s) serves C programs only, and this program carries an MPI "
                     "Fortran binding (mpi_init_); run it without Remora, or build it against the host's "
                     "own ABI and use that flavour",
                     remora_version());
}

REMORA_API int MPI_Init(int *argc, char ***argv)
{
    refuse_fortran();
    int rc = REMORA_HOST(MPI_Init)(argc, argv);
    if (rc == MPI_SUCCESS) {
        remora_engine_init();
        remora_host_progress_init();
    }
    return rc;
}
REMORA_PMPI(MPI_Init);

REMORA_API int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    refuse_fortran();
    int rc = REMORA_HOST(MPI_Init_thread)(argc, argv, required, provided);
    if (rc == MPI_SUCCESS) {
        remora_engine_init();
        remora_host_progress_init();
    }
    return rc;
}
REMORA_PMPI(MPI_Init_thread);

REMORA_API int MPI_Finalize(void)
{
    remora_host_progress_finalize();
    remora_engine_finalize();
    remora_host_finalize_begin();
    return REMORA_HOST(MPI_Finalize)();
}
REMORA_PMPI(MPI_Finalize);

REMORA_API int remora_active(void) { return remora_core.initialized && !remora_core.finalized; }

REMORA_API int remora_win_served(MPI_Win win) { return remora_win_from_handle(win) != NULL; }
