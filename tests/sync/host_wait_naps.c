/* A long wait inside a blocking MPI call gives its core up (mpi/host_waits.c).
 *
 * Under a host whose own waits spin for as long as they last (MPICH, Intel
 * MPI), Remora waits in the call's non-blocking form and, once the wait has
 * lasted REMORA_SPIN_US (1 ms by default) with no network peer to serve,
 * naps between tests: a thread of the program (an origin's second thread, a
 * computing one) or another process may need the core.  Rank 0 waits in
 * each call below while the last rank sleeps --delay-ms before it takes
 * part; rank 0's CPU time during the wait (its thread's, getrusage
 * RUSAGE_THREAD) must be under a quarter of the wait's length.  A spinning
 * wait uses all of it on a core of its own; a machine busy with other work
 * can only lower it (a test that then passes by luck, never one that fails
 * by it), and the naps use a few percent.
 *
 *   host_wait_naps [--delay-ms N] */
#define _GNU_SOURCE
#include <sys/resource.h>
#include <time.h>

#include "mtest.h"

static const char *const CALLS[] = {"barrier", "recv", "wait", "sendrecv", "allreduce"};
#define NCALLS (sizeof CALLS / sizeof *CALLS)

static double thread_cpu(void)
{
    struct rusage ru;
    getrusage(RUSAGE_THREAD, &ru);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec +
           ((double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_usec) * 1e-6;
}

/* Rank 0's side of call c, or the last rank's (peer: the other one). */
static void take_part(size_t c, int waiter, int peer)
{
    long v = 1, got = 0;
    MPI_Request r;
    switch (c) {
    case 0: MTEST_MPI(MPI_Barrier(MPI_COMM_WORLD)); break;
    case 1:
        if (waiter)
            MTEST_MPI(MPI_Recv(&got, 1, MPI_LONG, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        else
            MTEST_MPI(MPI_Send(&v, 1, MPI_LONG, peer, 1, MPI_COMM_WORLD));
        break;
    case 2:
        if (waiter) {
            MTEST_MPI(MPI_Irecv(&got, 1, MPI_LONG, peer, 2, MPI_COMM_WORLD, &r));
            MTEST_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
        } else {
            MTEST_MPI(MPI_Send(&v, 1, MPI_LONG, peer, 2, MPI_COMM_WORLD));
        }
        break;
    case 3: MTEST_MPI(MPI_Sendrecv(&v, 1, MPI_LONG, peer, 3, &got, 1, MPI_LONG, peer, 3, MPI_COMM_WORLD,
                                   MPI_STATUS_IGNORE)); break;
    default: MTEST_MPI(MPI_Allreduce(&v, &got, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD)); break;
    }
    if (waiter && c != 0 && c != 4)
        MTEST_EQ(got, 1, CALLS[c]);
}

int main(int argc, char **argv)
{
    mtest_init(&argc, &argv, MPI_THREAD_SINGLE);
    long delay_ms = mtest_arg_long(argc, argv, "--delay-ms", 400);
    int last = mtest.size - 1;
    for (size_t c = 0; c < NCALLS; c++) {
        mtest_set_context("%s", CALLS[c]);
        MTEST_MPI(MPI_Barrier(MPI_COMM_WORLD));
        if (mtest.rank == last) {
            nanosleep(&(struct timespec){delay_ms / 1000, (delay_ms % 1000) * 1000000}, NULL);
            take_part(c, 0, 0);
        } else if (mtest.rank == 0) {
            double t0 = MPI_Wtime(), c0 = thread_cpu();
            take_part(c, 1, last);
            double wall = MPI_Wtime() - t0, cpu = thread_cpu() - c0;
            MTEST_CHECK(wall >= delay_ms * 1e-3 * 0.9, "%s returned after %.3f s, before its peer took part", CALLS[c],
                        wall);
            MTEST_CHECK(cpu < wall / 4, "%s: %.3f s of CPU in a wait of %.3f s: the wait held its core", CALLS[c],
                        cpu, wall);
        } else if (c == 0 || c == 4) {
            take_part(c, 0, 0); /* the collectives: every rank */
        }
    }
    return mtest_finish();
}
