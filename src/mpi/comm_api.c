/* MPI_Comm_split_type: MPI_COMM_TYPE_SHARED groups the processes that can
 * share window memory (core/node_comm.h); other split types go to the host. */
#include "core/engine.h"
#include "core/node_comm.h"
#include "mpi/api.h"
#include "runtime/host_mpi.h"

REMORA_API int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm)
{
    if (split_type != MPI_COMM_TYPE_SHARED || !remora_core.initialized)
        return REMORA_HOST(MPI_Comm_split_type)(comm, split_type, key, info, newcomm);
    int rc = remora_comm_split_shared(comm, key, info, newcomm);
    return rc == MPI_SUCCESS ? rc : remora_raise(0, comm, rc, __func__, 0);
}
REMORA_PMPI(MPI_Comm_split_type);
