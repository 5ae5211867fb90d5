/* Window creation and destruction.
 *
 * Every process learns everything about every rank of the window in one
 * allgather, then computes the same layout: one segment per node ("segment
 * group": the ranks sharing a node; for allocate_shared, the whole window)
 *
 *   [node header][control block of each member][data of each member]
 *
 * Data is in the segment for MPI_Win_allocate(_shared); MPI_Win_create keeps the
 * user's memory (on-node peers reach it by CMA), dynamic windows hold none. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/dynamic.h"
#include "core/sync.h"
#include "core/win.h"
#include "core/win_net.h"
#include "runtime/context.h"
#include "runtime/log.h"
#include "transport/dispatch.h"

#define PAGE 4096

struct rank_info {
    uint64_t node_id, shm_id;
    int world_rank, disp_unit;
    pid_t pid;
    int in_pool;                 /* MPI_Win_create memory from our MPI_Alloc_mem pool */
    MPI_Aint size;
    uint64_t base;
    struct remora_pool_ref pool;
};

static size_t round_up(size_t x, size_t a) { return (x + a - 1) / a * a; }

int remora_check_target(const struct remora_win *w, int target)
{
    if ((unsigned)target >= (unsigned)w->comm_size)
        return remora_err(MPI_ERR_RANK, "target rank %d is not in the window (size %d)", target, w->comm_size);
    return MPI_SUCCESS;
}

static int info_true(MPI_Info info, const char *key)
{
    if (info == MPI_INFO_NULL)
        return 0;
    char value[16] = "";
    int flag = 0;
    PMPI_Info_get(info, key, sizeof value - 1, value, &flag);
    return flag && strcmp(value, "true") == 0;
}

void remora_win_apply_hints(struct remora_win *w)
{
    char value[64] = "";
    int flag = 0;
    PMPI_Info_get(w->info, "accumulate_ordering", sizeof value - 1, value, &flag);
    w->acc_ordered = !(flag && strcmp(value, "none") == 0);
}

/* Local argument checks; the result is agreed on by all before anyone proceeds. */
static int check_args(MPI_Comm comm, int flavor, MPI_Aint size, int disp_unit)
{
    int inter = 0;
    if (comm == MPI_COMM_NULL || PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS)
        return remora_err(MPI_ERR_COMM, "invalid communicator");
    if (inter)
        return remora_err(MPI_ERR_COMM, "windows need an intracommunicator");
    if (flavor != MPI_WIN_FLAVOR_DYNAMIC && size < 0)
        return remora_err(MPI_ERR_SIZE, "negative window size %ld", (long)size);
    if (flavor != MPI_WIN_FLAVOR_DYNAMIC && disp_unit <= 0)
        return remora_err(MPI_ERR_DISP, "displacement unit %d is not positive", disp_unit);
    return MPI_SUCCESS;
}

/* Where each rank's data starts in its segment (allocate flavours), and the total. */
static size_t layout_data(struct remora_win *w, const struct rank_info *ri, const int *members, int nmembers,
                          size_t data_start, size_t *offset)
{
    size_t end = data_start;
    for (int k = 0; k < nmembers; k++) {
        MPI_Aint sz = ri[members[k]].size;
        if (w->flavor == MPI_WIN_FLAVOR_SHARED && !w->shared_noncontig)
            offset[k] = end; /* contiguous across ranks, as the standard defines it */
        else
            offset[k] = round_up(end, (size_t)sz >= PAGE || w->shared_noncontig ? PAGE : REMORA_CACHELINE);
        end = offset[k] + (size_t)sz;
    }
    return end;
}

static void fill_peer(struct remora_win *w, int r, const struct rank_info *ri, char *data)
{
    struct remora_peer *p = &w->peers[r];
    p->size = (uint64_t)ri[r].size;
    p->disp_unit = (uint32_t)ri[r].disp_unit;
    p->pid = ri[r].pid;
    if (w->flavor == MPI_WIN_FLAVOR_ALLOCATE || w->flavor == MPI_WIN_FLAVOR_SHARED) {
        p->kind = REMORA_PEER_MAPPED;
        p->base = data;
        p->fast_limit = p->size;
    } else { /* user memory: our own is at hand, a peer's is reached by CMA */
        p->kind = r == w->rank ? REMORA_PEER_MAPPED : REMORA_PEER_CMA;
        p->base = (char *)(uintptr_t)ri[r].base;
        p->fast_limit = r == w->rank && w->flavor == MPI_WIN_FLAVOR_CREATE ? p->size : 0;
        /* someone else on the node reaches it by CMA: accumulates must lock */
        p->acc_locked = w->node_size > 1;
    }
}

/* MPI_Win_create on MPI_Alloc_mem memory: peers on the node map the owner's
 * pool chunk and use load/store and CPU atomics.  Whether rank r's memory is
 * reached that way is agreed by all (an allreduce), so that no origin uses CPU
 * atomics on memory another one updates under the accumulate lock. */
static void share_pool_memory(struct remora_win *w, const struct rank_info *ri)
{
    int n = w->comm_size, any = 0;
    for (int r = 0; r < n; r++)
        any |= ri[r].in_pool;
    if (!any || !w->seg.fd_passing)
        return;
    int *ok = malloc(sizeof(int) * (size_t)n);
    char **mapped = calloc((size_t)n, sizeof *mapped);
    if (!ok || !mapped)
        remora_fatal("out of memory creating a window of %d ranks", n);
    for (int r = 0; r < n; r++) {
        ok[r] = ri[r].in_pool && w->node_of_rank[r] >= 0;
        if (ok[r] && r != w->rank) {
            char *chunk = remora_pool_map_peer(ri[r].pid, &ri[r].pool);
            mapped[r] = chunk ? chunk + (ri[r].base - ri[r].pool.chunk_addr) : NULL;
            ok[r] = mapped[r] != NULL;
        }
    }
    PMPI_Allreduce(MPI_IN_PLACE, ok, n, MPI_INT, MPI_LAND, w->comm);
    for (int r = 0; r < n; r++) {
        if (!ok[r])
            continue;
        struct remora_peer *p = &w->peers[r];
        if (r != w->rank) {
            p->kind = REMORA_PEER_MAPPED;
            p->base = mapped[r];
            p->fast_limit = p->size;
        }
        p->acc_locked = 0;
    }
    free(ok);
    free(mapped);
}

/* Segment, control blocks and peers.  Collective; the same result everywhere. */
static int build_memory(struct remora_win *w, const struct rank_info *ri, void *user_base)
{
    int n = w->comm_size, me = w->rank;
    int shared = w->flavor == MPI_WIN_FLAVOR_SHARED;
    int *members = malloc(sizeof(int) * (size_t)n);
    size_t *offset = calloc((size_t)n, sizeof(size_t)); /* stays 0 where the data is not in the segment */
    w->node_of_rank = malloc(sizeof(int) * (size_t)n);
    if (!members || !offset || !w->node_of_rank)
        remora_fatal("out of memory creating a window of %d ranks", n);

    /* my segment group, in window-rank order */
    int nmembers = 0;
    for (int r = 0; r < n; r++) {
        int same = shared ? ri[r].shm_id == ri[me].shm_id : ri[r].node_id == ri[me].node_id;
        w->node_of_rank[r] = same ? nmembers : -1;
        if (same)
            members[nmembers++] = r;
    }
    w->node_rank = w->node_of_rank[me];
    w->node_size = nmembers;
    w->node_all = nmembers == n;
    if (shared && !w->node_all) {
        free(members);
        free(offset);
        return remora_err(MPI_ERR_RMA_SHARED, "MPI_Win_allocate_shared over processes that cannot share memory");
    }
    /* One atomicity domain per window: CPU atomics when it lives on one node,
     * the network's for every word (on-node peers' too) when it spans nodes. */
    w->amo_domain = REMORA_PEER_MAPPED;
    for (int r = 0; r < n; r++)
        if (ri[r].node_id != ri[me].node_id)
            w->amo_domain = REMORA_PEER_UCX;

    w->ctrl_stride = round_up(sizeof(struct remora_ctrl) + sizeof(uint64_t) * (size_t)n, REMORA_CACHELINE);
    size_t ctrl_start = round_up(sizeof(struct remora_node_header), REMORA_CACHELINE);
    size_t dyn_start = round_up(ctrl_start + w->ctrl_stride * (size_t)nmembers, PAGE), dyn_bytes = 0;
    if (w->flavor == MPI_WIN_FLAVOR_DYNAMIC) {
        w->dyn_cap = (uint32_t)remora_ctx.config.dyn_regions;
        dyn_bytes = remora_dyn_table_bytes(w->dyn_cap) * (size_t)nmembers;
    }
    size_t data_start = round_up(dyn_start + dyn_bytes, PAGE);
    size_t total = data_start;
    if (w->flavor == MPI_WIN_FLAVOR_ALLOCATE || shared)
        total = layout_data(w, ri, members, nmembers, data_start, offset);

    int rc = remora_segment_create(w->comm, members[0], nmembers, total, &w->seg);
    if (rc != MPI_SUCCESS) {
        free(members);
        free(offset);
        return remora_err(rc, "no memory for the window's segment (%zu bytes)", total);
    }
    char *seg = w->seg.addr;
    w->node_hdr = (struct remora_node_header *)seg;
    if (w->dyn_cap) {
        w->dyn_tables = seg + dyn_start;
        for (int k = 0; k < nmembers; k++)
            ((struct remora_dyn_table *)(seg + dyn_start + remora_dyn_table_bytes(w->dyn_cap) * (size_t)k))->cap = w->dyn_cap;
    }
    w->ctrl = (struct remora_ctrl *)(seg + ctrl_start + w->ctrl_stride * (size_t)w->node_rank);
    for (int r = 0; r < n; r++) {
        int k = w->node_of_rank[r];
        if (k >= 0) {
            fill_peer(w, r, ri, seg + offset[k]);
            w->peers[r].ctrl = (struct remora_ctrl *)(seg + ctrl_start + w->ctrl_stride * (size_t)k);
        } else { /* another node: the network side gives its addresses */
            struct remora_peer *p = &w->peers[r];
            p->kind = REMORA_PEER_UCX;
            p->size = (uint64_t)ri[r].size;
            p->disp_unit = (uint32_t)ri[r].disp_unit;
            p->pid = ri[r].pid;
        }
    }
    if (w->flavor == MPI_WIN_FLAVOR_CREATE) {
        w->base = user_base;
        share_pool_memory(w, ri);
    }
    else if (w->flavor == MPI_WIN_FLAVOR_DYNAMIC)
        w->base = MPI_BOTTOM;
    else
        w->base = w->peers[me].base;
    free(members);
    free(offset);
    if (w->amo_domain == REMORA_PEER_UCX)
        return remora_win_net_create(w, user_base, (size_t)ri[me].size);
    return MPI_SUCCESS;
}

/* Waits must yield when this machine runs more of our processes than it has cores. */
static void note_machine_load(const struct rank_info *ri, int n)
{
    int here = 0;
    for (int r = 0; r < n; r++)
        here += ri[r].shm_id == remora_ctx.shm_id;
    if (here > remora_ctx.ncpus)
        atomic_store_explicit(&remora_ctx.oversubscribed, 1, memory_order_relaxed);
}

static struct remora_win *win_alloc(int n)
{
    struct remora_win *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    /* peers are cache-line aligned (transport.h): calloc does not promise that */
    size_t peer_bytes = ((size_t)n * sizeof *w->peers + 63) / 64 * 64;
    if ((w->peers = aligned_alloc(64, peer_bytes ? peer_bytes : 64)))
        memset(w->peers, 0, peer_bytes);
    w->lock_state = calloc((size_t)n, 1);
    w->starts_toward = calloc((size_t)n, sizeof *w->starts_toward);
    if (!w->peers || !w->lock_state || !w->starts_toward) {
        free(w->peers);
        free(w->lock_state);
        free(w->starts_toward);
        free(w);
        return NULL;
    }
    pthread_mutex_init(&w->dyn_lock, NULL);
    w->group = MPI_GROUP_NULL;
    w->info = MPI_INFO_NULL;
    w->comm = MPI_COMM_NULL;
    w->errh.handle = MPI_ERRORS_ARE_FATAL;
    atomic_init(&w->type_hint, &remora_ctx.types.no_type);
    w->model = MPI_WIN_UNIFIED;
    return w;
}

/* Undo what creation or use built, in reverse; local. */
static void win_release(struct remora_win *w)
{
    remora_dyn_free(w);
    remora_win_net_free(w);
    remora_segment_destroy(&w->seg);
    if (w->group != MPI_GROUP_NULL)
        PMPI_Group_free(&w->group);
    if (w->info != MPI_INFO_NULL)
        PMPI_Info_free(&w->info);
    if (w->comm != MPI_COMM_NULL)
        PMPI_Comm_free(&w->comm);
    remora_errh_release(&w->errh);
    pthread_mutex_destroy(&w->dyn_lock);
    free(w->node_of_rank);
    free(w->peers);
    free(w->lock_state);
    free(w->starts_toward);
    free(w->start_group);
    free(w->post_group);
    w->magic = 0;
    free(w);
}

int remora_win_create(MPI_Comm comm, int flavor, MPI_Aint size, int disp_unit, MPI_Info info, void *user_base,
                      struct remora_win **out)
{
    int rc = check_args(comm, flavor, size, disp_unit), agreed;
    if (rc != MPI_ERR_COMM) {
        /* one process's bad argument fails the creation everywhere instead of hanging the rest */
        PMPI_Allreduce(&rc, &agreed, 1, MPI_INT, MPI_MAX, comm);
        if (agreed != MPI_SUCCESS)
            return rc != MPI_SUCCESS ? rc : remora_err(agreed, "another process passed an invalid argument");
    }
    if (rc != MPI_SUCCESS)
        return rc;

    int n, me;
    PMPI_Comm_size(comm, &n);
    PMPI_Comm_rank(comm, &me);
    struct remora_win *w = win_alloc(n);
    if (!w)
        return remora_err(MPI_ERR_NO_MEM, "window of %d ranks", n);
    w->comm_size = n;
    w->rank = me;
    w->flavor = flavor;
    w->disp_unit = flavor == MPI_WIN_FLAVOR_DYNAMIC ? 1 : disp_unit;
    w->size = flavor == MPI_WIN_FLAVOR_DYNAMIC ? 0 : size;
    w->shared_noncontig = flavor == MPI_WIN_FLAVOR_SHARED && info_true(info, "alloc_shared_noncontig");
    /* A private communicator for our collectives; split, unlike dup, runs no
     * user attribute-copy callbacks. */
    PMPI_Comm_split(comm, 0, me, &w->comm);
    if (info != MPI_INFO_NULL)
        PMPI_Info_dup(info, &w->info);
    else
        PMPI_Info_create(&w->info);
    remora_win_apply_hints(w);

    struct rank_info mine = {.node_id = remora_ctx.node_id, .shm_id = remora_ctx.shm_id,
                             .world_rank = remora_ctx.world_rank, .disp_unit = w->disp_unit, .pid = remora_ctx.pid,
                             .size = w->size, .base = (uint64_t)(uintptr_t)user_base};
    if (flavor == MPI_WIN_FLAVOR_CREATE && size > 0)
        mine.in_pool = remora_pool_find(user_base, (size_t)size, &mine.pool);
    struct rank_info *ri = malloc(sizeof *ri * (size_t)n);
    if (!ri)
        remora_fatal("out of memory creating a window of %d ranks", n);
    PMPI_Allgather(&mine, sizeof mine, MPI_BYTE, ri, sizeof mine, MPI_BYTE, w->comm);
    rc = build_memory(w, ri, user_base);
    note_machine_load(ri, n);
    free(ri);
    if (rc == MPI_SUCCESS) {
        pthread_mutex_lock(&remora_ctx.lock);
        rc = remora_win_table_insert(&remora_ctx.wins, w, &w->index);
        pthread_mutex_unlock(&remora_ctx.lock);
    }
    if (rc != MPI_SUCCESS) {
        win_release(w);
        return rc;
    }
    w->magic = REMORA_WIN_MAGIC;
    *out = w;
    return MPI_SUCCESS;
}

int remora_win_free(struct remora_win *w)
{
    remora_spin_lock(&w->sync_lock);
    int busy = w->lock_all_held || w->locks_held || w->start_group || w->post_open;
    remora_spin_unlock(&w->sync_lock);
    if (busy)
        return remora_err(MPI_ERR_RMA_SYNC, "MPI_Win_free with an epoch open (lock, lock_all, start or post)");
    int rc = remora_attr_delete_all(w);
    if (rc != MPI_SUCCESS)
        return rc;
    /* after this barrier nobody touches our memory or control block any more */
    remora_tp_flush(w->amo_domain, NULL);
    remora_win_barrier(w);
    pthread_mutex_lock(&remora_ctx.lock);
    remora_win_table_remove(&remora_ctx.wins, w->index);
    pthread_mutex_unlock(&remora_ctx.lock);
    win_release(w);
    return MPI_SUCCESS;
}

int remora_win_shared_query(struct remora_win *w, int rank, MPI_Aint *size, int *disp_unit, void **base)
{
    if (w->flavor != MPI_WIN_FLAVOR_SHARED)
        return remora_err(MPI_ERR_RMA_FLAVOR, "MPI_Win_shared_query on a window not made by MPI_Win_allocate_shared");
    if (rank == MPI_PROC_NULL) {
        /* the lowest rank with memory, as the standard says */
        for (rank = 0; rank < w->comm_size && w->peers[rank].size == 0; rank++)
            ;
        if (rank == w->comm_size)
            rank = 0;
    } else if ((unsigned)rank >= (unsigned)w->comm_size) {
        return remora_err(MPI_ERR_RANK, "rank %d is not in the window", rank);
    }
    const struct remora_peer *p = &w->peers[rank];
    *size = (MPI_Aint)p->size;
    *disp_unit = (int)p->disp_unit;
    *base = p->base;
    return MPI_SUCCESS;
}
