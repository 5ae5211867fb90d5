/* The synchronisation calls of MPI RMA, and each protocol's part of the
 * window (struct remora_win.lock, .pscw, .fence).  Each call returns
 * MPI_SUCCESS or an MPI error class (with remora_err's detail); the front end
 * raises it.
 *
 * The window embeds the protocols' parts, so core/win.h includes this header
 * and this header does not include it: callers include core/win.h. */
#ifndef REMORA_CORE_SYNC_H
#define REMORA_CORE_SYNC_H

#include <mpi.h>
#include <stdatomic.h>
#include <stdint.h>

#include "transport/transport.h"

struct remora_win;
struct remora_rank_state;
struct remora_node_header;

/* Each protocol's epoch state changes under the window's sync_lock
 * (remora_sync_begin), never held while waiting, except per-target locks'
 * (remora_rank_state.lock_state), which MPI_Win_lock and MPI_Win_unlock
 * change by atomics; the other protocols read it (remora_locks_held) to
 * refuse an epoch that would overlap.  The fields a lock reads without
 * sync_lock (lock.all_held, pscw.start_group, fence.open) are _Atomic: the
 * synchronisation calls that exclude locks set them (seq_cst) before they
 * call remora_locks_held (lock.c, E1). */

/* passive target (lock.c) */
struct remora_win_lock {
    _Atomic int all_held;          /* lock_all: 1 held, |2 with MPI_MODE_NOCHECK, |4 being closed */
    /* every target this process has locked on the window, listed once at
     * its first lock (remora_rank_state.locked_next): where
     * remora_locks_held looks (lock.c, E1) */
    struct remora_rank_state *_Atomic locked;
    /* REMORA_ALL_LOCK_ALL_NODE: the targets reached in this epoch
     * (remora_rank_state.lock_all_next) */
    struct remora_rank_state *_Atomic all_reached;
    /* MPI_Win_shared_query gave the program another rank's memory (win.c): a
     * lock_all on the node reaches every rank at once, not at its first RMA
     * access */
    _Atomic int peers_handed_out;
};

int remora_lock(struct remora_win *w, int lock_type, int target, int assert);
int remora_unlock(struct remora_win *w, int target);
int remora_lock_all(struct remora_win *w, int assert);
/* How many per-target locks this process holds on w, or is acquiring or
 * releasing (lock.c, E1): a walk of the targets it has ever locked. */
int remora_locks_held(const struct remora_win *w);
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
/* PSCW (pscw.c); the counters it pairs with are in remora_ctrl and
 * remora_rank_state.starts_toward. */
struct remora_win_pscw {
    int *_Atomic start_group;      /* access epoch: its targets (window ranks), NULL when none */
    int start_n;
    int post_open;                 /* exposure epoch: posted, not yet closed by wait or test    */
    uint64_t completions_expected; /* cumulative group sizes of our posts                      */
};

/* Fence (fence.c): its epoch, and the node barrier of fence and MPI_Win_free
 * (remora_win_barrier). */
struct remora_win_fence {
    _Atomic int open;                    /* a fence opened an epoch that no NOSUCCEED closed */
    struct remora_node_header *node_hdr; /* the barrier's words: the head of our node segment */
    /* a window across nodes: the first rank of each node's group (window ranks, ascending) */
    int *leaders;
    int n_leaders;
    int leader_index;                    /* ours among them (node leaders only) */
};

int remora_fence(struct remora_win *w, int assert);
int remora_post(struct remora_win *w, MPI_Group group, int assert);
int remora_start(struct remora_win *w, MPI_Group group, int assert);
int remora_complete(struct remora_win *w);
int remora_wait(struct remora_win *w);
int remora_test(struct remora_win *w, int *flag);

/* The barrier of fence and MPI_Win_free: shared memory on a node, host
 * messages between nodes. */
void remora_win_barrier(struct remora_win *w);
struct remora_win_place;
/* A window across nodes: note its node leaders from its layout pl (one entry
 * per rank); MPI_ERR_NO_MEM, or MPI_SUCCESS.  Local. */
int remora_win_barrier_place(struct remora_win *w, const struct remora_win_place *pl);

#endif
