/* How every process reaches every rank of a window: registration of the
 * window's memory, the exchange of keys, and each rank's rmems (see
 * struct remora_reach) and fast-path fields.
 *
 * The window embeds its part (struct remora_win.mem), so core/win.h includes
 * this header and this header does not include it: callers include
 * core/win.h. */
#ifndef REMORA_CORE_WIN_REACH_H
#define REMORA_CORE_WIN_REACH_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "runtime/segment.h"
#include "transport/transport.h"

struct remora_win;
struct remora_ctrl;

/* The window's memory on our node and how its ranks are reached (struct
 * remora_win.mem).  The segment and its layout are set once at creation
 * (win.c lays it out); the rest is win_reach.c's. */
struct remora_win_mem {
    struct remora_segment seg;      /* node segment: header, control blocks, region tables, data */
    struct remora_ctrl *ctrl;       /* mine, in seg                                              */
    size_t ctrl_stride;             /* bytes from one control block to the next                  */
    /* Ranks are made on first use (remora_rank_state), their places computed:
     * rank k's control block at ctrl_start + k * ctrl_stride of the segment,
     * region table at dyn_start + k * dyn_bytes, data at data_start + k * data_stride. */
    int lazy_ranks;
    size_t ctrl_start, dyn_start, dyn_bytes, data_start, data_stride;
    pthread_mutex_t ranks_lock;     /* serialises making ranks                                   */
    struct remora_mem_reg seg_reg, data_reg; /* ours: the segment, the user memory (create)      */
    struct remora_rmem *keys;       /* every rank's unpacked keys (none with lazy_ranks)          */
    int nkeys;
};

/* Where a rank's words lie in its group's segment (the same in every
 * mapping), and what else we learn of it at creation. */
struct remora_win_place {
    int k, leader;      /* its position in its segment group, the group's first rank */
    size_t ctrl, dyn, data;
    size_t seg_size;
    int node_rank;      /* k if its group is ours, else -1 */
    int world_rank;
    uint64_t size;
    uint32_t disp_unit;
};

/* Collective: registers our memory (the segment when the window spans nodes;
 * the user's memory for MPI_Win_create), exchanges keys, and makes every
 * rank's state (w->ranks), or only ours with w->mem.lazy_ranks (pl unused).
 * MPI_SUCCESS or an error class, the same everywhere. */
int remora_win_reach_build(struct remora_win *w, const struct remora_win_place *pl, void *user_base);
/* Local: releases the keys, our registrations and the ranks' state. */
void remora_win_reach_free(struct remora_win *w);

#endif
