/* A window's network side: when it spans nodes, its memory is registered with
 * UCX and every process learns every other's remote keys and addresses. */
#ifndef REMORA_CORE_WIN_NET_H
#define REMORA_CORE_WIN_NET_H

#include "core/win.h"
#include "transport/ucx.h"

struct remora_win_net {
    struct remora_ucx_reg seg_reg, data_reg;     /* ours: segment, and user memory (create) */
    struct remora_ucx_rkey *seg_rkeys, *data_rkeys; /* everyone's, by window rank          */
    struct remora_ucx_target *targets;           /* peer.net of each rank                   */
};

/* Collective: registers our segment (and `data`, the user memory of
 * MPI_Win_create), exchanges keys and addresses, points every peer's net at
 * its target entry and gives peers on other nodes their remote base. */
int remora_win_net_create(struct remora_win *w, void *data, size_t data_len);
void remora_win_net_free(struct remora_win *w);

#endif
