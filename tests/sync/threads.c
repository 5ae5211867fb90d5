/* MPI_THREAD_MULTIPLE: T threads per rank put, get and flush at once inside
 * one lock_all epoch, each on its own slice of every target, with data
 * verification after every flush; then the same under exclusive locks taken
 * by the threads in turn (one epoch per thread and target, as the standard
 * allows: a thread's lock/unlock pair is its own), and fences called by one
 * thread while the others wait: every thread puts its slice to a target
 * and gets another target's, thread 0 fences, and every thread checks what
 * its puts left at this rank and what its get brought.
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

/* Fences from one thread: between two fences all threads put (each its own
 * slice at one target) and get (a slice put in the epoch before, at another
 * target); thread 0 alone calls MPI_Win_fence while the others wait at a
 * pthread barrier on each side of it.  After the fence a thread checks, in
 * this rank's memory, the slice its counterpart thread of the origin that
 * targeted this rank put, and what its own get brought. */
static pthread_barrier_t fence_turn;

/* Slices of two banks after the first SLICE * nthreads * size longs: round
 * it puts into bank it % 2 and gets from the other, so no get reads what a
 * put of the same epoch writes (with one rank, origin and target are one). */
static MPI_Aint fence_slice(int origin, int thread, long it)
{
    return slice(origin, thread) + (MPI_Aint)(1 + it % 2) * SLICE * nthreads * mtest.size;
}

static long fence_rounds(void) { return iters / 5 + 2; }
static int fence_count(long it, int t) { return 1 + (int)((it * 5 + t * 3) % SLICE); }
/* the origin whose round-it puts land at rank, and the target rank gets from */
static int fence_put_target(int rank, long it) { return (int)((rank + 1 + it) % mtest.size); }
static int fence_origin(int rank, long it) { return (int)(((rank - 1 - it) % mtest.size + mtest.size) % mtest.size); }
static int fence_get_target(int rank, long it) { return (int)((rank + 2 + it) % mtest.size); }
static long fence_value(int origin, int t, long it, int k) { return value(origin, t, it, k) | (1L << 62); }

static void fence_by_one(int t)
{
    pthread_barrier_wait(&fence_turn);
    if (t == 0)
        MTEST_MPI(MPI_Win_fence(0, win));
    pthread_barrier_wait(&fence_turn);
}

static void fence_worker(int t, void *arg)
{
    (void)arg;
    int rank = mtest.rank;
    long out[SLICE], back[SLICE];
    for (long it = 0; it < fence_rounds(); it++) {
        int n = fence_count(it, t);
        for (int k = 0; k < n; k++)
            out[k] = fence_value(rank, t, it, k);
        MTEST_MPI(MPI_Put(out, n, MPI_LONG, fence_put_target(rank, it), fence_slice(rank, t, it), n, MPI_LONG, win));
        /* what the rank we get from had put, in the round before, at its target */
        int from = fence_get_target(rank, it), m = it ? fence_count(it - 1, t) : 0;
        int source = fence_origin(from, it - 1);
        memset(back, 0, sizeof back);
        if (m)
            MTEST_MPI(MPI_Get(back, m, MPI_LONG, from, fence_slice(source, t, it - 1), m, MPI_LONG, win));
        fence_by_one(t);
        int origin = fence_origin(rank, it);
        const long *mine = base + fence_slice(origin, t, it);
        for (int k = 0; k < n; k++)
            if (mine[k] != fence_value(origin, t, it, k)) {
                MTEST_CHECK(0, "thread %d fence round %ld: element %d from rank %d is %lx, put %lx", t, it, k, origin,
                            mine[k], fence_value(origin, t, it, k));
                break;
            }
        for (int k = 0; k < m; k++)
            if (back[k] != fence_value(source, t, it - 1, k)) {
                MTEST_CHECK(0, "thread %d fence round %ld: got element %d of rank %d's slice at rank %d: %lx, put %lx",
                            t, it, k, source, from, back[k], fence_value(source, t, it - 1, k));
                break;
            }
        /* a second fence, around an epoch of local loads only */
        fence_by_one(t);
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
    MPI_Aint bytes = (MPI_Aint)sizeof(long) * (3 * SLICE * nthreads * size + SLICE);
    MTEST_MPI(MPI_Win_allocate(bytes, sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
    memset(base, 0, (size_t)bytes);
    MPI_Barrier(MPI_COMM_WORLD);

    mtest_set_context("%d threads: put/get/flush in lock_all", nthreads);
    MTEST_MPI(MPI_Win_lock_all(0, win));
    mtest_run_threads(nthreads, passive_worker, NULL);
    MTEST_MPI(MPI_Win_unlock_all(win));
    MPI_Barrier(MPI_COMM_WORLD);

    mtest_set_context("%d threads: put/get between fences of one thread", nthreads);
    pthread_barrier_init(&fence_turn, NULL, (unsigned)nthreads);
    MTEST_MPI(MPI_Win_fence(MPI_MODE_NOPRECEDE, win));
    mtest_run_threads(nthreads, fence_worker, NULL);
    MTEST_MPI(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    pthread_barrier_destroy(&fence_turn);
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
