/* MPI_Win_fence: complete what this process issued, then a barrier.
 *
 * F1  Every RMA call issued before fence(i) by any process is complete at its
 *     target before any process returns from fence(i): each flushes, then all
 *     meet at the barrier (whose atomics order the flushed stores).
 * F2  A fence that does not carry NOSUCCEED opens an access epoch to every
 *     target; one with NOSUCCEED closes it, and RMA calls fail until the next
 *     synchronisation opens an epoch.
 * The barrier is a counter in the node segment on one node (a sense-reversing
 * generation counter), the host's MPI_Barrier otherwise (O(log p)). */
#include "core/spin.h"
#include "core/status.h"
#include "core/sync.h"
#include "core/win.h"

#define FENCE_ASSERTS (MPI_MODE_NOSTORE | MPI_MODE_NOPUT | MPI_MODE_NOPRECEDE | MPI_MODE_NOSUCCEED)

static void node_barrier(struct remora_win *w)
{
    struct remora_node_header *h = w->fence.node_hdr;
    uint64_t gen = atomic_load_explicit(&h->barrier_generation, memory_order_acquire);
    if (atomic_fetch_add(&h->barrier_arrived, 1) == (uint64_t)w->node_size - 1) {
        atomic_store_explicit(&h->barrier_arrived, 0, memory_order_relaxed);
        atomic_fetch_add(&h->barrier_generation, 1); /* releases everyone, and the reset above */
        remora_doorbell_ring(&h->barrier_bell);
        return;
    }
    REMORA_WAIT_UNTIL(&h->barrier_bell, atomic_load_explicit(&h->barrier_generation, memory_order_acquire) != gen);
}

void remora_win_barrier(struct remora_win *w)
{
    if (w->node_all && w->node_size > 1)
        node_barrier(w);
    else if (w->comm_size > 1)
        PMPI_Barrier(w->comm);
}

int remora_fence(struct remora_win *w, int assert)
{
    if (assert & ~FENCE_ASSERTS)
        return remora_err(MPI_ERR_ASSERT, "assert %#x has bits not allowed in MPI_Win_fence", assert);
    remora_sync_begin(w);
    int rc = MPI_SUCCESS;
    if (w->lock.all_held || w->lock.targets_held)
        rc = remora_err(MPI_ERR_RMA_SYNC, "MPI_Win_fence inside a passive-target (lock) epoch");
    else if (w->pscw.start_group || w->pscw.post_open)
        rc = remora_err(MPI_ERR_RMA_SYNC, "MPI_Win_fence inside a PSCW epoch");
    remora_sync_end(w);
    if (rc != MPI_SUCCESS)
        return rc;

    remora_status_t st = assert & MPI_MODE_NOPRECEDE ? REMORA_OK : remora_flush_all();
    /* With nothing before and nothing after, there is nothing to order. */
    if ((assert & (MPI_MODE_NOPRECEDE | MPI_MODE_NOSUCCEED)) != (MPI_MODE_NOPRECEDE | MPI_MODE_NOSUCCEED))
        remora_win_barrier(w);

    remora_sync_begin(w);
    w->fence.open = !(assert & MPI_MODE_NOSUCCEED);
    if (w->fence.open && w->lock.targets_held) { /* a lock that raced us, read after fence.open (lock.c, E1) */
        w->fence.open = 0;
        rc = remora_err(MPI_ERR_RMA_SYNC, "MPI_Win_fence inside a passive-target (lock) epoch");
    }
    remora_count_epoch(w);
    atomic_store_explicit(&w->access_all, w->fence.open ? REMORA_ALL_FENCE : 0, memory_order_relaxed);
    remora_sync_end(w);
    return rc != MPI_SUCCESS ? rc : remora_status_err(st, "completing the operations before the fence");
}
