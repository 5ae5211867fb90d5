/* Completion inside passive-target epochs: flush, flush_local and their _all
 * forms, and MPI_Win_sync.  Local and remote completion coincide: no
 * transport returns from a put before its origin buffer may be reused. */
#include "core/status.h"
#include "core/sync.h"
#include "core/win.h"

remora_status_t remora_flush_target(struct remora_win *w, int target)
{
    const struct remora_rank_state *s = remora_rank_known(w, target);
    if (!s) /* never used: nothing to complete */
        return REMORA_OK;
    const struct remora_reach *x = &s->reach;
    if (w->flavor == MPI_WIN_FLAVOR_DYNAMIC) /* regions may use any transport toward it */
        return remora_flush_proc(s->world_rank);
    remora_status_t st = remora_flush(&x->data);
    if (remora_ok(st) && x->amo.tp != x->data.tp)
        st = remora_flush(&x->amo);
    return st;
}

/* Is a passive-target epoch (a lock on some target, or lock_all) open here? */
static int in_passive_epoch(const struct remora_win *w)
{
    return (atomic_load_explicit(&w->access_all, memory_order_relaxed) & REMORA_ALL_PASSIVE) || remora_locks_held(w);
}

int remora_flush_rma(struct remora_win *w, int target, int local_only)
{
    (void)local_only;
    if (target == REMORA_ALL_TARGETS) {
        if (!in_passive_epoch(w))
            return remora_err(MPI_ERR_RMA_SYNC, "flush_all outside a passive-target epoch");
        return remora_status_err(remora_flush_all(), "completing the window's operations");
    }
    if ((unsigned)target >= (unsigned)w->comm_size) /* MPI_PROC_NULL is negative */
        return target == MPI_PROC_NULL ? MPI_SUCCESS : remora_check_target(w, target);
    if (!remora_passive_toward(w, remora_rank_known(w, target)))
        return remora_err(MPI_ERR_RMA_SYNC, "flush of target %d outside a passive-target epoch on it", target);
    return remora_status_err(remora_flush_target(w, target), "completing the operations on target %d", target);
}

/* "All flush and sync functions can be called only within passive target
 * epochs" (MPI-4.1, 12.5.4). */
int remora_win_sync(struct remora_win *w)
{
    if (!in_passive_epoch(w))
        return remora_err(MPI_ERR_RMA_SYNC, "MPI_Win_sync outside a passive-target epoch");
    atomic_thread_fence(memory_order_seq_cst);
    return MPI_SUCCESS;
}
