/* A window's network side (see win_net.h). */
#include <stdlib.h>

#include "core/dynamic.h"
#include "core/win_net.h"
#include "runtime/context.h"
#include "runtime/log.h"

struct addresses {
    uint64_t ctrl, data, dyn;
    int world_rank;
};

int remora_win_net_create(struct remora_win *w, void *data, size_t data_len)
{
    int n = w->comm_size;
    int rc = remora_ucx_init();
    if (rc != MPI_SUCCESS)
        return remora_err(rc, "the UCX transport did not start");
    struct remora_win_net *net = calloc(1, sizeof *net);
    struct addresses mine = {(uint64_t)(uintptr_t)w->ctrl, (uint64_t)(uintptr_t)w->base, 0, remora_ctx.world_rank};
    if (w->dyn_tables)
        mine.dyn = (uint64_t)(uintptr_t)w->dyn_tables + remora_dyn_table_bytes(w->dyn_cap) * (size_t)w->node_rank;
    struct addresses *all = malloc(sizeof *all * (size_t)n);
    if (!net || !all || !(net->targets = calloc((size_t)n, sizeof *net->targets)))
        remora_fatal("out of memory creating a window of %d ranks", n);
    w->net = net;
    remora_ucx_exchange_addresses(w->comm);
    PMPI_Allgather(&mine, sizeof mine, MPI_BYTE, all, sizeof mine, MPI_BYTE, w->comm);

    /* Failure to register is agreed on, so that nobody waits for the others. */
    int ok = remora_ucx_register(w->seg.addr, w->seg.size, &net->seg_reg) == MPI_SUCCESS &&
             (w->flavor != MPI_WIN_FLAVOR_CREATE || remora_ucx_register(data, data_len, &net->data_reg) == MPI_SUCCESS);
    PMPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_LAND, w->comm);
    if (!ok) {
        free(all);
        return remora_err(MPI_ERR_NO_MEM, "UCX could not register the window's memory");
    }
    remora_ucx_exchange_rkeys(w->comm, &net->seg_reg, &net->seg_rkeys);
    if (w->flavor == MPI_WIN_FLAVOR_CREATE)
        remora_ucx_exchange_rkeys(w->comm, &net->data_reg, &net->data_rkeys);

    for (int r = 0; r < n; r++) {
        struct remora_ucx_target *t = &net->targets[r];
        t->world_rank = all[r].world_rank;
        t->ctrl_rkey = &net->seg_rkeys[r];
        t->ctrl_addr = all[r].ctrl;
        t->data_addr = all[r].data;
        t->dyn_addr = all[r].dyn;
        /* data: in the segment (allocate flavours), the user's memory (create);
         * dynamic windows find a region's key per access (dynamic.c) */
        t->data_rkey = w->flavor == MPI_WIN_FLAVOR_CREATE ? &net->data_rkeys[r]
                       : w->flavor == MPI_WIN_FLAVOR_DYNAMIC ? NULL : &net->seg_rkeys[r];
        struct remora_peer *p = &w->peers[r];
        p->net = t;
        if (p->kind == REMORA_PEER_UCX)
            p->base = (char *)(uintptr_t)(w->flavor == MPI_WIN_FLAVOR_DYNAMIC ? 0 : all[r].data);
    }
    free(all);
    return MPI_SUCCESS;
}

void remora_win_net_free(struct remora_win *w)
{
    struct remora_win_net *net = w->net;
    if (!net)
        return;
    remora_ucx_rkeys_free(net->seg_rkeys, w->comm_size);
    remora_ucx_rkeys_free(net->data_rkeys, w->comm_size);
    remora_ucx_deregister(&net->seg_reg);
    remora_ucx_deregister(&net->data_reg);
    free(net->targets);
    free(net);
    w->net = NULL;
}
