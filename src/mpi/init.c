/* MPI_Init*, MPI_Finalize: the host starts and stops MPI, the engine starts and stops around it. */
#include "core/engine.h"
#include "mpi/api.h"
#include "remora/remora.h"

REMORA_API int MPI_Init(int *argc, char ***argv)
{
    int rc = PMPI_Init(argc, argv);
    if (rc == MPI_SUCCESS)
        remora_engine_init();
    return rc;
}

REMORA_API int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS)
        remora_engine_init();
    return rc;
}

REMORA_API int MPI_Finalize(void)
{
    remora_engine_finalize();
    return PMPI_Finalize();
}

REMORA_API int remora_active(void) { return remora_core.initialized && !remora_core.finalized; }
