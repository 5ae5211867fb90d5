/* Active-target synchronisation between groups: post / start / complete / wait.
 *
 * Counters, all cumulative over the window's life (never reset, so no reset
 * can race with an early message):
 *   ctrl[o].pscw_post[t]   at origin o: how many times target t posted to o
 *   starts_toward          in o's state of t: how many times o started toward t
 *   ctrl[t].pscw_complete  at target t: completions received from any origin
 *   completions_expected   local to t: sum of the group sizes of t's posts
 * Invariants:
 *   P1  start(k-th toward t) returns only when pscw_post[t] >= k: t's k-th post
 *       happened, so t's window is exposed for exactly this epoch.  An early
 *       post for epoch k+1 raises the counter to k+1 and is kept for the next
 *       start; it is never taken for epoch k.
 *   P2  complete adds 1 to each target's pscw_complete only once the data it
 *       sent there is complete there, so wait's counter implies the data is
 *       there: it flushes first, or, where the transport delivers in order
 *       (Remora's messages over UCX's software RMA), the add travels behind
 *       the data (remora_flush_post).
 *   P3  t cannot receive completions for its next exposure before it posts
 *       again (an origin's next start toward t waits for that post), so
 *       pscw_complete never runs ahead of completions_expected.
 * Messages: post k remote atomics, start none (local spin), complete k,
 * wait/test none: O(k) for a group of k.  Neither post's nor complete's is
 * waited for: over the network an epoch costs their one-way trips (and a
 * round trip when the epoch's gets must come back first). */
#include <stdlib.h>

#include "core/ctrl.h"
#include "core/spin.h"
#include "core/status.h"
#include "core/sync.h"

/* The window ranks of `group`'s members. */
static int group_to_window(struct remora_win *w, MPI_Group group, int **ranks_out, int *n_out)
{
    if (group == MPI_GROUP_NULL)
        return remora_err(MPI_ERR_GROUP, "MPI_GROUP_NULL");
    int n;
    if (PMPI_Group_size(group, &n) != MPI_SUCCESS)
        return remora_err(MPI_ERR_GROUP, "invalid group");
    if (w->group == MPI_GROUP_NULL)
        PMPI_Comm_group(w->comm, &w->group);
    int *in = malloc(sizeof(int) * (size_t)(n + 1)), *out = malloc(sizeof(int) * (size_t)(n + 1));
    if (!in || !out) {
        free(in);
        free(out);
        return remora_err(MPI_ERR_NO_MEM, "group of %d", n);
    }
    for (int i = 0; i < n; i++)
        in[i] = i;
    PMPI_Group_translate_ranks(group, n, in, w->group, out);
    free(in);
    for (int i = 0; i < n; i++)
        if (out[i] == MPI_UNDEFINED) {
            free(out);
            return remora_err(MPI_ERR_GROUP, "group member %d is not in the window's group", i);
        }
    *ranks_out = out;
    *n_out = n;
    return MPI_SUCCESS;
}

static int check_assert(int assert, int allowed)
{
    if (assert & ~allowed)
        return remora_err(MPI_ERR_ASSERT, "assert %#x has bits not allowed here (%#x)", assert, allowed);
    return MPI_SUCCESS;
}

/* An active-target epoch may start: no passive epoch; an idle fence epoch is closed. */
static int active_may_start(struct remora_win *w)
{
    if (w->lock.all_held || remora_locks_held(w))
        return remora_err(MPI_ERR_RMA_SYNC, "the window is in a passive-target (lock) epoch");
    if (w->fence.open) {
        w->fence.open = 0;
        atomic_store_explicit(&w->access_all, 0, memory_order_relaxed);
    }
    remora_count_epoch(w);
    return MPI_SUCCESS;
}

int remora_post(struct remora_win *w, MPI_Group group, int assert)
{
    int rc = check_assert(assert, MPI_MODE_NOCHECK | MPI_MODE_NOSTORE | MPI_MODE_NOPUT);
    int *ranks = NULL, n = 0;
    if (rc == MPI_SUCCESS)
        rc = group_to_window(w, group, &ranks, &n);
    if (rc != MPI_SUCCESS)
        return rc;
    remora_sync_begin(w);
    rc = active_may_start(w);
    if (rc == MPI_SUCCESS && w->pscw.post_open)
        rc = remora_err(MPI_ERR_RMA_SYNC, "an exposure epoch (MPI_Win_post) is already open");
    if (rc != MPI_SUCCESS) {
        remora_sync_end(w);
        free(ranks);
        return rc;
    }
    w->pscw.post_open = 1;
    w->pscw.completions_expected += (uint64_t)n;
    remora_sync_end(w);
    /* Notified outside sync_lock: another thread's synchronisation call need
     * not wait for our remote atomics.  Our local stores to the window happen
     * before any origin's access. */
    atomic_thread_fence(memory_order_release);
    remora_status_t st = REMORA_OK;
    for (int i = 0; i < n && !(assert & MPI_MODE_NOCHECK) && remora_ok(st); i++)
        st = remora_ctrl_release(w, ranks[i], REMORA_CTRL_PSCW_POST(w->rank), 1);
    free(ranks);
    return remora_status_err(st, "notifying the group of MPI_Win_post");
}

int remora_start(struct remora_win *w, MPI_Group group, int assert)
{
    int rc = check_assert(assert, MPI_MODE_NOCHECK);
    int *ranks = NULL, n = 0;
    if (rc == MPI_SUCCESS)
        rc = group_to_window(w, group, &ranks, &n);
    for (int i = 0; i < n && rc == MPI_SUCCESS; i++) /* every target's state, before the epoch opens */
        if (!remora_rank(w, ranks[i]))
            rc = remora_err(MPI_ERR_NO_MEM, "MPI_Win_start toward %d ranks", n);
    if (rc != MPI_SUCCESS) {
        free(ranks);
        return rc;
    }
    remora_sync_begin(w);
    rc = active_may_start(w);
    if (rc == MPI_SUCCESS && w->pscw.start_group)
        rc = remora_err(MPI_ERR_RMA_SYNC, "an access epoch (MPI_Win_start) is already open");
    if (rc == MPI_SUCCESS) {
        w->pscw.start_group = ranks;
        if (remora_locks_held(w)) { /* a lock that raced us, read after start_group (lock.c, E1) */
            w->pscw.start_group = NULL;
            rc = remora_err(MPI_ERR_RMA_SYNC, "the window is in a passive-target (lock) epoch");
        } else
            w->pscw.start_n = n;
    }
    remora_sync_end(w);
    if (rc != MPI_SUCCESS) {
        free(ranks);
        return rc;
    }

    for (int i = 0; i < n; i++) {
        int t = ranks[i];
        struct remora_rank_state *s = remora_rank_known(w, t);
        if (!(assert & MPI_MODE_NOCHECK)) {
            uint64_t k = ++s->starts_toward;
            REMORA_WAIT_UNTIL(remora_ctrl_bell(w, w->rank),
                              atomic_load_explicit(&w->mem.ctrl->pscw_post[t], memory_order_acquire) >= k);
        }
        atomic_store_explicit(&s->peer.access, REMORA_ACCESS_PSCW, memory_order_relaxed);
    }
    return MPI_SUCCESS;
}

/* Target's count of completions gains 1 once this process's operations
 * toward it are complete there (P2), and their results here: by a flush
 * then an add, or, where the transport keeps them in order, by an add that
 * travels behind them (remora_flush_post).  The add is not waited for. */
static remora_status_t tell_complete(struct remora_win *w, int target)
{
    const struct remora_reach *x = &remora_rank_known(w, target)->reach; /* made by start */
    if (!remora_mapped(&x->ctrl, 0) && w->flavor != MPI_WIN_FLAVOR_DYNAMIC && x->data.tp == x->ctrl.tp &&
        x->amo.tp == x->ctrl.tp)
        return remora_flush_post(&x->ctrl, REMORA_CTRL_PSCW_COMPLETE, 1);
    remora_status_t st = remora_flush_target(w, target),
                    st2 = remora_ctrl_release(w, target, REMORA_CTRL_PSCW_COMPLETE, 1);
    return !remora_ok(st) ? st : st2;
}

int remora_complete(struct remora_win *w)
{
    remora_sync_begin(w);
    int *ranks = w->pscw.start_group, n = w->pscw.start_n;
    if (!ranks) {
        remora_sync_end(w);
        return remora_err(MPI_ERR_RMA_SYNC, "MPI_Win_complete without MPI_Win_start");
    }
    w->pscw.start_group = NULL;
    w->pscw.start_n = 0;
    remora_sync_end(w);

    for (int i = 0; i < n; i++)
        atomic_store_explicit(&remora_rank_known(w, ranks[i])->peer.access, 0, memory_order_relaxed); /* made by start */
    /* every target is told even if a flush failed: it must not wait forever */
    remora_status_t st = REMORA_OK;
    for (int i = 0; i < n; i++) {
        remora_status_t s = tell_complete(w, ranks[i]);
        st = !remora_ok(st) ? st : s;
    }
    free(ranks);
    return remora_status_err(st, "MPI_Win_complete");
}

/* Whether every origin of the current exposure epoch completed; closes it if so. */
static int exposure_done(struct remora_win *w)
{
    uint64_t got = atomic_load_explicit(&w->mem.ctrl->pscw_complete, memory_order_acquire);
    if (got < w->pscw.completions_expected)
        return 0;
    w->pscw.post_open = 0;
    return 1;
}

int remora_wait(struct remora_win *w)
{
    remora_sync_begin(w);
    int open = w->pscw.post_open;
    remora_sync_end(w);
    if (!open)
        return remora_err(MPI_ERR_RMA_SYNC, "MPI_Win_wait without MPI_Win_post");
    REMORA_WAIT_UNTIL(remora_ctrl_bell(w, w->rank),
                      atomic_load_explicit(&w->mem.ctrl->pscw_complete, memory_order_acquire) >=
                          w->pscw.completions_expected);
    remora_sync_begin(w);
    exposure_done(w);
    remora_sync_end(w);
    return MPI_SUCCESS;
}

int remora_test(struct remora_win *w, int *flag)
{
    remora_sync_begin(w);
    if (!w->pscw.post_open) {
        remora_sync_end(w);
        return remora_err(MPI_ERR_RMA_SYNC, "MPI_Win_test without MPI_Win_post");
    }
    remora_progress();
    *flag = exposure_done(w);
    remora_sync_end(w);
    return MPI_SUCCESS;
}
