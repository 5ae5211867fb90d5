/* How every process reaches every rank of a window: registration of the
 * window's memory, the exchange of keys, and each rank's rmems (see
 * struct remora_reach) and fast-path fields. */
#ifndef REMORA_CORE_WIN_REACH_H
#define REMORA_CORE_WIN_REACH_H

#include <stddef.h>

#include "core/win.h"

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
 * rank's state (w->ranks), or only ours with w->lazy_ranks (pl unused).
 * MPI_SUCCESS or an error class, the same everywhere. */
int remora_win_reach_build(struct remora_win *w, const struct remora_win_place *pl, void *user_base);
/* Local: releases the keys, our registrations and the ranks' state. */
void remora_win_reach_free(struct remora_win *w);

#endif
