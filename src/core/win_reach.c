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
 * it (peers[r].acc_atomic, agreed by all), so an element is never updated both
 * with atomics and under the accumulate lock. */
#include <stdlib.h>
#include <string.h>

#include "core/status.h"
#include "core/win_reach.h"
#include "runtime/bootstrap.h"

/* Our keys, back to back: [segment key length][data key length][keys]. */
static int exchange_keys(struct remora_win *w, char **all, size_t **offs, size_t **lens)
{
    uint32_t hdr[2] = {(uint32_t)w->seg_reg.packed_len, (uint32_t)w->data_reg.packed_len};
    char buf[sizeof hdr + 2 * REMORA_KEY_MAX];
    memcpy(buf, hdr, sizeof hdr);
    memcpy(buf + sizeof hdr, w->seg_reg.packed, hdr[0]);
    memcpy(buf + sizeof hdr + hdr[0], w->data_reg.packed, hdr[1]);
    return remora_boot_allgatherv(w->comm, buf, sizeof hdr + hdr[0] + hdr[1], all, offs, lens);
}

static struct remora_rmem view(const struct remora_rmem *m, size_t delta)
{
    struct remora_rmem v = *m;
    v.base += delta;
    return v;
}

/* Rank r's rmems from its keys (seg, data: its packed keys). */
static int reach_rank(struct remora_win *w, int r, const struct remora_win_place *p, const char *seg_key,
                      size_t seg_len, const char *data_key, size_t data_len)
{
    struct remora_reach *x = &w->reach[r];
    struct remora_rmem *key = &w->keys[3 * r]; /* seg over the network, data, data over the network */
    int proc = w->world_rank[r], on_node = w->node_of_rank[r] >= 0, st = REMORA_OK;
    char *seg = w->seg.addr;
    if (w->spans_nodes)
        st = remora_mem_unpack(proc, seg_key, seg_len, REMORA_REACH_NET, &key[0]);
    if (st != REMORA_OK)
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
        if (st == REMORA_OK && w->spans_nodes && on_node) {
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
    struct remora_peer *peer = &w->peers[r];
    peer->base = x->data.tp ? remora_mapped(&x->data, 0) : NULL;
    peer->fast_limit = peer->base ? peer->size : 0;
    peer->fast_disps = peer->fast_limit / peer->disp_unit;
    peer->acc_atomic = x->amo.tp && x->amo.tp->amo_sizes != 0;
    return st;
}

int remora_win_reach_build(struct remora_win *w, const struct remora_win_place *pl, void *user_base)
{
    int n = w->comm_size, st = REMORA_OK;
    if (w->spans_nodes && (st = remora_net_wireup(w->comm)) != REMORA_OK)
        return remora_status_err(st, "connecting the window's processes");
    if (w->spans_nodes)
        st = remora_mem_register(w->seg.addr, w->seg.size, 1, &w->seg_reg);
    if (st == REMORA_OK && w->flavor == MPI_WIN_FLAVOR_CREATE)
        st = remora_mem_register(user_base, (size_t)w->size, w->spans_nodes, &w->data_reg);
    if (!remora_boot_agree(w->comm, st == REMORA_OK))
        return st != REMORA_OK ? remora_status_err(st, "registering the window's memory")
                               : remora_err(MPI_ERR_NO_MEM, "another process could not register its window memory");
    char *all;
    size_t *offs, *lens;
    w->keys = calloc(3 * (size_t)n, sizeof *w->keys);
    if (!remora_boot_agree(w->comm, w->keys != NULL) || exchange_keys(w, &all, &offs, &lens) != MPI_SUCCESS)
        return remora_err(MPI_ERR_NO_MEM, "exchanging the window's keys");
    w->nkeys = 3 * n;
    for (int r = 0; r < n && st == REMORA_OK; r++) {
        uint32_t hdr[2];
        memcpy(hdr, all + offs[r], sizeof hdr);
        const char *keys = all + offs[r] + sizeof hdr;
        st = reach_rank(w, r, &pl[r], keys, hdr[0], keys + hdr[0], hdr[1]);
    }
    free(all);
    free(offs);
    free(lens);
    if (!remora_boot_agree(w->comm, st == REMORA_OK))
        return st != REMORA_OK ? remora_status_err(st, "reaching the window's processes")
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
            ok[r] = w->peers[r].acc_atomic;
        PMPI_Allreduce(MPI_IN_PLACE, ok, n, MPI_INT, MPI_LAND, w->comm);
        for (int r = 0; r < n; r++)
            w->peers[r].acc_atomic = (uint8_t)ok[r];
        free(ok);
    }
    return MPI_SUCCESS;
}

void remora_win_reach_free(struct remora_win *w)
{
    for (int i = 0; w->keys && i < w->nkeys; i++)
        remora_rmem_release(&w->keys[i]);
    free(w->keys);
    w->keys = NULL;
    w->nkeys = 0;
    remora_mem_deregister(&w->seg_reg);
    remora_mem_deregister(&w->data_reg);
}
