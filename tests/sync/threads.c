/* MPI_THREAD_MULTIPLE: T threads per rank put, get and flush at once inside
 * one lock_all epoch, each on its own slice of every target, with data
 * verification after every flush; then the same under exclusive locks taken
 * by the threads in turn (one epoch per thread and target, as the standard
 * allows: a thread's lock/unlock pair is its own), and fences called by one
 * thread while the others wait.
 *   threads [--threads T] [--iters N] */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

#define SLICE 64 /* longs per (thread, origin) slice */

static int nthreads = 4;
static long iters = 50;
static MPI_Win win;
static long *base;

static long value(int origin, int thread, long it, int k) { return ((long)origin << 40) | ((long)thread << 28) | (it << 8) | k; }

/* slice of (origin, thread) in every target's window */
static MPI_Aint slice(int origin, int thread) { return ((MPI_Aint)origin * nthreads + thread) * SLICE; }

static void passive_worker(int t, void *arg)
{
    (void)arg;
    int rank = mtest.rank, size = mtest.size;
    long out[SLICE], back[SLICE];
    for (long it = 0; it < iters; it++) {
        int target = (int)((rank + 1 + it + t) % size);
        int n = 1 + (int)((it * 7 + t) % SLICE);
        for (int k = 0; k < n; k++)
            out[k] = value(rank, t, it, k);
        MTEST_MPI(MPI_Put(out, n, MPI_LONG, target, slice(rank, t), n, MPI_LONG, win));
        MTEST_MPI(MPI_Win_flush(target, win));
        memset(back, 0, sizeof back);
        MTEST_MPI(MPI_Get(back, n, MPI_LONG, target, slice(rank, t), n, MPI_LONG, win));
        if (it % 2)
            MTEST_MPI(MPI_Win_flush_local(target, win));
        else
            MTEST_MPI(MPI_Win_flush_all(win));
        for (int k = 0; k < n; k++)
            if (back[k] != out[k]) {
                MTEST_CHECK(0, "thread %d iter %ld target %d: element %d is %lx, put %lx", t, it, target, k, back[k],
                            out[k]);
                break;
            }
    }
}

/* Exclusive locks from threads: each thread adds 1 to the counter of a
 * target with get+put under an exclusive lock: exact only if the locks
 * exclude each other across processes.  Epochs belong to the process, and
 * locking a target it has locked already is erroneous, so the threads of a
 * process take turns per target (a local mutex); different targets are
 * locked by different threads at once. */
static pthread_mutex_t *target_turn;

static void lock_worker(int t, void *arg)
{
    (void)arg;
    int size = mtest.size;
    for (long it = 0; it < iters / 5 + 1; it++) {
        int target = (int)((it + t) % size);
        long v;
        pthread_mutex_lock(&target_turn[target]);
        MTEST_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, target, 0, win));
        MTEST_MPI(MPI_Get(&v, 1, MPI_LONG, target, 0, 1, MPI_LONG, win));
        MTEST_MPI(MPI_Win_flush(target, win));
        v++;
        MTEST_MPI(MPI_Put(&v, 1, MPI_LONG, target, 0, 1, MPI_LONG, win));
        MTEST_MPI(MPI_Win_unlock(target, win));
        pthread_mutex_unlock(&target_turn[target]);
    }
}

int main(int argc, char **argv)
{
    mtest_init(&argc, &argv, MPI_THREAD_MULTIPLE);
    nthreads = (int)mtest_arg_long(argc, argv, "--threads", nthreads);
    iters = mtest_arg_long(argc, argv, "--iters", iters);
    int size = mtest.size;
    MPI_Aint bytes = (MPI_Aint)sizeof(long) * (SLICE * nthreads * size + SLICE);
    MTEST_MPI(MPI_Win_allocate(bytes, sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
    memset(base, 0, (size_t)bytes);
    MPI_Barrier(MPI_COMM_WORLD);

    mtest_set_context("%d threads: put/get/flush in lock_all", nthreads);
    MTEST_MPI(MPI_Win_lock_all(0, win));
    mtest_run_threads(nthreads, passive_worker, NULL);
    MTEST_MPI(MPI_Win_unlock_all(win));
    MPI_Barrier(MPI_COMM_WORLD);

    /* the lock counter reuses element 0 (the slices' data is checked already) */
    mtest_set_context("%d threads: exclusive locks", nthreads);
    MTEST_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, mtest.rank, 0, win));
    base[0] = 0;
    MTEST_MPI(MPI_Win_unlock(mtest.rank, win));
    MPI_Barrier(MPI_COMM_WORLD);
    target_turn = malloc(sizeof *target_turn * (size_t)size);
    for (int r = 0; r < size; r++)
        pthread_mutex_init(&target_turn[r], NULL);
    mtest_run_threads(nthreads, lock_worker, NULL);
    free(target_turn);
    MPI_Barrier(MPI_COMM_WORLD);
    long per_rank = 0;
    for (int r = 0; r < size; r++)
        for (int t = 0; t < nthreads; t++)
            for (long it = 0; it < iters / 5 + 1; it++)
                per_rank += (it + t) % size == mtest.rank;
    MTEST_MPI(MPI_Win_lock(MPI_LOCK_SHARED, mtest.rank, 0, win));
    MTEST_EQ(base[0], per_rank, "counter incremented under exclusive locks by every thread");
    MTEST_MPI(MPI_Win_unlock(mtest.rank, win));
    MTEST_MPI(MPI_Win_free(&win));
    return mtest_finish();
}
