/* MPI_Init*, MPI_Finalize: the host starts and stops MPI, we start and stop around it. */
#include "mpi/api.h"
#include "remora/remora.h"
#include "runtime/context.h"

REMORA_API int MPI_Init(int *argc, char ***argv)
{
    int rc = PMPI_Init(argc, argv);
    if (rc == MPI_SUCCESS)
        remora_context_init();
    return rc;
}

REMORA_API int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS)
        remora_context_init();
    return rc;
}

REMORA_API int MPI_Finalize(void)
{
    remora_context_finalize();
    return PMPI_Finalize();
}

REMORA_API int remora_active(void) { return remora_ctx.initialized && !remora_ctx.finalized; }
