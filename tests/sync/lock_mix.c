/* Exclusive locks, shared locks and lock_all on the same targets at once:
 * the exclusion the standard promises, counted.  Every target keeps two
 * counters: readers (origins inside a shared-lock or lock_all epoch that have
 * reached it) and writers (origins inside an exclusive-lock epoch on it).
 * Every epoch adds 1 to its counter at the target, flushes, reads the
 * counters, subtracts 1 and closes:
 *   - a writer must read writers == 1 and readers == 0;
 *   - a reader must read writers == 0.
 * Processes mix the three kinds of epoch, on every window kind.  With T
 * threads, a lock_all epoch has every thread reach every target at once (the
 * first access to each), and exclusive and shared locks come from several
 * threads at once on different targets.
 *   lock_mix [--threads T] [--iters N] [--win KINDS] */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>

#include "mtest.h"

enum { READERS, WRITERS, COUNTERS };

static int nthreads = 1;
static long iters = 60;
static mtest_win w;
static pthread_mutex_t *target_turn; /* a process locks a target from one thread at a time */

static MPI_Aint counter(int target, int which) { return mtest_disp(&w, target, sizeof(long) * which); }

static long fop(int target, int which, long add)
{
    long old = -1;
    MTEST_MPI(MPI_Fetch_and_op(&add, &old, MPI_LONG, target, counter(target, which), add ? MPI_SUM : MPI_NO_OP,
                               w.win));
    MTEST_MPI(MPI_Win_flush(target, w.win));
    return old;
}

/* Gives another origin time to come in, were exclusion broken: on an
 * oversubscribed node it must be scheduled meanwhile. */
static void linger(long it)
{
    if (it % 2)
        sched_yield();
    for (volatile long i = 0; i < 300 * (it % 7); i++)
        ;
}

static void locked_epoch(int target, int exclusive, long it)
{
    pthread_mutex_lock(&target_turn[target]);
    MTEST_MPI(MPI_Win_lock(exclusive ? MPI_LOCK_EXCLUSIVE : MPI_LOCK_SHARED, target, 0, w.win));
    int mine = exclusive ? WRITERS : READERS;
    fop(target, mine, 1);
    linger(it);
    long writers = fop(target, WRITERS, 0), readers = fop(target, READERS, 0);
    if (exclusive) {
        MTEST_CHECK(writers == 1, "exclusive lock on %d: %ld writers inside", target, writers);
        MTEST_CHECK(readers == 0, "exclusive lock on %d: %ld readers inside", target, readers);
    } else {
        MTEST_CHECK(writers == 0, "shared lock on %d: %ld writers inside", target, writers);
    }
    fop(target, mine, -1);
    MTEST_MPI(MPI_Win_unlock(target, w.win));
    pthread_mutex_unlock(&target_turn[target]);
}

struct round {
    long it;
    int lock_all; /* the round is one lock_all epoch (opened and closed by the main thread) */
};

static void worker(int t, void *arg)
{
    const struct round *r = arg;
    int size = mtest.size;
    if (r->lock_all) { /* every thread reaches every target, in different orders */
        for (int k = 0; k < size; k++) {
            int target = (mtest.rank + k + t) % size;
            fop(target, READERS, 1);
            linger(r->it + k);
            MTEST_CHECK(fop(target, WRITERS, 0) == 0, "lock_all, thread %d: a writer is inside target %d", t,
                        target);
            fop(target, READERS, -1);
        }
        return;
    }
    int target = (int)((mtest.rank * 7 + r->it * 3 + t) % size);
    locked_epoch(target, (r->it + t + mtest.rank) % 3 != 0, r->it);
}

static void run(mtest_win_kind kind)
{
    mtest_set_context("%s, %d thread(s)", mtest_win_kind_name(kind), nthreads);
    mtest_win_open(&w, kind, sizeof(long) * COUNTERS, MPI_INFO_NULL, MPI_COMM_WORLD);
    for (long it = 0; it < iters; it++) {
        /* ranks enter lock_all in different rounds, so every kind of epoch meets every other */
        struct round r = {it, (it + mtest.rank) % 4 == 0};
        if (r.lock_all)
            MTEST_MPI(MPI_Win_lock_all(0, w.win));
        mtest_run_threads(nthreads, worker, &r);
        if (r.lock_all)
            MTEST_MPI(MPI_Win_unlock_all(w.win));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MTEST_MPI(MPI_Win_lock(MPI_LOCK_SHARED, mtest.rank, 0, w.win));
    long counters[COUNTERS];
    MTEST_MPI(MPI_Get(counters, COUNTERS, MPI_LONG, mtest.rank, counter(mtest.rank, 0), COUNTERS, MPI_LONG, w.win));
    MTEST_MPI(MPI_Win_unlock(mtest.rank, w.win));
    MTEST_EQ(counters[READERS], 0, "readers left at the end");
    MTEST_EQ(counters[WRITERS], 0, "writers left at the end");
    mtest_win_close(&w);
}

int main(int argc, char **argv)
{
    mtest_init(&argc, &argv, MPI_THREAD_MULTIPLE);
    nthreads = (int)mtest_arg_long(argc, argv, "--threads", nthreads);
    iters = mtest_arg_long(argc, argv, "--iters", iters);
    target_turn = malloc(sizeof *target_turn * (size_t)mtest.size);
    for (int r = 0; r < mtest.size; r++)
        pthread_mutex_init(&target_turn[r], NULL);
    mtest_win_kind kinds[MTEST_NKINDS];
    int nkinds = mtest_win_kinds(argc, argv, kinds);
    for (int k = 0; k < nkinds; k++)
        run(kinds[k]);
    free(target_turn);
    return mtest_finish();
}
