/* Bootstrap collectives over the host MPI (see bootstrap.h). */
#include "runtime/bootstrap.h"

#include <limits.h>
#include <stdlib.h>

int remora_boot_agree(MPI_Comm comm, int ok)
{
    int all = ok != 0;
    PMPI_Allreduce(MPI_IN_PLACE, &all, 1, MPI_INT, MPI_LAND, comm);
    return all;
}

static int fail(int *ilen, int *idsp, char **all, size_t **offs, size_t **lens)
{
    free(ilen), free(idsp), free(*offs), free(*lens), free(*all);
    *offs = *lens = NULL, *all = NULL;
    return MPI_ERR_NO_MEM;
}

int remora_boot_allgatherv(MPI_Comm comm, const void *buf, size_t len, char **all, size_t **offs, size_t **lens)
{
    int n;
    PMPI_Comm_size(comm, &n);
    int mine = len > INT_MAX ? -1 : (int)len;
    int *ilen = malloc(sizeof(int) * (size_t)n), *idsp = malloc(sizeof(int) * (size_t)n);
    *offs = malloc(sizeof(size_t) * (size_t)n);
    *lens = malloc(sizeof(size_t) * (size_t)n);
    *all = NULL;
    /* agreed before each step: a process that cannot take part must not
     * leave the others in a collective it skips */
    if (!remora_boot_agree(comm, ilen && idsp && *offs && *lens))
        return fail(ilen, idsp, all, offs, lens);
    PMPI_Allgather(&mine, 1, MPI_INT, ilen, 1, MPI_INT, comm);
    size_t total = 0;
    int ok = 1;
    for (int r = 0; r < n; r++) {
        ok = ok && ilen[r] >= 0 && total + (size_t)ilen[r] <= INT_MAX;
        idsp[r] = ok ? (int)total : 0;
        (*offs)[r] = total;
        (*lens)[r] = ok ? (size_t)ilen[r] : 0;
        total += (*lens)[r];
    }
    ok = ok && (*all = malloc(total ? total : 1)) != NULL;
    if (!remora_boot_agree(comm, ok))
        return fail(ilen, idsp, all, offs, lens);
    PMPI_Allgatherv(buf, mine, MPI_BYTE, *all, ilen, idsp, MPI_BYTE, comm);
    free(ilen);
    free(idsp);
    return MPI_SUCCESS;
}
