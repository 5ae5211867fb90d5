/* Team collectives, the untyped routines (barrier_all, sync_all, the *mem
 * variants), and the group operations that the typed routines (gen/coll.py)
 * and the deprecated active-set routines (coll_active.c) are made of: each
 * runs in shared memory (coll_shm.c) or as a hierarchy (coll_hier.c) when
 * the group has one, and otherwise on the host MPI's collectives over the
 * group's communicator, here.
 *
 * Data moves as bytes (the PEs share one data representation); reductions
 * and scans use the MPI type and operation of the OpenSHMEM type and
 * operation.  Counts beyond an int are split into several calls (reductions,
 * scans) or carried by one derived datatype (data movement). */
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/engine.h"
#include "core/reduce.h"
#include "shmem/api.h"
#include "shmem/coll.h"
#include "shmem/ctx.h"
#include "shmem/state.h"
#include "shmem/team.h"

/* ---- datatypes for any count -------------------------------------------------------- */
/* `bytes` contiguous bytes as *count items of *t: MPI_BYTE while the count
 * fits an int; beyond, one derived type of 1 GiB chunks and the rest (free it
 * with free_type). */
static int bytes_type(size_t bytes, MPI_Datatype *t, int *count)
{
    *t = MPI_BYTE;
    *count = 1;
    if (bytes <= INT_MAX) {
        *count = (int)bytes;
        return MPI_SUCCESS;
    }
    const size_t gib = (size_t)1 << 30;
    MPI_Datatype chunk, chunks;
    int rest = (int)(bytes % gib);
    PMPI_Type_contiguous((int)gib, MPI_BYTE, &chunk);
    PMPI_Type_contiguous((int)(bytes / gib), chunk, &chunks);
    int lens[2] = {1, rest};
    MPI_Aint disps[2] = {0, (MPI_Aint)(bytes - (size_t)rest)};
    MPI_Datatype types[2] = {chunks, MPI_BYTE};
    int rc = PMPI_Type_create_struct(2, lens, disps, types, t);
    PMPI_Type_free(&chunk);
    PMPI_Type_free(&chunks);
    return rc == MPI_SUCCESS ? PMPI_Type_commit(t) : rc;
}

static void free_type(MPI_Datatype *t)
{
    if (*t != MPI_BYTE)
        PMPI_Type_free(t);
}

/* nelems elements of elem bytes, element i at i*stride elements, as one item
 * whose extent is nelems*stride elements (so that item j of an Alltoall is
 * the j-th such block). */
static int strided_type(size_t nelems, size_t elem, ptrdiff_t stride, MPI_Datatype *t)
{
    MPI_Datatype e, v;
    PMPI_Type_contiguous((int)elem, MPI_BYTE, &e);
    int rc = PMPI_Type_create_hvector((int)nelems, 1, (MPI_Aint)(stride * (ptrdiff_t)elem), e, &v);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Type_create_resized(v, 0, (MPI_Aint)(nelems * (size_t)stride * elem), t);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Type_commit(t);
    PMPI_Type_free(&e);
    PMPI_Type_free(&v);
    return rc;
}

static void *coll_alloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p)
        remora_shmem_abort("shmem collective", "out of memory for %zu bytes of bookkeeping", bytes);
    return p;
}

/* ---- integer SUM, PROD, MAX, MIN on the engine's kernels (see coll.h) --------------- */
static const enum remora_op engine_op_of[] = {REMORA_OP_SUM, REMORA_OP_PROD, REMORA_OP_MAX, REMORA_OP_MIN};

static void engine_reduce(void *in, void *inout, int *len, MPI_Datatype *type, enum remora_shmem_int_op op)
{
    remora_reduce_fn kernel = remora_reduce_kernel(engine_op_of[op], remora_type_lookup(&remora_core.types, *type));
    if (!kernel)
        remora_shmem_abort("shmem reduction", "the engine has no kernel for this operation on this type");
    kernel(inout, in, (size_t)*len);
}
static void engine_sum(void *in, void *inout, int *len, MPI_Datatype *type)
{
    engine_reduce(in, inout, len, type, REMORA_SHMEM_INT_SUM);
}
static void engine_prod(void *in, void *inout, int *len, MPI_Datatype *type)
{
    engine_reduce(in, inout, len, type, REMORA_SHMEM_INT_PROD);
}
static void engine_max(void *in, void *inout, int *len, MPI_Datatype *type)
{
    engine_reduce(in, inout, len, type, REMORA_SHMEM_INT_MAX);
}
static void engine_min(void *in, void *inout, int *len, MPI_Datatype *type)
{
    engine_reduce(in, inout, len, type, REMORA_SHMEM_INT_MIN);
}

static MPI_Op int_ops[4];
static void make_int_ops(void)
{
    MPI_User_function *fn[] = {engine_sum, engine_prod, engine_max, engine_min};
    for (int i = 0; i < 4; i++)
        PMPI_Op_create(fn[i], 1, &int_ops[i]);
}

MPI_Op remora_shmem_int_op(enum remora_shmem_int_op op)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, make_int_ops);
    return int_ops[op];
}

/* ---- group operations ---------------------------------------------------------------- */
/* root_too: the root's dest gets the data too (team broadcasts; the deprecated
 * active-set ones leave it alone). */
int remora_shmem_group_broadcast(const struct remora_shmem_group *g, void *dest, const void *source, size_t nelems,
                                 size_t elem, int root, int root_too)
{
    size_t bytes = nelems * elem;
    if (g->shm) {
        remora_shmem_shm_broadcast(g, dest, source, bytes, root, root_too);
        return MPI_SUCCESS;
    }
    MPI_Datatype t;
    int count, rc = bytes_type(bytes, &t, &count);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = PMPI_Bcast(g->me == root ? (void *)source : dest, count, t, root, g->comm);
    free_type(&t);
    if (rc == MPI_SUCCESS && g->me == root && root_too && dest != source)
        memcpy(dest, source, bytes);
    return rc;
}

/* Allgatherv takes int counts and displacements: beyond them, PE j's block
 * is broadcast from j, one PE after the other. */
static int collect_large(const struct remora_shmem_group *g, char *dest, const void *source, const uint64_t *len)
{
    int rc = MPI_SUCCESS;
    uint64_t off = 0;
    for (int j = 0; j < g->n && rc == MPI_SUCCESS; off += len[j++]) {
        if (j == g->me && (const void *)(dest + off) != source)
            memcpy(dest + off, source, len[j]);
        MPI_Datatype t;
        int count;
        rc = bytes_type(len[j], &t, &count);
        if (rc == MPI_SUCCESS)
            rc = PMPI_Bcast(dest + off, count, t, j, g->comm);
        free_type(&t);
    }
    return rc;
}

int remora_shmem_group_collect(const struct remora_shmem_group *g, void *dest, const void *source, size_t nelems,
                               size_t elem)
{
    if (g->shm) {
        remora_shmem_shm_collect(g, dest, source, nelems * elem, 0);
        return MPI_SUCCESS;
    }
    uint64_t mine = nelems * elem, total = 0, *len = coll_alloc((size_t)g->n * sizeof *len);
    int rc = PMPI_Allgather(&mine, 1, MPI_UINT64_T, len, 1, MPI_UINT64_T, g->comm);
    for (int j = 0; j < g->n; j++)
        total += len[j];
    if (rc != MPI_SUCCESS || total > INT_MAX) {
        rc = rc == MPI_SUCCESS ? collect_large(g, dest, source, len) : rc;
        free(len);
        return rc;
    }
    int *counts = coll_alloc(2 * (size_t)g->n * sizeof *counts), *displs = counts + g->n;
    for (int j = 0, off = 0; j < g->n; off += counts[j++]) {
        counts[j] = (int)len[j];
        displs[j] = off;
    }
    const void *send = (const char *)dest + displs[g->me] == source ? MPI_IN_PLACE : source;
    rc = PMPI_Allgatherv(send, (int)mine, MPI_BYTE, dest, counts, displs, MPI_BYTE, g->comm);
    free(counts);
    free(len);
    return rc;
}

int remora_shmem_group_fcollect(const struct remora_shmem_group *g, void *dest, const void *source, size_t nelems,
                                size_t elem)
{
    size_t bytes = nelems * elem;
    if (g->shm) {
        remora_shmem_shm_collect(g, dest, source, bytes, 1);
        return MPI_SUCCESS;
    }
    MPI_Datatype t;
    int count, rc = bytes_type(bytes, &t, &count);
    if (rc != MPI_SUCCESS)
        return rc;
    const void *send = (const char *)dest + (size_t)g->me * bytes == source ? MPI_IN_PLACE : source;
    rc = PMPI_Allgather(send, count, t, dest, count, t, g->comm);
    free_type(&t);
    return rc;
}

/* PE i sends elements j*nelems*sst + k*sst (k < nelems) of source to PE j,
 * which stores them at i*nelems*dst + k*dst of dest (elements of elem bytes). */
int remora_shmem_group_alltoalls(const struct remora_shmem_group *g, void *dest, const void *source, ptrdiff_t dst,
                                 ptrdiff_t sst, size_t nelems, size_t elem)
{
    if (g->shm) {
        remora_shmem_shm_alltoalls(g, dest, source, dst, sst, nelems, elem);
        return MPI_SUCCESS;
    }
    MPI_Datatype s, d;
    int count, rc;
    if (dst == 1 && sst == 1) {
        rc = bytes_type(nelems * elem, &s, &count);
        if (rc == MPI_SUCCESS)
            rc = PMPI_Alltoall(source, count, s, dest, count, s, g->comm);
        free_type(&s);
        return rc;
    }
    /* an hvector counts its blocks with an int */
    if (dst < 1 || sst < 1 || nelems > INT_MAX || elem > INT_MAX)
        return MPI_ERR_ARG;
    rc = strided_type(nelems, elem, sst, &s);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = strided_type(nelems, elem, dst, &d);
    if (rc == MPI_SUCCESS) {
        rc = PMPI_Alltoall(source, 1, s, dest, 1, d, g->comm);
        PMPI_Type_free(&d);
    }
    PMPI_Type_free(&s);
    return rc;
}

/* Element-wise, so an int's worth of elements at a time. */
int remora_shmem_group_reduce(const struct remora_shmem_group *g, void *dest, const void *source, size_t nreduce,
                              MPI_Datatype type, size_t elem, MPI_Op op)
{
    if (g->shm) {
        remora_shmem_shm_reduce(g, dest, source, nreduce, type, elem, op, 0, 0);
        return MPI_SUCCESS;
    }
    if (g->hier)
        return remora_shmem_hier_reduce(g->hier, dest, source, nreduce, type, elem, op);
    int rc = MPI_SUCCESS, in_place = dest == source;
    size_t off = 0;
    do {
        int count = (int)(nreduce - off < INT_MAX ? nreduce - off : INT_MAX);
        const void *send = in_place ? MPI_IN_PLACE : (const char *)source + off * elem;
        rc = PMPI_Allreduce(send, (char *)dest + off * elem, count, type, op, g->comm);
        off += (size_t)count;
    } while (rc == MPI_SUCCESS && off < nreduce);
    return rc;
}

/* Exclusive: PE 0 gets zeros (MPI_Exscan leaves rank 0's result undefined;
 * every type of the table has zero as all bits clear). */
int remora_shmem_group_scan(const struct remora_shmem_group *g, void *dest, const void *source, size_t nelems,
                            MPI_Datatype type, size_t elem, MPI_Op op, int exclusive)
{
    if (g->shm) {
        remora_shmem_shm_reduce(g, dest, source, nelems, type, elem, op, 1, exclusive);
        return MPI_SUCCESS;
    }
    int rc = MPI_SUCCESS, in_place = dest == source;
    size_t off = 0;
    do {
        int count = (int)(nelems - off < INT_MAX ? nelems - off : INT_MAX);
        const void *send = in_place ? MPI_IN_PLACE : (const char *)source + off * elem;
        char *recv = (char *)dest + off * elem;
        rc = exclusive ? PMPI_Exscan(send, recv, count, type, op, g->comm)
                       : PMPI_Scan(send, recv, count, type, op, g->comm);
        off += (size_t)count;
    } while (rc == MPI_SUCCESS && off < nelems);
    if (rc == MPI_SUCCESS && exclusive && g->me == 0)
        memset(dest, 0, nelems * elem);
    return rc;
}

int remora_shmem_group_sync(const struct remora_shmem_group *g)
{
    if (g->shm) {
        remora_shmem_shm_sync(g);
        return MPI_SUCCESS;
    }
    return g->hier ? remora_shmem_hier_sync(g->hier) : PMPI_Barrier(g->comm);
}

/* ---- team collectives ----------------------------------------------------------------- */
/* The group of a team; -1 for SHMEM_TEAM_INVALID or a destroyed team. */
static int team_group(const char *routine, shmem_team_t team, struct remora_shmem_group *g)
{
    remora_shmem_check_init(routine);
    if (team == SHMEM_TEAM_INVALID)
        return -1;
    struct remora_shmem_team *t = (struct remora_shmem_team *)team;
    if (t->comm == MPI_COMM_NULL)
        return -1;
    *g = remora_shmem_team_group(t);
    return 0;
}

static int in_symmetric(uintptr_t a)
{
    if (a - remora_shmem.heap.base < atomic_load_explicit(&remora_shmem.heap.committed, memory_order_relaxed))
        return 1;
    for (int i = 0; i < remora_shmem.nstatics; i++)
        if (a - remora_shmem.statics[i].base < remora_shmem.statics[i].len)
            return 1;
    return 0;
}

/* The whole heap, not one of its extents (remora_shmem_locate): an array may
 * span the extents the heap grew by, and the host MPI moves it as one. */
void remora_shmem_check_symmetric(const char *routine, const char *arg, const void *addr, size_t len)
{
    uintptr_t a = (uintptr_t)addr;
    if (len && (!in_symmetric(a) || !in_symmetric(a + len - 1)))
        remora_shmem_abort(routine, "%s %p (%zu bytes) is not in symmetric memory (the symmetric heap or the "
                           "program's global and static data)", arg, addr, len);
}

static void symmetric(const char *routine, const void *dest, size_t dest_len, const void *source, size_t source_len)
{
    remora_shmem_check_symmetric(routine, "dest", dest, dest_len);
    remora_shmem_check_symmetric(routine, "source", source, source_len);
}

static int status(int rc) { return rc == MPI_SUCCESS ? 0 : -1; }

int remora_shmem_broadcast(const char *routine, shmem_team_t team, void *dest, const void *source, size_t nelems,
                           size_t elem, int root)
{
    struct remora_shmem_group g;
    if (team_group(routine, team, &g) || root < 0 || root >= g.n)
        return -1;
    symmetric(routine, dest, nelems * elem, source, g.me == root ? nelems * elem : 0);
    return status(remora_shmem_group_broadcast(&g, dest, source, nelems, elem, root, 1));
}

int remora_shmem_collect(const char *routine, shmem_team_t team, void *dest, const void *source, size_t nelems,
                         size_t elem)
{
    struct remora_shmem_group g;
    if (team_group(routine, team, &g))
        return -1;
    symmetric(routine, dest, nelems * elem, source, nelems * elem);
    return status(remora_shmem_group_collect(&g, dest, source, nelems, elem));
}

int remora_shmem_fcollect(const char *routine, shmem_team_t team, void *dest, const void *source, size_t nelems,
                          size_t elem)
{
    struct remora_shmem_group g;
    if (team_group(routine, team, &g))
        return -1;
    symmetric(routine, dest, nelems * elem * (size_t)g.n, source, nelems * elem);
    return status(remora_shmem_group_fcollect(&g, dest, source, nelems, elem));
}

int remora_shmem_alltoalls(const char *routine, shmem_team_t team, void *dest, const void *source, ptrdiff_t dst,
                           ptrdiff_t sst, size_t nelems, size_t elem)
{
    struct remora_shmem_group g;
    if (team_group(routine, team, &g) || dst < 1 || sst < 1)
        return -1;
    /* the last element of the last PE's block bounds each array */
    size_t span = nelems ? ((size_t)g.n * nelems - 1) * elem : 0;
    symmetric(routine, dest, nelems ? span * (size_t)dst + elem : 0, source, nelems ? span * (size_t)sst + elem : 0);
    return status(remora_shmem_group_alltoalls(&g, dest, source, dst, sst, nelems, elem));
}

int remora_shmem_reduce(const char *routine, shmem_team_t team, void *dest, const void *source, size_t nreduce,
                        MPI_Datatype type, size_t elem, MPI_Op op)
{
    struct remora_shmem_group g;
    if (team_group(routine, team, &g))
        return -1;
    symmetric(routine, dest, nreduce * elem, source, nreduce * elem);
    return status(remora_shmem_group_reduce(&g, dest, source, nreduce, type, elem, op));
}

int remora_shmem_scan(const char *routine, shmem_team_t team, void *dest, const void *source, size_t nelems,
                      MPI_Datatype type, size_t elem, MPI_Op op, int exclusive)
{
    struct remora_shmem_group g;
    if (team_group(routine, team, &g))
        return -1;
    symmetric(routine, dest, nelems * elem, source, nelems * elem);
    return status(remora_shmem_group_scan(&g, dest, source, nelems, type, elem, op, exclusive));
}

/* ---- untyped routines ----------------------------------------------------------------- */
/* barrier_all completes this PE's operations, then waits for every PE;
 * sync_all only waits. */
void pshmem_barrier_all(void)
{
    remora_shmem_check_init("shmem_barrier_all");
    remora_shmem_quiet_all();
    struct remora_shmem_group g = remora_shmem_team_group(&remora_shmem_team_world);
    remora_shmem_group_sync(&g);
}
REMORA_SHMEM_ALIAS(shmem_barrier_all);

void pshmem_sync_all(void)
{
    remora_shmem_check_init("shmem_sync_all");
    struct remora_shmem_group g = remora_shmem_team_group(&remora_shmem_team_world);
    remora_shmem_group_sync(&g);
}
REMORA_SHMEM_ALIAS(shmem_sync_all);

int pshmem_broadcastmem(shmem_team_t team, void *dest, const void *source, size_t nelems, int PE_root)
{
    return remora_shmem_broadcast("shmem_broadcastmem", team, dest, source, nelems, 1, PE_root);
}
REMORA_SHMEM_ALIAS(shmem_broadcastmem);

int pshmem_collectmem(shmem_team_t team, void *dest, const void *source, size_t nelems)
{
    return remora_shmem_collect("shmem_collectmem", team, dest, source, nelems, 1);
}
REMORA_SHMEM_ALIAS(shmem_collectmem);

int pshmem_fcollectmem(shmem_team_t team, void *dest, const void *source, size_t nelems)
{
    return remora_shmem_fcollect("shmem_fcollectmem", team, dest, source, nelems, 1);
}
REMORA_SHMEM_ALIAS(shmem_fcollectmem);

int pshmem_alltoallmem(shmem_team_t team, void *dest, const void *source, size_t nelems)
{
    return remora_shmem_alltoalls("shmem_alltoallmem", team, dest, source, 1, 1, nelems, 1);
}
REMORA_SHMEM_ALIAS(shmem_alltoallmem);

int pshmem_alltoallsmem(shmem_team_t team, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,
                        size_t nelems)
{
    return remora_shmem_alltoalls("shmem_alltoallsmem", team, dest, source, dst, sst, nelems, 1);
}
REMORA_SHMEM_ALIAS(shmem_alltoallsmem);
