/* MPI_Alloc_mem / MPI_Free_mem from the shared pool (runtime/pool.h); what the
 * pool cannot serve comes from the host. */
#include "mpi/api.h"
#include "core/engine.h"
#include "runtime/pool.h"
#include "runtime/host_mpi.h"

REMORA_API int MPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr)
{
    if (size < 0)
        return remora_raise(0, MPI_COMM_NULL, remora_err(MPI_ERR_SIZE, "negative size %ld", (long)size), __func__, 0);
    remora_engine_init();
    void *p = remora_pool_alloc((size_t)size);
    if (p) {
        *(void **)baseptr = p;
        return MPI_SUCCESS;
    }
    return REMORA_HOST(MPI_Alloc_mem)(size, info, baseptr);
}
REMORA_PMPI(MPI_Alloc_mem);

REMORA_API int MPI_Free_mem(void *base)
{
    if (!base || remora_pool_free(base))
        return MPI_SUCCESS;
    return REMORA_HOST(MPI_Free_mem)(base);
}
REMORA_PMPI(MPI_Free_mem);
