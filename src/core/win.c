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

/* The head of a segment of m members: the node header, then every member's
 * control block, then its region table (dynamic windows); data from `end` on. */
struct seg_head {
    size_t ctrl_start, dyn_start, dyn_bytes, end;
};

static struct seg_head place_head(const struct remora_win *w, int m)
{
    struct seg_head h;
    h.ctrl_start = round_up(sizeof(struct remora_node_header), REMORA_CACHELINE);
    h.dyn_bytes = w->dyn.cap ? remora_dyn_table_bytes(w->dyn.cap) : 0;
    h.dyn_start = round_up(h.ctrl_start + w->mem.ctrl_stride * (size_t)m, PAGE);
    h.end = round_up(h.dyn_start + h.dyn_bytes * (size_t)m, PAGE);
    return h;
}

static int data_in_segment(const struct remora_win *w)
{
    return w->flavor == MPI_WIN_FLAVOR_ALLOCATE || w->flavor == MPI_WIN_FLAVOR_SHARED;
}

/* Where data of sz bytes starts after the segment's first `end` bytes. */
static size_t place_data(const struct remora_win *w, size_t end, size_t sz)
{
    if (w->flavor == MPI_WIN_FLAVOR_SHARED && !w->shared_noncontig)
        return end; /* contiguous across ranks, as the standard defines it */
    return round_up(end, sz >= PAGE || w->shared_noncontig ? PAGE : REMORA_CACHELINE);
}

/* Where each rank's control block, region table and data lie in its group's
 * segment (the same in every member's mapping), and the segment's size. */
static void place_group(const struct remora_win *w, const struct rank_info *ri, const int *members, int m,
                        struct remora_win_place *pl)
{
    struct seg_head h = place_head(w, m);
    size_t end = h.end;
    for (int k = 0; k < m; k++) {
        struct remora_win_place *p = &pl[members[k]];
        p->k = k;
        p->leader = members[0];
        p->ctrl = h.ctrl_start + w->mem.ctrl_stride * (size_t)k;
        p->dyn = h.dyn_start + h.dyn_bytes * (size_t)k;
        p->data = 0;
        if (data_in_segment(w)) {
            p->data = place_data(w, end, (size_t)ri[members[k]].size);
            end = p->data + (size_t)ri[members[k]].size;
        }
    }
    for (int k = 0; k < m; k++)
        pl[members[k]].seg_size = end;
}

/* The same layout when all n ranks share one segment and one size: rank k's
 * places are computed (lazy_place in win_reach.c); returns the segment's size. */
static size_t place_uniform(struct remora_win *w, int n)
{
    struct seg_head h = place_head(w, n);
    size_t sz = (size_t)w->size;
    w->mem.ctrl_start = h.ctrl_start;
    w->mem.dyn_start = h.dyn_start;
    w->mem.dyn_bytes = h.dyn_bytes;
    if (!data_in_segment(w))
        return h.end;
    w->mem.data_start = place_data(w, h.end, sz);
    w->mem.data_stride = place_data(w, w->mem.data_start + sz, sz) - w->mem.data_start; /* data_start is aligned */
    return w->mem.data_start + w->mem.data_stride * (size_t)(n - 1) + sz;
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

/* Every rank's place from what all sent (ri); sets our node fields. */
static int place_ranks(struct remora_win *w, const struct rank_info *ri, struct remora_win_place **out)
{
    int n = w->comm_size, me = w->rank;
    struct remora_win_place *pl = place_all(w, ri);
    if (!remora_boot_agree(w->comm, pl != NULL)) {
        free(pl);
        return remora_err(MPI_ERR_NO_MEM, "laying out a window of %d ranks", n);
    }
    w->node_size = 0;
    w->spans_nodes = 0;
    for (int r = 0; r < n; r++) {
        pl[r].node_rank = pl[r].leader == pl[me].leader ? pl[r].k : -1;
        pl[r].world_rank = ri[r].world_rank;
        pl[r].size = (uint64_t)ri[r].size;
        pl[r].disp_unit = (uint32_t)ri[r].disp_unit;
        w->node_size += pl[r].node_rank >= 0;
        w->spans_nodes |= ri[r].node_key != ri[me].node_key;
    }
    w->node_rank = pl[me].k;
    struct seg_head h = place_head(w, w->node_size);
    w->mem.ctrl_start = h.ctrl_start;
    w->mem.dyn_start = h.dyn_start;
    w->mem.dyn_bytes = h.dyn_bytes;
    *out = pl;
    return MPI_SUCCESS;
}

/* Segment, control blocks and how every rank is reached, from ri, or computed
 * with w->mem.lazy_ranks (ri NULL).  Collective; the same result everywhere. */
static int build_memory(struct remora_win *w, const struct rank_info *ri, void *user_base)
{
    int n = w->comm_size, me = w->rank, leader = 0, rc;
    w->mem.ctrl_stride = round_up(sizeof(struct remora_ctrl) + sizeof(uint64_t) * (size_t)n, REMORA_CACHELINE);
    if (w->flavor == MPI_WIN_FLAVOR_DYNAMIC)
        w->dyn.cap = (uint32_t)remora_ctx.config.dyn_regions;
    struct remora_win_place *pl = NULL;
    size_t seg_size;
    if (w->mem.lazy_ranks) {
        seg_size = place_uniform(w, n);
        w->node_rank = me;
        w->node_size = n;
        w->spans_nodes = 0;
    } else {
        if ((rc = place_ranks(w, ri, &pl)) != MPI_SUCCESS)
            return rc;
        if (!remora_boot_agree(w->comm, remora_win_barrier_place(w, pl) == MPI_SUCCESS)) {
            free(pl);
            return remora_err(MPI_ERR_NO_MEM, "no memory for the list of the window's nodes");
        }
        seg_size = pl[me].seg_size;
        leader = pl[me].leader;
    }
    w->node_all = w->node_size == n;
    if (w->flavor == MPI_WIN_FLAVOR_SHARED && !w->node_all) {
        free(pl);
        return remora_err(MPI_ERR_RMA_SHARED, "MPI_Win_allocate_shared over processes that cannot share memory");
    }
    rc = remora_segment_create(w->comm, leader, w->node_size, seg_size, &w->mem.seg);
    if (rc != MPI_SUCCESS) {
        free(pl);
        return remora_err(rc, "no memory for the window's segment (%zu bytes)", seg_size);
    }
    char *seg = w->mem.seg.addr;
    w->fence.node_hdr = (struct remora_node_header *)seg;
    w->mem.ctrl = (struct remora_ctrl *)(seg + w->mem.ctrl_start + w->mem.ctrl_stride * (size_t)w->node_rank);
    if (w->dyn.cap) {
        w->dyn.tables = seg + w->mem.dyn_start;
        for (int k = 0; k < w->node_size; k++)
            ((struct remora_dyn_table *)(seg + w->mem.dyn_start + w->mem.dyn_bytes * (size_t)k))->cap = w->dyn.cap;
    }
    rc = remora_win_reach_build(w, pl, user_base);
    if (rc == MPI_SUCCESS && w->flavor == MPI_WIN_FLAVOR_CREATE)
        w->base = user_base;
    else if (rc == MPI_SUCCESS)
        w->base = w->flavor == MPI_WIN_FLAVOR_DYNAMIC ? MPI_BOTTOM : remora_rank_known(w, me)->peer.base;
    free(pl);
    return rc;
}

/* Whether every rank gives one size and displacement unit, and all are on one
 * node: then every rank's place is computed, nothing is gathered (one
 * allreduce, O(1) memory per process). */
static int uniform_on_node(const struct remora_win *w)
{
    uint64_t v[] = {(uint64_t)w->size, ~(uint64_t)w->size, (uint64_t)w->disp_unit, ~(uint64_t)w->disp_unit,
                    remora_ctx.node_key, ~remora_ctx.node_key, remora_ctx.shm_key, ~remora_ctx.shm_key};
    PMPI_Allreduce(MPI_IN_PLACE, v, sizeof v / sizeof *v, MPI_UINT64_T, MPI_MAX, w->comm);
    for (size_t i = 0; i < sizeof v / sizeof *v; i += 2)
        if (v[i] != ~v[i + 1]) /* the maximum is not the minimum */
            return 0;
    return 1;
}

/* Waits must yield when this machine runs more of our processes than it has cores. */
static void note_machine_load(int here)
{
    if (here > remora_ctx.ncpus)
        atomic_store_explicit(&remora_ctx.oversubscribed, 1, memory_order_relaxed);
}

/* The general case: what every rank gives, gathered, then laid out. */
static int build_gathered(struct remora_win *w, void *user_base)
{
    int n = w->comm_size, here = 0;
    struct rank_info *ri = malloc(sizeof *ri * (size_t)n);
    if (!remora_boot_agree(w->comm, ri != NULL)) {
        free(ri);
        return remora_err(MPI_ERR_NO_MEM, "window of %d ranks", n);
    }
    struct rank_info mine = {.node_key = remora_ctx.node_key, .shm_key = remora_ctx.shm_key,
                             .world_rank = remora_ctx.world_rank, .disp_unit = w->disp_unit, .size = w->size};
    PMPI_Allgather(&mine, sizeof mine, MPI_BYTE, ri, sizeof mine, MPI_BYTE, w->comm);
    int rc = build_memory(w, ri, user_base);
    for (int r = 0; r < n; r++)
        here += ri[r].shm_key == remora_ctx.shm_key;
    note_machine_load(here);
    free(ri);
    return rc;
}

static struct remora_win *win_alloc(int n)
{
    struct remora_win *w = calloc(1, sizeof *w + (size_t)n * sizeof w->ranks[0]);
    if (!w)
        return NULL;
    for (int r = 0; r < n; r++)
        atomic_init(&w->ranks[r], &remora_rank_unmade);
    pthread_mutex_init(&w->mem.ranks_lock, NULL);
    pthread_mutex_init(&w->dyn.lock, NULL);
    w->group = MPI_GROUP_NULL;
    w->info = MPI_INFO_NULL;
    w->comm = MPI_COMM_NULL;
    w->errh.handle = MPI_ERRORS_ARE_FATAL;
    atomic_init(&w->type_hint, &remora_core.types.no_type);
    atomic_init(&w->amo_hint, &remora_core.types.no_type);
    w->handle = MPI_WIN_NULL;
    w->model = MPI_WIN_UNIFIED;
    w->threads_concurrent = remora_ctx.thread_level == MPI_THREAD_MULTIPLE;
    return w;
}

void remora_win_release_memory(struct remora_win *w)
{
    remora_dyn_free(w);
    remora_win_reach_free(w);
    remora_segment_destroy(&w->mem.seg);
    free(w->fence.leaders);
    w->fence.leaders = NULL;
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
    pthread_mutex_destroy(&w->dyn.lock);
    pthread_mutex_destroy(&w->mem.ranks_lock);
    free(w->pscw.start_group);
    w->magic = 0;
    free(w);
}

int remora_win_create(MPI_Comm comm, int flavor, MPI_Aint size, int disp_unit, MPI_Info info, void *user_base,
                      struct remora_win **out)
{
    int rc = check_args(comm, flavor, size, disp_unit), agreed, n = 0, me = 0;
    struct remora_win *w = NULL;
    if (rc == MPI_SUCCESS) {
        PMPI_Comm_size(comm, &n);
        PMPI_Comm_rank(comm, &me);
        if (!(w = win_alloc(n)))
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

    w->mem.lazy_ranks = flavor != MPI_WIN_FLAVOR_CREATE && uniform_on_node(w); /* create: every rank has its own key */
    if (w->mem.lazy_ranks) {
        rc = build_memory(w, NULL, user_base);
        note_machine_load(n);
    } else {
        rc = build_gathered(w, user_base);
    }
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
    remora_sync_begin(w);
    int busy = w->lock.all_held || remora_locks_held(w) || w->pscw.start_group || w->pscw.post_open;
    remora_sync_end(w);
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

/* Does a rank with `size` bytes in w show the user a NULL base (its base
 * pointer from MPI_Win_allocate_shared, MPI_WIN_BASE, MPI_Win_shared_query)?
 * A rank without memory in a window of MPI_Win_allocate_shared does where
 * the host's own one-sided component does (checked on both): MPICH 4.0.2
 * always; Open MPI 4.1.4's osc/sm when the memory is noncontiguous
 * (alloc_shared_noncontig), and in a contiguous window it gives the address
 * where the rank's memory would start, as Remora does. */
static int base_hidden(const struct remora_win *w, MPI_Aint size)
{
    if (w->flavor != MPI_WIN_FLAVOR_SHARED || size != 0)
        return 0;
#if defined(OPEN_MPI)
    return w->shared_noncontig;
#else
    return 1;
#endif
}

void *remora_win_user_base(const struct remora_win *w)
{
    return base_hidden(w, w->size) ? NULL : w->base;
}

/* Whether all of a rank's window memory is mapped here (not only a part:
 * runtime/shared_pages.h). */
static int whole_mapped(const struct remora_peer *p) { return p->base && p->fast_limit == p->size; }

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
        for (rank = 0; rank < w->comm_size; rank++) {
            const struct remora_rank_state *r = remora_rank(w, rank);
            if (!r)
                return remora_err(MPI_ERR_NO_MEM, "window of %d ranks", w->comm_size);
            if (r->peer.size && (shared || whole_mapped(&r->peer)))
                break;
        }
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
    const struct remora_rank_state *r = remora_rank(w, rank);
    if (!r)
        return remora_err(MPI_ERR_NO_MEM, "window of %d ranks", w->comm_size);
    const struct remora_peer *p = &r->peer;
    int mapped = shared || whole_mapped(p);
    *size = mapped ? (MPI_Aint)p->size : 0;
    *disp_unit = (int)p->disp_unit;
    *base = !mapped || base_hidden(w, (MPI_Aint)p->size) ? NULL : p->base;
    if (mapped && rank != w->rank) /* loads and stores that no RMA call checks (lock.c) */
        atomic_store_explicit(&w->lock.peers_handed_out, 1, memory_order_relaxed);
    return MPI_SUCCESS;
}
