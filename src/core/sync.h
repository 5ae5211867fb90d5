/* The synchronisation calls of MPI RMA.  Each returns MPI_SUCCESS or an MPI
 * error class (with remora_err's detail); the front end raises it. */
#ifndef REMORA_CORE_SYNC_H
#define REMORA_CORE_SYNC_H

#include "core/win.h"

/* passive target (lock.c) */
int remora_lock(struct remora_win *w, int lock_type, int target, int assert);
int remora_unlock(struct remora_win *w, int target);
int remora_lock_all(struct remora_win *w, int assert);
int remora_unlock_all(struct remora_win *w);
/* In a lock_all epoch on one node (REMORA_ALL_LOCK_ALL_NODE), before the first
 * access to target s: waits until no exclusive lock is held on it, then marks
 * it reached (REMORA_ACCESS_LOCK_ALL) until unlock_all. */
void remora_lock_all_reach(struct remora_win *w, struct remora_rank_state *s);

/* completion (flush.c): target REMORA_ALL_TARGETS means every target */
#define REMORA_ALL_TARGETS (-0x7fffffff - 1)
int remora_flush_rma(struct remora_win *w, int target, int local_only);
/* Remote completion of this process's operations on target: a transport status. */
remora_status_t remora_flush_target(struct remora_win *w, int target);
int remora_win_sync(struct remora_win *w);

/* active target (fence.c, pscw.c) */
int remora_fence(struct remora_win *w, int assert);
int remora_post(struct remora_win *w, MPI_Group group, int assert);
int remora_start(struct remora_win *w, MPI_Group group, int assert);
int remora_complete(struct remora_win *w);
int remora_wait(struct remora_win *w);
int remora_test(struct remora_win *w, int *flag);

/* The barrier of fence and MPI_Win_free: shared-memory when the window is on one node. */
void remora_win_barrier(struct remora_win *w);

#endif
