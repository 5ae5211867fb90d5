/* MPI_Win_fence: complete what this process issued, then a barrier.
 *
 * F1  Every RMA call issued before fence(i) by any process is complete at its
 *     target before any process returns from fence(i): each flushes, then all
 *     meet at the barrier (whose atomics order the flushed stores).
 * F2  A fence that does not carry NOSUCCEED opens an access epoch to every
 *     target; one with NOSUCCEED closes it, and RMA calls fail until the next
 *     synchronisation opens an epoch.
 * The barrier is a counter in the node segment on one node (a sense-reversing
 * generation counter); across nodes each node's ranks gather at their leader
 * that way, the leaders meet in a dissemination barrier of host messages
 * (O(log nodes)), and each leader releases its node. */
#include <stdlib.h>

#include "core/host_wait.h"
#include "core/spin.h"
#include "core/status.h"
#include "core/sync.h"
#include "core/win.h"
#include "core/win_reach.h"
#include "runtime/host_mpi.h"
#include "runtime/log.h"

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

/* Tags of the rounds of leaders_barrier on the window's private
 * communicator (which carries no other point-to-point messages). */
#define LEADERS_BARRIER_TAG 0x7e00

/* The node leaders meet: a dissemination barrier (ceil(log2 L) rounds; in
 * round k each leader signals the one 2^k after it and hears from the one
 * 2^k before it) of empty host messages, waited for as core/host_wait.h
 * says, serving the network meanwhile: a peer may still be flushing toward
 * us.  Measured across isolated nodes of 1 rank (rma_micro --target coll
 * fence), against a wait on the host's MPI_Ibarrier: 10.3-10.9 us against
 * 11.8-13.2 over MPICH (whose Ibarrier costs that), the same over Open MPI. */
static void leaders_barrier(struct remora_win *w)
{
    int n = w->fence.n_leaders, me = w->fence.leader_index;
    for (int d = 1, round = 0; d < n; d <<= 1, round++) {
        MPI_Request r[2];
        MPI_Status st[2];
        int from = w->fence.leaders[(me - d + n) % n], to = w->fence.leaders[(me + d) % n], flag = 0;
        int rc = REMORA_HOST(MPI_Irecv)(NULL, 0, MPI_BYTE, from, LEADERS_BARRIER_TAG + round, w->comm, &r[0]);
        if (rc == MPI_SUCCESS)
            rc = REMORA_HOST(MPI_Isend)(NULL, 0, MPI_BYTE, to, LEADERS_BARRIER_TAG + round, w->comm, &r[1]);
        if (rc == MPI_SUCCESS)
            REMORA_HOST_WAIT_UNTIL(rc, REMORA_HOST(MPI_Testall)(2, r, &flag, st), flag);
        if (rc != MPI_SUCCESS) /* as the host's MPI_Barrier under MPI_ERRORS_ARE_FATAL */
            remora_fatal("the fence's barrier between nodes failed in the host MPI (error code %d)", rc);
    }
}

/* Across nodes: the node's ranks gather at their leader (node rank 0), the
 * leaders meet, and each leader releases its node.  Across 2 isolated nodes
 * of 2 ranks: 15-35 us a fence, against 40-58 with the host's MPI_Barrier
 * on the window's communicator (both hosts; osc/ucx's fence 47-52). */
static void spanning_barrier(struct remora_win *w)
{
    struct remora_node_header *h = w->fence.node_hdr;
    uint64_t gen = atomic_load_explicit(&h->barrier_generation, memory_order_acquire);
    uint64_t arrived = atomic_fetch_add(&h->barrier_arrived, 1) + 1;
    if (w->node_rank != 0) {
        if (arrived == (uint64_t)w->node_size) /* the leader may sleep */
            remora_doorbell_ring(&h->barrier_bell);
        REMORA_WAIT_UNTIL(&h->barrier_bell, atomic_load_explicit(&h->barrier_generation, memory_order_acquire) != gen);
        return;
    }
    REMORA_WAIT_UNTIL(&h->barrier_bell, atomic_load_explicit(&h->barrier_arrived, memory_order_acquire) == (uint64_t)w->node_size);
    leaders_barrier(w);
    atomic_store_explicit(&h->barrier_arrived, 0, memory_order_relaxed);
    atomic_fetch_add(&h->barrier_generation, 1); /* releases the node, and the reset above */
    remora_doorbell_ring(&h->barrier_bell);
}

void remora_win_barrier(struct remora_win *w)
{
    if (w->node_all && w->node_size > 1)
        node_barrier(w);
    else if (!w->node_all)
        spanning_barrier(w);
}

int remora_win_barrier_place(struct remora_win *w, const struct remora_win_place *pl)
{
    int n = 0;
    for (int r = 0; r < w->comm_size; r++)
        n += pl[r].leader == r;
    if (!(w->fence.leaders = malloc((size_t)n * sizeof *w->fence.leaders)))
        return MPI_ERR_NO_MEM;
    w->fence.n_leaders = 0;
    w->fence.leader_index = -1;
    for (int r = 0; r < w->comm_size; r++)
        if (pl[r].leader == r) {
            if (r == w->rank)
                w->fence.leader_index = w->fence.n_leaders;
            w->fence.leaders[w->fence.n_leaders++] = r;
        }
    return MPI_SUCCESS;
}

int remora_fence(struct remora_win *w, int assert)
{
    if (assert & ~FENCE_ASSERTS)
        return remora_err(MPI_ERR_ASSERT, "assert %#x has bits not allowed in MPI_Win_fence", assert);
    remora_sync_begin(w);
    int rc = MPI_SUCCESS;
    if (w->lock.all_held || remora_locks_held(w))
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
    if (w->fence.open && remora_locks_held(w)) { /* a lock that raced us, read after fence.open (lock.c, E1) */
        w->fence.open = 0;
        rc = remora_err(MPI_ERR_RMA_SYNC, "MPI_Win_fence inside a passive-target (lock) epoch");
    }
    remora_count_epoch(w);
    atomic_store_explicit(&w->access_all, w->fence.open ? REMORA_ALL_FENCE : 0, memory_order_relaxed);
    remora_sync_end(w);
    return rc != MPI_SUCCESS ? rc : remora_status_err(st, "completing the operations before the fence");
}
