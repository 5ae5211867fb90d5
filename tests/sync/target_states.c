/* Passive-target operations complete whatever the target does meanwhile.
 *
 * Rank 0 (the origin) puts, gets, accumulates, fetches-and-ops, compares-and-
 * swaps and takes an exclusive lock at the last rank (the target, another
 * node in the UCX modes, where the target's CPU must carry these out), and
 * only then lets the target go on: the target waits for that in one of the
 * states below, so the origin's operations can complete only if whoever
 * serves the target's memory does so from that state.
 *   recv probe wait waitall waitany waitsome testloop sendrecv
 *              the target waits in a point-to-point call (or polls MPI_Test)
 *              for a message the origin sends after its operations;
 *   barrier allreduce bcast
 *              every rank waits in a collective the origin joins after them;
 *   compute    the target computes, making no MPI call, until the origin's
 *              last put lands in its memory (at most --limit seconds: then
 *              nothing progressed the operations, and the test fails).
 * Run with REMORA_PROGRESS_THREAD=off for the states in MPI, only the
 * serving from inside the host MPI can complete them (a hand-off to the
 * progress thread cannot hide a missing one); compute needs the thread.
 *
 *   target_states [--state S,...] [--rounds N] [--limit SECONDS] */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

enum { SLOT_PUT, SLOT_ACC, SLOT_FOP, SLOT_CAS, SLOT_LOCK, SLOT_FLAG, NSLOTS };

static const char *const STATES[] = {"recv",    "probe",   "wait",     "waitall", "waitany", "waitsome",
                                     "testloop", "sendrecv", "barrier", "allreduce", "bcast", "compute"};
#define NSTATES (sizeof STATES / sizeof *STATES)

static int origin_ops(MPI_Win win, int target, long round)
{
    long v = 1000 + round, got = -1, one = 1, old = -1, expect = round - 1, swapped = -1;
    MTEST_MPI(MPI_Win_lock_all(0, win));
    MTEST_MPI(MPI_Put(&v, 1, MPI_LONG, target, SLOT_PUT, 1, MPI_LONG, win));
    MTEST_MPI(MPI_Win_flush(target, win));
    MTEST_MPI(MPI_Get(&got, 1, MPI_LONG, target, SLOT_PUT, 1, MPI_LONG, win));
    MTEST_MPI(MPI_Accumulate(&one, 1, MPI_LONG, target, SLOT_ACC, 1, MPI_LONG, MPI_SUM, win));
    MTEST_MPI(MPI_Win_flush(target, win));
    MTEST_EQ(got, v, "get after put and flush");
    MTEST_MPI(MPI_Fetch_and_op(&one, &old, MPI_LONG, target, SLOT_FOP, MPI_SUM, win));
    MTEST_MPI(MPI_Compare_and_swap(&round, &expect, &swapped, MPI_LONG, target, SLOT_CAS, win));
    MTEST_MPI(MPI_Win_unlock_all(win));
    MTEST_EQ(old, round - 1, "fetch_and_op's old value");
    MTEST_EQ(swapped, round - 1, "compare_and_swap's old value");
    MTEST_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, target, 0, win));
    MTEST_MPI(MPI_Put(&round, 1, MPI_LONG, target, SLOT_LOCK, 1, MPI_LONG, win));
    MTEST_MPI(MPI_Win_unlock(target, win));
    return 0;
}

/* The target, in state s, until the origin lets it go. */
static void target_waits(const char *s, MPI_Win win, long *mem, long round, int limit)
{
    long got = 0;
    int flag = 0, index, count, indices[2];
    MPI_Request r[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    MPI_Status st[2];
    if (!strcmp(s, "recv")) {
        MTEST_MPI(MPI_Recv(&got, 1, MPI_LONG, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    } else if (!strcmp(s, "probe")) {
        MTEST_MPI(MPI_Probe(0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        MTEST_MPI(MPI_Recv(&got, 1, MPI_LONG, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    } else if (!strcmp(s, "wait") || !strcmp(s, "waitall") || !strcmp(s, "waitany") || !strcmp(s, "waitsome") ||
               !strcmp(s, "testloop")) {
        MTEST_MPI(MPI_Irecv(&got, 1, MPI_LONG, 0, 1, MPI_COMM_WORLD, &r[0]));
        if (!strcmp(s, "wait"))
            MTEST_MPI(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
        else if (!strcmp(s, "waitall"))
            MTEST_MPI(MPI_Waitall(2, r, st));
        else if (!strcmp(s, "waitany"))
            MTEST_MPI(MPI_Waitany(2, r, &index, MPI_STATUS_IGNORE));
        else if (!strcmp(s, "waitsome"))
            MTEST_MPI(MPI_Waitsome(2, r, &count, indices, st));
        else
            while (!flag)
                MTEST_MPI(MPI_Test(&r[0], &flag, MPI_STATUS_IGNORE));
    } else if (!strcmp(s, "sendrecv")) {
        MTEST_MPI(MPI_Sendrecv(&round, 1, MPI_LONG, 0, 2, &got, 1, MPI_LONG, 0, 1, MPI_COMM_WORLD,
                               MPI_STATUS_IGNORE));
    } else if (!strcmp(s, "compute")) {
        double t0 = MPI_Wtime(), x = 1;
        while (atomic_load_explicit((_Atomic long *)&mem[SLOT_FLAG], memory_order_acquire) < round &&
               MPI_Wtime() - t0 < limit)
            for (int k = 0; k < 1000; k++)
                x = x * 1.0000001 + 1e-9;
        MTEST_CHECK(x > 0 && mem[SLOT_FLAG] >= round,
                    "round %ld: the target computed %d s and the origin's operations never reached it", round, limit);
    }
    (void)win;
}

/* The origin lets the target go: by the message or collective its state waits for. */
static void origin_releases(const char *s, MPI_Win win, int target, long round)
{
    long got;
    if (!strcmp(s, "sendrecv")) {
        MTEST_MPI(MPI_Sendrecv(&round, 1, MPI_LONG, target, 1, &got, 1, MPI_LONG, target, 2, MPI_COMM_WORLD,
                               MPI_STATUS_IGNORE));
    } else if (!strcmp(s, "compute")) {
        MTEST_MPI(MPI_Win_lock(MPI_LOCK_SHARED, target, 0, win));
        MTEST_MPI(MPI_Put(&round, 1, MPI_LONG, target, SLOT_FLAG, 1, MPI_LONG, win));
        MTEST_MPI(MPI_Win_unlock(target, win));
    } else if (strcmp(s, "barrier") && strcmp(s, "allreduce") && strcmp(s, "bcast")) {
        MTEST_MPI(MPI_Send(&round, 1, MPI_LONG, target, 1, MPI_COMM_WORLD));
    }
}

/* The collective states: every rank, the origin after its operations. */
static void collective(const char *s, MPI_Comm comm, long round)
{
    long x = round, sum = 0;
    if (!strcmp(s, "barrier"))
        MTEST_MPI(MPI_Barrier(comm));
    else if (!strcmp(s, "allreduce"))
        MTEST_MPI(MPI_Allreduce(&x, &sum, 1, MPI_LONG, MPI_SUM, comm));
    else if (!strcmp(s, "bcast"))
        MTEST_MPI(MPI_Bcast(&x, 1, MPI_LONG, 0, comm));
    else
        return;
    MTEST_EQ(x, round, "the collective's data");
}

int main(int argc, char **argv)
{
    mtest_init(&argc, &argv, MPI_THREAD_SINGLE);
    const char *states = mtest_arg_str(argc, argv, "--state", NULL);
    long rounds = mtest_arg_long(argc, argv, "--rounds", 3);
    int limit = (int)mtest_arg_long(argc, argv, "--limit", 120);
    MTEST_ASSERT(mtest.size >= 2, "needs 2 ranks");
    int target = mtest.size - 1;
    long *mem;
    MPI_Win win;
    MPI_Comm comm;
    MTEST_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    MTEST_MPI(MPI_Win_allocate(NSLOTS * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    for (size_t k = 0; k < NSTATES; k++) {
        const char *s = STATES[k];
        if (states && !mtest_listed(states, s))
            continue;
        mtest_set_context("state %s", s);
        MTEST_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, mtest.rank, 0, win));
        memset(mem, 0, NSLOTS * sizeof(long));
        MTEST_MPI(MPI_Win_unlock(mtest.rank, win));
        MTEST_MPI(MPI_Barrier(MPI_COMM_WORLD));
        for (long round = 1; round <= rounds; round++) {
            if (mtest.rank == 0) {
                origin_ops(win, target, round);
                origin_releases(s, win, target, round);
            } else if (mtest.rank == target) {
                target_waits(s, win, mem, round, limit);
            }
            collective(s, comm, round);
        }
        MTEST_MPI(MPI_Barrier(MPI_COMM_WORLD));
        if (mtest.rank == target) {
            MTEST_MPI(MPI_Win_lock(MPI_LOCK_SHARED, target, 0, win));
            MTEST_EQ(mem[SLOT_PUT], 1000 + rounds, "the last put");
            MTEST_EQ(mem[SLOT_ACC], rounds, "the accumulates' sum");
            MTEST_EQ(mem[SLOT_FOP], rounds, "the fetch_and_ops' sum");
            MTEST_EQ(mem[SLOT_CAS], rounds, "the compare_and_swaps' last value");
            MTEST_EQ(mem[SLOT_LOCK], rounds, "the put under the exclusive lock");
            MTEST_MPI(MPI_Win_unlock(target, win));
        }
        MTEST_MPI(MPI_Barrier(MPI_COMM_WORLD));
    }
    MTEST_MPI(MPI_Win_free(&win));
    MTEST_MPI(MPI_Comm_free(&comm));
    return mtest_finish();
}
