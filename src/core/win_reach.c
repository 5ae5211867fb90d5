/* How every process reaches every rank of a window (see win_reach.h).
 *
 * Rank r's memory, as seen from here:
 *   ctrl  its control block: mapped in our node segment, or, when the window
 *         spans nodes, through the network for every rank (one atomicity
 *         domain per window, on-node peers included);
 *   data  its window memory the fastest way: mapped (our segment, our own
 *         memory, its MPI_Alloc_mem pool chunk), CMA on the node, the network
 *         across nodes;
 *   amo   the same memory in the window's atomicity domain;
 *   dyn   its region table (dynamic windows): mapped on the node, else network.
 * Accumulates on r's memory use atomics only if every origin has atomics on
 * it (peer.acc_atomic, agreed by all), so an element is never updated both
 * with atomics and under the accumulate lock.
 *
 * With w->mem.lazy_ranks every rank is on our node and in our segment, so its
 * rmems are addresses there, computed when the rank is first used; no key is
 * exchanged. */
#include <stdlib.h>
#include <string.h>

#include "core/status.h"
#include "core/win.h"
#include "core/win_reach.h"
#include "runtime/bootstrap.h"

/* Our keys, back to back: [segment key length][data key length][keys]. */
static int exchange_keys(struct remora_win *w, char **all, size_t **offs, size_t **lens)
{
    uint32_t hdr[2] = {(uint32_t)w->mem.seg_reg.packed_len, (uint32_t)w->mem.data_reg.packed_len};
    char buf[sizeof hdr + 2 * REMORA_KEY_MAX];
    memcpy(buf, hdr, sizeof hdr);
    memcpy(buf + sizeof hdr, w->mem.seg_reg.packed, hdr[0]);
    memcpy(buf + sizeof hdr + hdr[0], w->mem.data_reg.packed, hdr[1]);
    return remora_boot_allgatherv(w->comm, buf, sizeof hdr + hdr[0] + hdr[1], all, offs, lens);
}

static struct remora_rmem view(const struct remora_rmem *m, size_t delta)
{
    struct remora_rmem v = *m;
    v.base += delta;
    return v;
}

/* Rank r's state from its place and (across nodes, MPI_Win_create) its keys. */
/* peer.amo_here (core/fop_fast.h): accumulates may use atomics on its
 * memory, and they are CPU atomics on the mapping at peer.base. */
static void note_amo_here(struct remora_rank_state *s)
{
    const struct remora_reach *x = &s->reach;
    s->peer.amo_here = s->peer.acc_atomic && s->peer.base && x->amo.tp && !remora_applies(&x->amo) &&
                       remora_mapped(&x->amo, 0) == s->peer.base;
}

static remora_status_t reach_rank(struct remora_win *w, int r, struct remora_rank_state *s, const struct remora_win_place *p,
                      const char *seg_key, size_t seg_len, const char *data_key, size_t data_len)
{
    struct remora_reach *x = &s->reach;
    int proc = p->world_rank, on_node = p->node_rank >= 0;
    remora_status_t st = REMORA_OK;
    /* its keys: seg over the network, data, data over the network */
    struct remora_rmem *key = w->mem.keys ? &w->mem.keys[3 * r] : NULL;
    char *seg = w->mem.seg.addr;
    s->world_rank = proc;
    s->node_rank = p->node_rank;
    if (w->spans_nodes)
        st = remora_mem_unpack(proc, seg_key, seg_len, REMORA_REACH_NET, &key[0]);
    if (!remora_ok(st))
        return st;
    if (on_node) {
        remora_mem_mapped(proc, seg + p->ctrl, &x->ctrl);
        remora_mem_mapped(proc, seg + p->dyn, &x->dyn);
    } else {
        x->dyn = view(&key[0], p->dyn);
    }
    if (w->spans_nodes)
        x->ctrl = view(&key[0], p->ctrl);

    if (w->flavor == MPI_WIN_FLAVOR_CREATE) {
        st = remora_mem_unpack(proc, data_key, data_len, REMORA_REACH_FAST, &key[1]);
        x->data = key[1];
        x->amo = key[1];
        if (remora_ok(st) && w->spans_nodes && on_node) {
            st = remora_mem_unpack(proc, data_key, data_len, REMORA_REACH_NET, &key[2]);
            x->amo = key[2];
        }
    } else if (w->flavor != MPI_WIN_FLAVOR_DYNAMIC) {
        if (on_node)
            remora_mem_mapped(proc, seg + p->data, &x->data);
        else
            x->data = view(&key[0], p->data);
        x->amo = w->spans_nodes ? view(&key[0], p->data) : x->data;
    }
    struct remora_peer *peer = &s->peer;
    peer->size = p->size;
    peer->disp_unit = p->disp_unit;
    peer->fast_limit = peer->size; /* lowered to the mapped part of memory mapped in part */
    peer->base = x->data.tp ? remora_mapped_prefix(&x->data, &peer->fast_limit) : NULL;
    peer->fast_limit = peer->base ? peer->fast_limit : 0;
    peer->fast_disps = peer->fast_limit / peer->disp_unit;
    peer->acc_atomic = x->amo.tp && x->amo.tp->amo_sizes != 0;
    note_amo_here(s);
    return st;
}

static struct remora_rank_chunk *new_chunk(void)
{
    struct remora_rank_chunk *c = aligned_alloc(REMORA_CACHELINE, sizeof *c); /* peers are cache-line aligned */
    if (c)
        memset(c, 0, sizeof *c);
    return c;
}

/* Rank r's place with w->mem.lazy_ranks: the window's rank r is member r of our segment. */
static struct remora_win_place lazy_place(const struct remora_win *w, int r, int world_rank)
{
    struct remora_win_place p = {.k = r, .leader = 0, .node_rank = r, .world_rank = world_rank,
                                 .size = (uint64_t)w->size, .disp_unit = (uint32_t)w->disp_unit};
    p.ctrl = w->mem.ctrl_start + w->mem.ctrl_stride * (size_t)r;
    p.dyn = w->mem.dyn_start + w->mem.dyn_bytes * (size_t)r;
    p.data = w->mem.data_start + w->mem.data_stride * (size_t)r;
    return p;
}

/* How many ranks the chunk that begins at rank `first` holds. */
static int chunk_ranks(const struct remora_win *w, int first)
{
    int n = w->comm_size - first;
    return n < REMORA_RANK_CHUNK ? n : REMORA_RANK_CHUNK;
}

/* Makes the states of chunk c (ranks first.. first + n - 1) visible: release
 * stores, so that a reader who finds a rank's pointer sees its state. */
static void publish_chunk(struct remora_win *w, struct remora_rank_chunk *c, int first, int n)
{
    for (int i = 0; i < n; i++)
        atomic_store_explicit(&w->ranks[first + i], &c->rank[i], memory_order_release);
}

struct remora_rank_state remora_rank_unmade;

struct remora_rank_state *remora_rank_make(struct remora_win *w, int r)
{
    int first = r / REMORA_RANK_CHUNK * REMORA_RANK_CHUNK, n = chunk_ranks(w, first);
    pthread_mutex_lock(&w->mem.ranks_lock);
    struct remora_rank_state *s = remora_rank_known(w, r);
    struct remora_rank_chunk *c;
    if (!s && w->mem.lazy_ranks && (c = new_chunk())) {
        int mine[REMORA_RANK_CHUNK], world[REMORA_RANK_CHUNK];
        MPI_Group group, world_group;
        for (int i = 0; i < n; i++)
            mine[i] = first + i;
        PMPI_Comm_group(w->comm, &group);
        PMPI_Comm_group(MPI_COMM_WORLD, &world_group);
        PMPI_Group_translate_ranks(group, n, mine, world_group, world);
        PMPI_Group_free(&group);
        PMPI_Group_free(&world_group);
        for (int i = 0; i < n; i++) {
            struct remora_win_place p = lazy_place(w, first + i, world[i]);
            reach_rank(w, first + i, &c->rank[i], &p, NULL, 0, NULL, 0); /* mapped: cannot fail */
        }
        publish_chunk(w, c, first, n);
        s = &c->rank[r - first];
    }
    pthread_mutex_unlock(&w->mem.ranks_lock);
    return s;
}

int remora_win_reach_build(struct remora_win *w, const struct remora_win_place *pl, void *user_base)
{
    int n = w->comm_size;
    remora_status_t st = REMORA_OK;
    if (w->mem.lazy_ranks) /* nothing to register or exchange: ranks are made on first use */
        return remora_rank(w, w->rank) ? MPI_SUCCESS : remora_err(MPI_ERR_NO_MEM, "window of %d ranks", n);
    if (w->spans_nodes && !remora_ok((st = remora_net_wireup(w->comm))))
        return remora_status_err(st, "connecting the window's processes");
    if (w->spans_nodes)
        st = remora_mem_register(w->mem.seg.addr, w->mem.seg.size, REMORA_REG_NET, &w->mem.seg_reg);
    if (remora_ok(st) && w->flavor == MPI_WIN_FLAVOR_CREATE)
        st = remora_mem_register(user_base, (size_t)w->size, remora_win_user_memory_flags(w), &w->mem.data_reg);
    if (!remora_boot_agree(w->comm, remora_ok(st)))
        return !remora_ok(st) ? remora_status_err(st, "registering the window's memory")
                               : remora_err(MPI_ERR_NO_MEM, "another process could not register its window memory");
    char *all;
    size_t *offs, *lens;
    int made = 1;
    for (int first = 0; first < n; first += REMORA_RANK_CHUNK) {
        struct remora_rank_chunk *chunk = new_chunk();
        if (chunk)
            publish_chunk(w, chunk, first, chunk_ranks(w, first));
        made &= chunk != NULL;
    }
    w->mem.keys = calloc(3 * (size_t)n, sizeof *w->mem.keys);
    if (!remora_boot_agree(w->comm, made && w->mem.keys != NULL) || exchange_keys(w, &all, &offs, &lens) != MPI_SUCCESS)
        return remora_err(MPI_ERR_NO_MEM, "exchanging the window's keys");
    w->mem.nkeys = 3 * n;
    for (int r = 0; r < n && remora_ok(st); r++) {
        uint32_t hdr[2];
        memcpy(hdr, all + offs[r], sizeof hdr);
        const char *keys = all + offs[r] + sizeof hdr;
        st = reach_rank(w, r, remora_rank_known(w, r), &pl[r], keys, hdr[0], keys + hdr[0], hdr[1]);
    }
    free(all);
    free(offs);
    free(lens);
    if (!remora_boot_agree(w->comm, remora_ok(st)))
        return !remora_ok(st) ? remora_status_err(st, "reaching the window's processes")
                               : remora_err(MPI_ERR_OTHER, "another process cannot reach the window's processes");
    /* MPI_Win_create memory: atomics only where every origin has them (on the
     * node, a process reached by CMA makes all take the accumulate lock). */
    if (w->flavor == MPI_WIN_FLAVOR_CREATE && !w->spans_nodes && n > 1) {
        int *ok = malloc(sizeof(int) * (size_t)n);
        if (!remora_boot_agree(w->comm, ok != NULL)) {
            free(ok);
            return remora_err(MPI_ERR_NO_MEM, "window of %d ranks", n);
        }
        for (int r = 0; r < n; r++)
            ok[r] = remora_rank_known(w, r)->peer.acc_atomic;
        PMPI_Allreduce(MPI_IN_PLACE, ok, n, MPI_INT, MPI_LAND, w->comm);
        for (int r = 0; r < n; r++) {
            remora_rank_known(w, r)->peer.acc_atomic = (uint8_t)ok[r];
            note_amo_here(remora_rank_known(w, r));
        }
        free(ok);
    }
    return MPI_SUCCESS;
}

void remora_win_reach_free(struct remora_win *w)
{
    for (int i = 0; w->mem.keys && i < w->mem.nkeys; i++)
        remora_rmem_release(&w->mem.keys[i]);
    free(w->mem.keys);
    w->mem.keys = NULL;
    w->mem.nkeys = 0;
    remora_mem_deregister(&w->mem.seg_reg);
    remora_mem_deregister(&w->mem.data_reg);
    /* a chunk's first rank's state is where the chunk begins */
    for (int first = 0; first < w->comm_size; first += REMORA_RANK_CHUNK)
        free(remora_rank_known(w, first));
    for (int r = 0; r < w->comm_size; r++)
        atomic_store_explicit(&w->ranks[r], &remora_rank_unmade, memory_order_relaxed);
}
