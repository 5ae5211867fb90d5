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
 * threads at once on different targets.  Last, a window of
 * MPI_Win_allocate_shared on each node, whose lock_all epochs read the
 * writers with loads, not RMA calls: the exclusion must hold for them too.
 *   lock_mix [--threads T] [--iters N] [--win KINDS] */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>

#include "mtest.h"

enum { READERS, WRITERS, COUNTERS };

static int nthreads = 1;
static long iters = 60;
static pthread_mutex_t *target_turn; /* a process locks a target from one thread at a time */

/* The window of a pass: its ranks, each rank's counters' displacement, and
 * where they are mapped here (NULL: reached by RMA calls only).  Programs may
 * load and store their own window memory, and other ranks' memory that
 * MPI_Win_shared_query gives them (MPI-4: of any window but a dynamic one). */
static struct {
    MPI_Win win;
    int rank, size;
    const MPI_Aint *origin;
    long **mapped;
    int shared; /* MPI_Win_allocate_shared: the counters change by the CPU's atomics too */
} w;

static MPI_Aint counter(int target, int which) { return w.origin[target] + (MPI_Aint)sizeof(long) * which; }

static long fop(int target, int which, long add)
{
    long old = -1;
    MTEST_MPI(MPI_Fetch_and_op(&add, &old, MPI_LONG, target, counter(target, which), add ? MPI_SUM : MPI_NO_OP,
                               w.win));
    MTEST_MPI(MPI_Win_flush(target, w.win));
    return old;
}

/* Counters as epochs change and read them: where mapped, read by loads (and
 * in a shared window changed by the CPU's atomics), which no RMA call sees. */
static void bump(int target, int which, long add)
{
    if (!w.shared) {
        fop(target, which, add);
        return;
    }
    __atomic_fetch_add(&w.mapped[target][which], add, __ATOMIC_SEQ_CST);
    MTEST_MPI(MPI_Win_sync(w.win));
}

static long peek(int target, int which)
{
    if (!w.mapped[target])
        return fop(target, which, 0);
    MTEST_MPI(MPI_Win_sync(w.win));
    return __atomic_load_n(&w.mapped[target][which], __ATOMIC_SEQ_CST);
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
    bump(target, mine, 1);
    linger(it);
    long writers = peek(target, WRITERS), readers = peek(target, READERS);
    if (exclusive) {
        MTEST_CHECK(writers == 1, "exclusive lock on %d: %ld writers inside", target, writers);
        MTEST_CHECK(readers == 0, "exclusive lock on %d: %ld readers inside", target, readers);
    } else {
        MTEST_CHECK(writers == 0, "shared lock on %d: %ld writers inside", target, writers);
    }
    bump(target, mine, -1);
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
    if (r->lock_all) { /* every thread reaches every target, in different orders */
        for (int k = 0; k < w.size; k++) {
            int target = (w.rank + k + t) % w.size;
            long writers = peek(target, WRITERS); /* first: by a load where mapped, before any RMA call on it */
            bump(target, READERS, 1);
            linger(r->it + k);
            writers += peek(target, WRITERS);
            bump(target, READERS, -1);
            MTEST_CHECK(writers == 0, "lock_all, thread %d: a writer is inside target %d", t, target);
        }
        return;
    }
    int target = (int)((w.rank * 7 + r->it * 3 + t) % w.size);
    locked_epoch(target, (r->it + t + w.rank) % 3 != 0, r->it);
}

/* The rounds on window w, then the counters at the end. */
static void rounds(void)
{
    for (long it = 0; it < iters; it++) {
        /* ranks enter lock_all in different rounds, so every kind of epoch meets every other */
        struct round r = {it, (it + w.rank) % 4 == 0};
        if (r.lock_all)
            MTEST_MPI(MPI_Win_lock_all(0, w.win));
        mtest_run_threads(nthreads, worker, &r);
        if (r.lock_all)
            MTEST_MPI(MPI_Win_unlock_all(w.win));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MTEST_MPI(MPI_Win_lock(MPI_LOCK_SHARED, w.rank, 0, w.win));
    long counters[COUNTERS];
    MTEST_MPI(MPI_Get(counters, COUNTERS, MPI_LONG, w.rank, counter(w.rank, 0), COUNTERS, MPI_LONG, w.win));
    MTEST_MPI(MPI_Win_unlock(w.rank, w.win));
    MTEST_EQ(counters[READERS], 0, "readers left at the end");
    MTEST_EQ(counters[WRITERS], 0, "writers left at the end");
}

static void run(mtest_win_kind kind)
{
    mtest_set_context("%s, %d thread(s)", mtest_win_kind_name(kind), nthreads);
    mtest_win mw;
    mtest_win_open(&mw, kind, sizeof(long) * COUNTERS, MPI_INFO_NULL, MPI_COMM_WORLD);
    w.win = mw.win;
    w.rank = mtest.rank;
    w.size = mtest.size;
    w.origin = mw.origin;
    w.shared = 0;
    w.mapped = calloc((size_t)w.size, sizeof *w.mapped);
    MPI_Win_set_errhandler(w.win, MPI_ERRORS_RETURN); /* a host may not map peers' memory here */
    for (int r = 0; r < w.size && kind != MTEST_WIN_DYNAMIC; r++) {
        MPI_Aint bytes;
        int unit;
        if (MPI_Win_shared_query(w.win, r, &bytes, &unit, (void *)&w.mapped[r]) != MPI_SUCCESS || !bytes)
            w.mapped[r] = NULL;
    }
    w.mapped[w.rank] = (long *)mw.base;
    rounds();
    free(w.mapped);
    mtest_win_close(&mw);
}

/* MPI_Win_allocate_shared on each node's processes. */
static void run_shared(void)
{
    MPI_Comm node;
    MTEST_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    MPI_Comm_rank(node, &w.rank);
    MPI_Comm_size(node, &w.size);
    mtest_set_context("shared window of %d processes, %d thread(s)", w.size, nthreads);
    long *mine;
    MTEST_MPI(MPI_Win_allocate_shared(sizeof(long) * COUNTERS, 1, MPI_INFO_NULL, node, &mine, &w.win));
    mine[READERS] = mine[WRITERS] = 0;
    MPI_Aint *origin = calloc((size_t)w.size, sizeof *origin);
    w.mapped = calloc((size_t)w.size, sizeof *w.mapped);
    for (int r = 0; r < w.size; r++) {
        MPI_Aint bytes;
        int unit;
        MTEST_MPI(MPI_Win_shared_query(w.win, r, &bytes, &unit, (void *)&w.mapped[r]));
    }
    w.origin = origin;
    w.shared = 1;
    MPI_Barrier(node);
    rounds();
    MTEST_MPI(MPI_Win_free(&w.win));
    free(origin);
    free(w.mapped);
    MPI_Comm_free(&node);
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
    run_shared();
    free(target_turn);
    return mtest_finish();
}
