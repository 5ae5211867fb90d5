/* Completion inside passive-target epochs: flush, flush_local and their _all
 * forms, and MPI_Win_sync.  On shared memory a store is complete at the target
 * once ordered by a fence; CMA transfers are complete when the call returns. */
#include "core/sync.h"
#include "transport/dispatch.h"

int remora_flush(struct remora_win *w, int target, int local_only)
{
    (void)local_only; /* no transport here buffers data: local and remote completion coincide */
    if (target == REMORA_ALL_TARGETS) {
        if (!(atomic_load_explicit(&w->access_all, memory_order_relaxed) & REMORA_ALL_LOCK_ALL) && !w->locks_held)
            return remora_err(MPI_ERR_RMA_SYNC, "flush_all outside a passive-target epoch");
        return remora_tp_flush(w->amo_domain, NULL) ? MPI_ERR_OTHER : MPI_SUCCESS;
    }
    if ((unsigned)target >= (unsigned)w->comm_size) /* MPI_PROC_NULL is negative */
        return target == MPI_PROC_NULL ? MPI_SUCCESS : remora_check_target(w, target);
    const struct remora_peer *p = &w->peers[target];
    if (!(atomic_load_explicit(&w->access_all, memory_order_relaxed) & REMORA_ALL_LOCK_ALL) &&
        !(atomic_load_explicit(&p->access, memory_order_relaxed) & (REMORA_ACCESS_LOCK_SHARED | REMORA_ACCESS_LOCK_EXCL)))
        return remora_err(MPI_ERR_RMA_SYNC, "flush of target %d outside a passive-target epoch on it", target);
    return remora_tp_flush(w->amo_domain, p) ? MPI_ERR_OTHER : MPI_SUCCESS;
}

int remora_win_sync(struct remora_win *w)
{
    (void)w;
    atomic_thread_fence(memory_order_seq_cst);
    return MPI_SUCCESS;
}
