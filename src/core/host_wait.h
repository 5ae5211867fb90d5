/* Waiting for the host MPI's requests while this process stays reachable.
 *
 * A wait on host requests tests them in a loop and, between two tests:
 * - serves Remora's network requests toward this process (a target that
 *   waits here completes its origins' puts, gets and atomics; without this,
 *   an origin that sends only after its flush completed would wait for the
 *   progress thread, and with no progress thread for ever);
 * - on a node with more of our processes than cores, yields the core (as
 *   Open MPI's mpi_yield_when_idle does; MPICH's waits spin, and with 4 ranks
 *   on 2 cores a rank waiting in its barrier kept the core from one still on
 *   its way there: a fence took milliseconds);
 * - once the wait lasted REMORA_SPIN_US (1 ms by default) with no network
 *   peers to serve, naps between tests, as Remora's own waits sleep after
 *   that budget: a thread of this process, or another process, may need the
 *   core.  With a host MPI_Barrier spinning in the target while its origin's
 *   two threads put 1 MiB each (rmamt bandwidth, 2 ranks on 2 cores), the
 *   threads shared one core: 2.9-3.5 GB/s, as with one thread; napping,
 *   4.1-6.1 GB/s.
 * The host's blocking calls wait here under a host without a progress hook
 * (mpi/host_waits.c), and so do the engine's own waits on host messages
 * (the fence's barrier across nodes, core/fence.c). */
#ifndef REMORA_CORE_HOST_WAIT_H
#define REMORA_CORE_HOST_WAIT_H

#include <mpi.h>

#include "core/spin.h"

/* A wait in progress (zero-initialised): its spin budget, and whether it is spent. */
struct remora_host_wait {
    struct remora_wait spin;
    int napping;
};

/* Between two tests of wait w. */
void remora_host_wait_between(struct remora_host_wait *w);

/* Until the host's test (an expression giving an MPI error code) fails or
 * `done` holds, remora_host_wait_between in between; the test's code. */
#define REMORA_HOST_WAIT_UNTIL(rc, test_call, done)                                                     \
    do {                                                                                                \
        struct remora_host_wait hw_ = {0};                                                              \
        while (((rc) = (test_call)) == MPI_SUCCESS && !(done))                                          \
            remora_host_wait_between(&hw_);                                                             \
    } while (0)

#endif
