/* MPI_COMM_TYPE_SHARED by the verified shm_key (see node_comm.h). */
#include <stdint.h>
#include <stdlib.h>

#include "core/errhandler.h"
#include "core/node_comm.h"
#include "runtime/context.h"
#include "runtime/host_mpi.h"

int remora_comm_split_shared(MPI_Comm comm, int key, MPI_Info info, MPI_Comm *newcomm)
{
    MPI_Comm host;
    int rc = REMORA_HOST(MPI_Comm_split_type)(comm, MPI_COMM_TYPE_SHARED, key, info, &host);
    if (rc != MPI_SUCCESS || host == MPI_COMM_NULL) {
        *newcomm = host;
        return rc;
    }
    int n, me;
    PMPI_Comm_size(host, &n);
    PMPI_Comm_rank(host, &me);
    uint64_t *keys = malloc(sizeof *keys * (size_t)n);
    int ok = keys != NULL;
    PMPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_LAND, host);
    if (!ok) {
        free(keys);
        PMPI_Comm_free(&host);
        return remora_err(MPI_ERR_NO_MEM, "splitting %d processes by node", n);
    }
    PMPI_Allgather(&remora_ctx.shm_key, 1, MPI_UINT64_T, keys, 1, MPI_UINT64_T, host);
    int color = 0; /* the first rank with my key: the same for all who share it */
    while (keys[color] != remora_ctx.shm_key)
        color++;
    free(keys);
    rc = PMPI_Comm_split(host, color, me, newcomm);
    PMPI_Comm_free(&host);
    return rc;
}
