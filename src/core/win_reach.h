/* How every process reaches every rank of a window: registration of the
 * window's memory, the exchange of keys, and each rank's rmems (see
 * struct remora_reach) and fast-path fields. */
#ifndef REMORA_CORE_WIN_REACH_H
#define REMORA_CORE_WIN_REACH_H

#include <stddef.h>

#include "core/win.h"

/* Where a rank's words lie in its group's segment (the same in every mapping). */
struct remora_win_place {
    int k, leader;      /* its position in its segment group, the group's first rank */
    size_t ctrl, dyn, data;
    size_t seg_size;
};

/* Collective: registers our memory (the segment when the window spans nodes;
 * the user's memory for MPI_Win_create), exchanges keys, and fills w->reach
 * and the peers' fast-path and accumulate fields.  MPI_SUCCESS or an error
 * class, the same everywhere. */
int remora_win_reach_build(struct remora_win *w, const struct remora_win_place *pl, void *user_base);
/* Local: releases the keys and our registrations. */
void remora_win_reach_free(struct remora_win *w);

#endif
