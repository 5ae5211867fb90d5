/* MPI_Init*, MPI_Finalize: the host starts and stops MPI, the engine starts and stops around it. */
#include "core/engine.h"
#include "mpi/api.h"
#include "mpi/host_waits.h"
#include "remora/remora.h"
#include "runtime/host_mpi.h"

REMORA_API int MPI_Init(int *argc, char ***argv)
{
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
    return REMORA_HOST(MPI_Finalize)();
}
REMORA_PMPI(MPI_Finalize);

REMORA_API int remora_active(void) { return remora_core.initialized && !remora_core.finalized; }

REMORA_API int remora_win_served(MPI_Win win) { return remora_win_from_handle(win) != NULL; }
