/* The deprecated active-set collectives (PE_start, logPE_stride, PE_size,
 * pSync, pWrk) that OpenSHMEM 1.4 programs call.
 *
 * An active set is a group of coll.h: a communicator of the host MPI over
 * world PEs PE_start + i * 2^logPE_stride (i < PE_size), ranked by i, made on
 * first use with MPI_Comm_create_group, which only the set's members call (as
 * only they call the routine), with a shared-memory slot when the set is on
 * this node, and kept for the next call on the same set until shmem_finalize.
 * pSync and pWrk are not needed: the group synchronizes itself and keeps its
 * own work space, and pSync is never written, so it keeps its
 * SHMEM_SYNC_VALUE as the spec requires on return. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "shmem/coll.h"
#include "shmem/ctx.h"
#include "shmem/team.h"

struct active_set {
    int start, log_stride, size;
    int *world_pe;
    struct remora_shmem_coll_shm shm;
    struct remora_shmem_coll_hier *hier;
    struct remora_shmem_group g;
    struct active_set *next;
};

/* Searched and extended by any thread; a set's communicator is made outside
 * the lock (it waits for the other members). */
static struct active_set *sets;
static pthread_mutex_t sets_lock = PTHREAD_MUTEX_INITIALIZER;

static struct active_set *find(int start, int log_stride, int size)
{
    pthread_mutex_lock(&sets_lock);
    struct active_set *s = sets;
    while (s && (s->start != start || s->log_stride != log_stride || s->size != size))
        s = s->next;
    pthread_mutex_unlock(&sets_lock);
    return s;
}

/* This PE's index in the set; aborts naming the routine when the set is not
 * one (a PE outside the world) or does not hold this PE. */
static int member_index(const char *routine, int start, int log_stride, int size)
{
    int n = remora_shmem.n_pes;
    if (start < 0 || log_stride < 0 || log_stride > 30 || size < 1 ||
        (int64_t)start + ((int64_t)(size - 1) << log_stride) >= n)
        remora_shmem_abort(routine, "the active set (PE_start %d, logPE_stride %d, PE_size %d) is not a set of the %d "
                           "PEs", start, log_stride, size, n);
    int64_t d = (int64_t)remora_shmem.my_pe - start;
    if (d < 0 || (d & ((1 << log_stride) - 1)) || (d >> log_stride) >= size)
        remora_shmem_abort(routine, "PE %d is not in the active set (PE_start %d, logPE_stride %d, PE_size %d) and "
                           "may not call it", remora_shmem.my_pe, start, log_stride, size);
    return (int)(d >> log_stride);
}

static struct active_set *make(const char *routine, int start, int log_stride, int size, int me)
{
    struct active_set *s = calloc(1, sizeof *s);
    int *ranks = malloc((size_t)size * sizeof *ranks);
    if (!s || !ranks)
        remora_shmem_abort(routine, "out of memory for the active set's communicator");
    for (int i = 0; i < size; i++)
        ranks[i] = start + (i << log_stride);
    MPI_Group world, group;
    PMPI_Comm_group(remora_shmem.comm, &world);
    PMPI_Group_incl(world, size, ranks, &group);
    /* the tag tells apart sets made at once by different threads of one PE */
    int tag = (int)(((unsigned)start * 131u + (unsigned)log_stride * 31u + (unsigned)size) & 0x7fff);
    int rc = PMPI_Comm_create_group(remora_shmem.comm, group, tag, &s->g.comm);
    PMPI_Group_free(&group);
    PMPI_Group_free(&world);
    if (rc != MPI_SUCCESS || s->g.comm == MPI_COMM_NULL)
        remora_shmem_abort(routine, "the host MPI could not make the active set's communicator");
    s->start = start, s->log_stride = log_stride, s->size = size;
    s->world_pe = ranks;
    remora_shmem_coll_attach(&s->shm, &s->hier, s->g.comm, ranks, size);
    s->g.me = me, s->g.n = size, s->g.shm = s->shm.slot >= 0 ? &s->shm : NULL, s->g.hier = s->hier;
    pthread_mutex_lock(&sets_lock);
    s->next = sets;
    sets = s;
    pthread_mutex_unlock(&sets_lock);
    return s;
}

void remora_shmem_active_set(const char *routine, int PE_start, int logPE_stride, int PE_size,
                             struct remora_shmem_group *g)
{
    remora_shmem_check_init(routine);
    int me = member_index(routine, PE_start, logPE_stride, PE_size);
    struct active_set *s = find(PE_start, logPE_stride, PE_size);
    *g = (s ? s : make(routine, PE_start, logPE_stride, PE_size, me))->g;
}

void remora_shmem_active_sets_free(void)
{
    pthread_mutex_lock(&sets_lock);
    while (sets) {
        struct active_set *s = sets;
        sets = s->next;
        remora_shmem_coll_detach(&s->shm, &s->hier);
        PMPI_Comm_free(&s->g.comm);
        free(s->world_pe);
        free(s);
    }
    pthread_mutex_unlock(&sets_lock);
}

static void check(const char *routine, int rc)
{
    if (rc != MPI_SUCCESS)
        remora_shmem_abort(routine, "the host MPI's collective failed (error %d)", rc);
}


/* shmem_barrier completes this PE's operations first; shmem_sync does not. */
void remora_shmem_barrier_as(const char *routine, int PE_start, int logPE_stride, int PE_size, int quiet)
{
    struct remora_shmem_group g;
    remora_shmem_active_set(routine, PE_start, logPE_stride, PE_size, &g);
    if (quiet)
        remora_shmem_quiet_all();
    check(routine, remora_shmem_group_sync(&g));
}

/* The root's dest is left alone (active-set broadcasts, unlike team ones). */
void remora_shmem_broadcast_as(const char *routine, void *dest, const void *source, size_t nelems, size_t elem,
                               int root, int PE_start, int logPE_stride, int PE_size)
{
    struct remora_shmem_group g;
    remora_shmem_active_set(routine, PE_start, logPE_stride, PE_size, &g);
    if (root < 0 || root >= g.n)
        remora_shmem_abort(routine, "PE_root %d is not in the active set of %d PEs", root, g.n);
    if (g.me == root)
        remora_shmem_check_symmetric(routine, "source", source, nelems * elem);
    else
        remora_shmem_check_symmetric(routine, "dest", dest, nelems * elem);
    check(routine, remora_shmem_group_broadcast(&g, dest, source, nelems, elem, root, 0));
}

void remora_shmem_collect_as(const char *routine, void *dest, const void *source, size_t nelems, size_t elem,
                             int fixed, int PE_start, int logPE_stride, int PE_size)
{
    struct remora_shmem_group g;
    remora_shmem_active_set(routine, PE_start, logPE_stride, PE_size, &g);
    remora_shmem_check_symmetric(routine, "dest", dest, nelems * elem);
    remora_shmem_check_symmetric(routine, "source", source, nelems * elem);
    check(routine, fixed ? remora_shmem_group_fcollect(&g, dest, source, nelems, elem)
                         : remora_shmem_group_collect(&g, dest, source, nelems, elem));
}

void remora_shmem_alltoalls_as(const char *routine, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,
                               size_t nelems, size_t elem, int PE_start, int logPE_stride, int PE_size)
{
    struct remora_shmem_group g;
    remora_shmem_active_set(routine, PE_start, logPE_stride, PE_size, &g);
    if (dst < 1 || sst < 1)
        remora_shmem_abort(routine, "the strides must be at least 1 (dst %td, sst %td)", dst, sst);
    remora_shmem_check_symmetric(routine, "dest", dest, nelems * elem);
    remora_shmem_check_symmetric(routine, "source", source, nelems * elem);
    check(routine, remora_shmem_group_alltoalls(&g, dest, source, dst, sst, nelems, elem));
}

void remora_shmem_reduce_as(const char *routine, void *dest, const void *source, int nreduce, MPI_Datatype type,
                            size_t elem, MPI_Op op, int PE_start, int logPE_stride, int PE_size)
{
    struct remora_shmem_group g;
    remora_shmem_active_set(routine, PE_start, logPE_stride, PE_size, &g);
    if (nreduce < 0)
        remora_shmem_abort(routine, "nreduce is %d", nreduce);
    remora_shmem_check_symmetric(routine, "dest", dest, (size_t)nreduce * elem);
    remora_shmem_check_symmetric(routine, "source", source, (size_t)nreduce * elem);
    check(routine, remora_shmem_group_reduce(&g, dest, source, (size_t)nreduce, type, elem, op));
}
