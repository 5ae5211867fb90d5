/* Window creation and destruction.
 *
 * Every process learns everything about every rank of the window in one
 * allgather, then computes the same layout: one segment per node ("segment
 * group": the ranks sharing a node; for allocate_shared, the whole window)
 *
 *   [node header][control block of each member][region tables][data of each member]
 *
 * Data is in the segment for MPI_Win_allocate(_shared); MPI_Win_create keeps the
 * user's memory, dynamic windows hold none.  How each rank is reached is then
 * settled by exchanging keys (win_reach.c). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/dynamic.h"
#include "core/engine.h"
#include "core/status.h"
#include "core/sync.h"
#include "core/win.h"
#include "core/win_reach.h"
#include "runtime/bootstrap.h"
#include "runtime/context.h"
#include "runtime/log.h"

#define PAGE 4096

struct rank_info {
    uint64_t node_key, shm_key;
    int world_rank, disp_unit;
    MPI_Aint size;
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

/* The segment group of rank r: the ranks it shares a segment with. */
static uint64_t group_key(const struct remora_win *w, const struct rank_info *ri, int r)
{
    return w->flavor == MPI_WIN_FLAVOR_SHARED ? ri[r].shm_key : ri[r].node_key;
}

struct sort_ctx {
    const struct remora_win *w;
    const struct rank_info *ri;
};

static int by_group(const void *x, const void *y, void *arg)
{
    const struct sort_ctx *c = arg;
    int a = *(const int *)x, b = *(const int *)y;
    uint64_t ka = group_key(c->w, c->ri, a), kb = group_key(c->w, c->ri, b);
    return ka != kb ? (ka < kb ? -1 : 1) : a - b;
}

/* Where each rank's control block, region table and data lie in its group's
 * segment (the same in every member's mapping), and the segment's size. */
static void place_group(const struct remora_win *w, const struct rank_info *ri, const int *members, int m,
                        struct remora_win_place *pl)
{
    size_t ctrl_start = round_up(sizeof(struct remora_node_header), REMORA_CACHELINE);
    size_t dyn_bytes = w->dyn_cap ? remora_dyn_table_bytes(w->dyn_cap) : 0;
    size_t dyn_start = round_up(ctrl_start + w->ctrl_stride * (size_t)m, PAGE);
    size_t end = round_up(dyn_start + dyn_bytes * (size_t)m, PAGE);
    int in_segment = w->flavor == MPI_WIN_FLAVOR_ALLOCATE || w->flavor == MPI_WIN_FLAVOR_SHARED;
    for (int k = 0; k < m; k++) {
        struct remora_win_place *p = &pl[members[k]];
        p->k = k;
        p->leader = members[0];
        p->ctrl = ctrl_start + w->ctrl_stride * (size_t)k;
        p->dyn = dyn_start + dyn_bytes * (size_t)k;
        p->data = 0;
        if (in_segment) {
            size_t sz = (size_t)ri[members[k]].size;
            if (w->flavor == MPI_WIN_FLAVOR_SHARED && !w->shared_noncontig)
                p->data = end; /* contiguous across ranks, as the standard defines it */
            else
                p->data = round_up(end, sz >= PAGE || w->shared_noncontig ? PAGE : REMORA_CACHELINE);
            end = p->data + sz;
        }
    }
    for (int k = 0; k < m; k++)
        pl[members[k]].seg_size = end;
}

/* Every rank's place, group by group. */
static struct remora_win_place *place_all(const struct remora_win *w, const struct rank_info *ri)
{
    int n = w->comm_size;
    int *order = malloc(sizeof(int) * (size_t)n);
    struct remora_win_place *pl = calloc((size_t)n, sizeof *pl);
    if (!order || !pl) {
        free(order);
        free(pl);
        return NULL;
    }
    for (int r = 0; r < n; r++)
        order[r] = r;
    struct sort_ctx ctx = {w, ri};
    qsort_r(order, (size_t)n, sizeof *order, by_group, &ctx);
    for (int i = 0, j; i < n; i = j) {
        for (j = i; j < n && group_key(w, ri, order[j]) == group_key(w, ri, order[i]); j++)
            ;
        place_group(w, ri, order + i, j - i, pl);
    }
    free(order);
    return pl;
}

/* Segment, control blocks and how every rank is reached.  Collective; the same result everywhere. */
static int build_memory(struct remora_win *w, const struct rank_info *ri, void *user_base)
{
    int n = w->comm_size, me = w->rank;
    w->ctrl_stride = round_up(sizeof(struct remora_ctrl) + sizeof(uint64_t) * (size_t)n, REMORA_CACHELINE);
    if (w->flavor == MPI_WIN_FLAVOR_DYNAMIC)
        w->dyn_cap = (uint32_t)remora_ctx.config.dyn_regions;
    struct remora_win_place *pl = place_all(w, ri);
    w->node_of_rank = malloc(sizeof(int) * (size_t)n);
    w->world_rank = malloc(sizeof(int) * (size_t)n);
    if (!remora_boot_agree(w->comm, pl && w->node_of_rank && w->world_rank)) {
        free(pl);
        return remora_err(MPI_ERR_NO_MEM, "laying out a window of %d ranks", n);
    }
    int nmembers = 0;
    w->spans_nodes = 0;
    for (int r = 0; r < n; r++) {
        w->world_rank[r] = ri[r].world_rank;
        w->node_of_rank[r] = pl[r].leader == pl[me].leader ? pl[r].k : -1;
        nmembers += w->node_of_rank[r] >= 0;
        w->spans_nodes |= ri[r].node_key != ri[me].node_key;
    }
    w->node_rank = pl[me].k;
    w->node_size = nmembers;
    w->node_all = nmembers == n;
    if (w->flavor == MPI_WIN_FLAVOR_SHARED && !w->node_all) {
        free(pl);
        return remora_err(MPI_ERR_RMA_SHARED, "MPI_Win_allocate_shared over processes that cannot share memory");
    }
    int rc = remora_segment_create(w->comm, pl[me].leader, nmembers, pl[me].seg_size, &w->seg);
    if (rc != MPI_SUCCESS) {
        rc = remora_err(rc, "no memory for the window's segment (%zu bytes)", pl[me].seg_size);
        free(pl);
        return rc;
    }
    char *seg = w->seg.addr;
    w->node_hdr = (struct remora_node_header *)seg;
    w->ctrl = (struct remora_ctrl *)(seg + pl[me].ctrl);
    if (w->dyn_cap) {
        w->dyn_tables = seg + pl[me].dyn - remora_dyn_table_bytes(w->dyn_cap) * (size_t)pl[me].k;
        for (int r = 0; r < n; r++)
            if (w->node_of_rank[r] >= 0)
                ((struct remora_dyn_table *)(seg + pl[r].dyn))->cap = w->dyn_cap;
    }
    for (int r = 0; r < n; r++) {
        w->peers[r].size = (uint64_t)ri[r].size;
        w->peers[r].disp_unit = (uint32_t)ri[r].disp_unit;
    }
    rc = remora_win_reach_build(w, pl, user_base);
    if (rc == MPI_SUCCESS && w->flavor == MPI_WIN_FLAVOR_CREATE)
        w->base = user_base;
    else if (rc == MPI_SUCCESS)
        w->base = w->flavor == MPI_WIN_FLAVOR_DYNAMIC ? MPI_BOTTOM : w->peers[me].base;
    free(pl);
    return rc;
}

/* Waits must yield when this machine runs more of our processes than it has cores. */
static void note_machine_load(const struct rank_info *ri, int n)
{
    int here = 0;
    for (int r = 0; r < n; r++)
        here += ri[r].shm_key == remora_ctx.shm_key;
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
    w->reach = calloc((size_t)n, sizeof *w->reach);
    if (!w->peers || !w->lock_state || !w->starts_toward || !w->reach) {
        free(w->reach);
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
    atomic_init(&w->type_hint, &remora_core.types.no_type);
    w->handle = MPI_WIN_NULL;
    w->model = MPI_WIN_UNIFIED;
    return w;
}

void remora_win_release_memory(struct remora_win *w)
{
    remora_dyn_free(w);
    remora_win_reach_free(w);
    remora_segment_destroy(&w->seg);
}

/* Undo what creation or use built, in reverse; local. */
static void win_release(struct remora_win *w)
{
    remora_win_release_memory(w);
    if (w->group != MPI_GROUP_NULL)
        PMPI_Group_free(&w->group);
    if (w->info != MPI_INFO_NULL)
        PMPI_Info_free(&w->info);
    if (w->comm != MPI_COMM_NULL)
        PMPI_Comm_free(&w->comm);
    remora_errh_release(&w->errh);
    pthread_mutex_destroy(&w->dyn_lock);
    free(w->node_of_rank);
    free(w->world_rank);
    free(w->reach);
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
    int rc = check_args(comm, flavor, size, disp_unit), agreed, n = 0, me = 0;
    struct remora_win *w = NULL;
    struct rank_info *ri = NULL;
    if (rc == MPI_SUCCESS) {
        PMPI_Comm_size(comm, &n);
        PMPI_Comm_rank(comm, &me);
        w = win_alloc(n);
        ri = malloc(sizeof *ri * (size_t)n);
        if (!w || !ri)
            rc = remora_err(MPI_ERR_NO_MEM, "window of %d ranks", n);
    }
    if (rc != MPI_ERR_COMM) {
        /* one process's bad argument or lack of memory fails the creation
         * everywhere instead of hanging the rest */
        PMPI_Allreduce(&rc, &agreed, 1, MPI_INT, MPI_MAX, comm);
        if (agreed != MPI_SUCCESS && rc == MPI_SUCCESS)
            rc = remora_err(agreed, "another process could not create the window");
    }
    if (rc != MPI_SUCCESS) {
        if (w)
            win_release(w);
        free(ri);
        return rc;
    }
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

    struct rank_info mine = {.node_key = remora_ctx.node_key, .shm_key = remora_ctx.shm_key,
                             .world_rank = remora_ctx.world_rank, .disp_unit = w->disp_unit, .size = w->size};
    PMPI_Allgather(&mine, sizeof mine, MPI_BYTE, ri, sizeof mine, MPI_BYTE, w->comm);
    rc = build_memory(w, ri, user_base);
    note_machine_load(ri, n);
    free(ri);
    if (rc == MPI_SUCCESS) {
        pthread_mutex_lock(&remora_core.lock);
        rc = remora_win_table_insert(&remora_core.wins, w, &w->index);
        pthread_mutex_unlock(&remora_core.lock);
    }
    if (rc != MPI_SUCCESS) {
        win_release(w);
        return rc;
    }
    w->magic = REMORA_WIN_MAGIC;
    *out = w;
    return MPI_SUCCESS;
}

int remora_win_free(struct remora_win *w, int *released)
{
    *released = 0;
    remora_spin_lock(&w->sync_lock);
    int busy = w->lock_all_held || w->locks_held || w->start_group || w->post_open;
    remora_spin_unlock(&w->sync_lock);
    if (busy)
        return remora_err(MPI_ERR_RMA_SYNC, "MPI_Win_free with an epoch open (lock, lock_all, start or post)");
    int rc = remora_attr_delete_all(w);
    if (rc != MPI_SUCCESS)
        return rc;
    /* after this barrier nobody touches our memory or control block any more */
    rc = remora_status_err(remora_flush_all(), "completing the window's operations");
    remora_win_barrier(w);
    if (rc != MPI_SUCCESS) /* raised while the window and its handler still exist */
        rc = remora_raise(w, MPI_COMM_NULL, rc, "MPI_Win_free", 0);
    pthread_mutex_lock(&remora_core.lock);
    remora_win_table_remove(&remora_core.wins, w->index);
    pthread_mutex_unlock(&remora_core.lock);
    win_release(w);
    *released = 1;
    return rc;
}

int remora_win_shared_query(struct remora_win *w, int rank, MPI_Aint *size, int *disp_unit, void **base)
{
    /* MPI-4.0: windows of MPI_Win_allocate_shared, MPI_Win_allocate and
     * MPI_Win_create; of the last two, the memory this process has mapped
     * (a peer's on this node, MPI_Alloc_mem memory, its own) and size 0 with
     * a NULL base for the rest */
    if (w->flavor == MPI_WIN_FLAVOR_DYNAMIC)
        return remora_err(MPI_ERR_RMA_FLAVOR, "MPI_Win_shared_query on a dynamic window");
    int shared = w->flavor == MPI_WIN_FLAVOR_SHARED;
    if (rank == MPI_PROC_NULL) {
        /* the lowest rank with memory (that this process can load and store) */
        for (rank = 0; rank < w->comm_size && (w->peers[rank].size == 0 || !(shared || w->peers[rank].base)); rank++)
            ;
        if (rank == w->comm_size)
            rank = shared ? 0 : -1;
    } else if ((unsigned)rank >= (unsigned)w->comm_size) {
        return remora_err(MPI_ERR_RANK, "rank %d is not in the window", rank);
    }
    if (rank < 0) { /* no memory here of any rank */
        *size = 0;
        *disp_unit = 1;
        *base = NULL;
        return MPI_SUCCESS;
    }
    const struct remora_peer *p = &w->peers[rank];
    *size = shared || p->base ? (MPI_Aint)p->size : 0;
    *disp_unit = (int)p->disp_unit;
    *base = p->base;
    return MPI_SUCCESS;
}
