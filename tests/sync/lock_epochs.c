/* The epoch bookkeeping of per-target locks (lock.c), which lock and unlock
 * keep without the window's sync_lock.  Remora only: the races are erroneous
 * programs, whose outcome the standard leaves open; Remora promises each
 * racing call either succeeds or fails with MPI_ERR_RMA_SYNC, never both
 * succeed.
 *  1. In one thread, every error of MPI_Win_lock(EXCLUSIVE) and
 *     MPI_Win_unlock, each with its class (the fast path serves these calls).
 *  2. T threads per rank at once, each round one of: an exclusive lock of
 *     a target (thread t's is rank + 1 + t, and every fifth round everybody's
 *     is rank + 1, so that threads of one process collide on a target), a
 *     lock_all epoch, an access epoch of MPI_Win_start on the empty group.
 *     Every call either succeeds or returns MPI_ERR_RMA_SYNC (MPI_ERRORS_RETURN);
 *     of one process's epochs that succeed, a lock_all or a start never
 *     overlaps another epoch, and a target is held by one thread at a time
 *     (counted in the process); exclusive locks of all processes on a target
 *     exclude each other: inside one an origin reads the target's counter,
 *     lingers and writes it back plus 1 (with RMA calls, not atomics), and
 *     at the end each counter is the number of exclusive epochs on it.
 *  3. First locks: on a new window each round, T threads at once: the
 *     even ones a lock_all epoch, the odd ones an exclusive lock of one
 *     target, which none of them has locked before on that window (lock.c
 *     lists a target at its first lock, where lock_all looks); the same
 *     checks as in 2.
 *   lock_epochs [--threads T] [--iters N] [--win KINDS] */
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "mtest.h"

static int nthreads = 4;
static long iters = 60;
static mtest_win mw;
static int rank, size;

/* this process's epochs that succeeded and are not over yet */
static atomic_int locks_in, lock_alls_in, starts_in, *holders; /* holders[target]: threads holding it */
static atomic_long *successes;                                    /* [target]: exclusive epochs on it   */
static atomic_long lock_all_successes, start_successes;

static void expect_class(int rc, int cls, const char *what)
{
    int got = rc;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &got);
    MTEST_CHECK(got == cls, "%s: expected %s, got %s", what, mtest_class_name(cls), mtest_class_name(got));
}

/* Part 1: the errors of exclusive locks, with the other epochs. */
static void errors(void)
{
    MPI_Win win = mw.win;
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    long x = 0;
    expect_class(MPI_Win_lock(12345, right, 0, win), MPI_ERR_LOCKTYPE, "lock type 12345");
    expect_class(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 1 << 20, win), MPI_ERR_ASSERT, "assert 1 << 20");
    expect_class(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, size, 0, win), MPI_ERR_RANK, "lock of rank size");
    expect_class(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, -5, 0, win), MPI_ERR_RANK, "lock of rank -5");
    expect_class(MPI_Win_unlock(size, win), MPI_ERR_RANK, "unlock of rank size");
    expect_class(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, MPI_PROC_NULL, 0, win), MPI_SUCCESS, "lock of MPI_PROC_NULL");
    expect_class(MPI_Win_unlock(MPI_PROC_NULL, win), MPI_SUCCESS, "unlock of MPI_PROC_NULL");
    expect_class(MPI_Win_unlock(right, win), MPI_ERR_RMA_SYNC, "unlock of a target never locked");

    for (int nocheck = 0; nocheck < 2; nocheck++) { /* each rank alone locks its right: NOCHECK holds */
        int a = nocheck ? MPI_MODE_NOCHECK : 0;
        MTEST_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, a, win));
        expect_class(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, a, win), MPI_ERR_RMA_SYNC, "second exclusive lock");
        expect_class(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win), MPI_ERR_RMA_SYNC, "shared lock of a locked target");
        expect_class(MPI_Win_lock_all(0, win), MPI_ERR_RMA_SYNC, "lock_all with a lock held");
        expect_class(MPI_Win_start(MPI_GROUP_EMPTY, 0, win), MPI_ERR_RMA_SYNC, "MPI_Win_start with a lock held");
        expect_class(MPI_Win_fence(0, win), MPI_ERR_RMA_SYNC, "fence with a lock held");
        MTEST_MPI(MPI_Put(&x, 1, MPI_LONG, right, mtest_disp(&mw, right, 0), 1, MPI_LONG, win));
        MTEST_MPI(MPI_Win_unlock(right, win));
        expect_class(MPI_Win_unlock(right, win), MPI_ERR_RMA_SYNC, "second unlock");
        MPI_Barrier(MPI_COMM_WORLD);
    }

    MTEST_MPI(MPI_Win_lock_all(0, win));
    expect_class(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win), MPI_ERR_RMA_SYNC, "exclusive lock in lock_all");
    expect_class(MPI_Win_unlock(right, win), MPI_ERR_RMA_SYNC, "unlock in lock_all");
    MTEST_MPI(MPI_Win_unlock_all(win));

    MPI_Group world, to_left, to_right;
    MPI_Win_get_group(win, &world);
    MPI_Group_incl(world, 1, &left, &to_left);
    MPI_Group_incl(world, 1, &right, &to_right);
    MTEST_MPI(MPI_Win_post(to_left, 0, win));
    MTEST_MPI(MPI_Win_start(to_right, 0, win));
    expect_class(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win), MPI_ERR_RMA_SYNC, "exclusive lock in PSCW");
    MTEST_MPI(MPI_Win_complete(win));
    MTEST_MPI(MPI_Win_wait(win));
    MPI_Group_free(&to_left);
    MPI_Group_free(&to_right);
    MPI_Group_free(&world);

    /* an open fence epoch in which nothing happened is closed by a lock */
    MTEST_MPI(MPI_Win_fence(0, win));
    MTEST_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win));
    MTEST_MPI(MPI_Win_unlock(right, win));
    MPI_Barrier(MPI_COMM_WORLD);
}

/* Gives another thread or origin time to come in, were exclusion broken. */
static void linger(long it)
{
    if (it % 2)
        sched_yield();
    for (volatile long i = 0; i < 200 * (it % 5); i++)
        ;
}

/* A call that may race: MPI_SUCCESS, or MPI_ERR_RMA_SYNC (returns 0). */
static int raced(int rc, const char *what)
{
    if (rc == MPI_SUCCESS)
        return 1;
    expect_class(rc, MPI_ERR_RMA_SYNC, what);
    return 0;
}

static void exclusive_epoch(int target, long it)
{
    MPI_Win win = mw.win;
    if (!raced(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, target, 0, win), "exclusive lock"))
        return;
    int others = atomic_fetch_add(&holders[target], 1);
    atomic_fetch_add(&locks_in, 1);
    MTEST_CHECK(others == 0, "thread got target %d that %d other thread(s) of the process hold", target, others);
    MTEST_CHECK(!atomic_load(&lock_alls_in), "an exclusive lock of %d inside a lock_all epoch", target);
    MTEST_CHECK(!atomic_load(&starts_in), "an exclusive lock of %d inside an MPI_Win_start epoch", target);
    long v = -1;
    MPI_Aint disp = mtest_disp(&mw, target, 0);
    MTEST_MPI(MPI_Get(&v, 1, MPI_LONG, target, disp, 1, MPI_LONG, win));
    MTEST_MPI(MPI_Win_flush(target, win));
    linger(it);
    v++;
    MTEST_MPI(MPI_Put(&v, 1, MPI_LONG, target, disp, 1, MPI_LONG, win));
    MTEST_MPI(MPI_Win_flush(target, win));
    atomic_fetch_add(&successes[target], 1);
    atomic_fetch_sub(&locks_in, 1);
    atomic_fetch_sub(&holders[target], 1);
    MTEST_MPI(MPI_Win_unlock(target, win));
}

static void lock_all_epoch(int target, long it)
{
    if (!raced(MPI_Win_lock_all(0, mw.win), "lock_all"))
        return;
    int others = atomic_fetch_add(&lock_alls_in, 1);
    MTEST_CHECK(others == 0, "lock_all succeeded in %d other thread(s) at once", others);
    MTEST_CHECK(!atomic_load(&locks_in), "a lock_all epoch with %d exclusive lock(s) held", atomic_load(&locks_in));
    MTEST_CHECK(!atomic_load(&starts_in), "a lock_all epoch inside an MPI_Win_start epoch");
    long v;
    MTEST_MPI(MPI_Get(&v, 1, MPI_LONG, target, mtest_disp(&mw, target, 0), 1, MPI_LONG, mw.win));
    MTEST_MPI(MPI_Win_flush(target, mw.win));
    linger(it);
    atomic_fetch_add(&lock_all_successes, 1);
    atomic_fetch_sub(&lock_alls_in, 1);
    MTEST_MPI(MPI_Win_unlock_all(mw.win));
}

static void start_epoch(long it)
{
    if (!raced(MPI_Win_start(MPI_GROUP_EMPTY, 0, mw.win), "MPI_Win_start"))
        return;
    int others = atomic_fetch_add(&starts_in, 1);
    MTEST_CHECK(others == 0, "MPI_Win_start succeeded in %d other thread(s) at once", others);
    MTEST_CHECK(!atomic_load(&locks_in), "an MPI_Win_start epoch with %d exclusive lock(s) held",
                atomic_load(&locks_in));
    MTEST_CHECK(!atomic_load(&lock_alls_in), "an MPI_Win_start epoch inside a lock_all epoch");
    linger(it);
    atomic_fetch_add(&start_successes, 1);
    atomic_fetch_sub(&starts_in, 1);
    MTEST_MPI(MPI_Win_complete(mw.win));
}

static void worker(int t, void *arg)
{
    (void)arg;
    for (long it = 0; it < iters; it++) {
        int target = (rank + 1 + (it % 5 ? t : 0)) % size;
        switch ((t + it + rank) % 4) {
        case 0: lock_all_epoch(target, it); break;
        case 1: start_epoch(it); break;
        default: exclusive_epoch(target, it);
        }
    }
}

static void run(mtest_win_kind kind)
{
    mtest_set_context("%s, %d thread(s)", mtest_win_kind_name(kind), nthreads);
    mtest_win_open(&mw, kind, sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD);
    MPI_Win_set_errhandler(mw.win, MPI_ERRORS_RETURN);
    errors();
    for (int r = 0; r < size; r++)
        atomic_store(&successes[r], 0);
    atomic_store(&lock_all_successes, 0);
    atomic_store(&start_successes, 0);
    MPI_Barrier(MPI_COMM_WORLD);
    MTEST_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, mw.win)); /* the counter starts at 0 */
    MTEST_MPI(MPI_Put(&(long){0}, 1, MPI_LONG, rank, mtest_disp(&mw, rank, 0), 1, MPI_LONG, mw.win));
    MTEST_MPI(MPI_Win_unlock(rank, mw.win));
    MPI_Barrier(MPI_COMM_WORLD);

    mtest_run_threads(nthreads, worker, NULL);

    long mine[3] = {0, atomic_load(&lock_all_successes), atomic_load(&start_successes)}, all[3];
    long *on = calloc((size_t)size, sizeof *on), *on_all = calloc((size_t)size, sizeof *on_all);
    for (int r = 0; r < size; r++)
        mine[0] += on[r] = atomic_load(&successes[r]);
    MPI_Allreduce(on, on_all, size, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(mine, all, 3, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    long v = -1;
    MTEST_MPI(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, mw.win));
    MTEST_MPI(MPI_Get(&v, 1, MPI_LONG, rank, mtest_disp(&mw, rank, 0), 1, MPI_LONG, mw.win));
    MTEST_MPI(MPI_Win_unlock(rank, mw.win));
    MTEST_EQ(v, on_all[rank], "the counter of exclusive epochs on this rank");
    MTEST_CHECK(all[0] > 0 && all[1] > 0 && all[2] > 0, "some epoch of each kind succeeds: %ld locks, %ld lock_alls, %ld starts",
                all[0], all[1], all[2]);
    free(on);
    free(on_all);
    mtest_win_close(&mw);
}

static void first_lock_worker(int t, void *arg)
{
    long round = *(long *)arg;
    if (t % 2 == 0)
        lock_all_epoch((rank + 1) % size, round);
    else
        exclusive_epoch((rank + 1) % size, round);
}

static void first_locks(mtest_win_kind kind)
{
    mtest_set_context("%s, first locks, %d thread(s)", mtest_win_kind_name(kind), nthreads);
    for (long round = 0; round < iters; round++) {
        mtest_win_open(&mw, kind, sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD);
        MPI_Win_set_errhandler(mw.win, MPI_ERRORS_RETURN);
        MPI_Barrier(MPI_COMM_WORLD);
        mtest_run_threads(nthreads, first_lock_worker, &round);
        MPI_Barrier(MPI_COMM_WORLD);
        mtest_win_close(&mw);
    }
}

int main(int argc, char **argv)
{
    mtest_init(&argc, &argv, MPI_THREAD_MULTIPLE);
    nthreads = (int)mtest_arg_long(argc, argv, "--threads", nthreads);
    iters = mtest_arg_long(argc, argv, "--iters", iters);
    rank = mtest.rank;
    size = mtest.size;
    holders = calloc((size_t)size, sizeof *holders);
    successes = calloc((size_t)size, sizeof *successes);
    mtest_win_kind kinds[MTEST_NKINDS];
    int nkinds = mtest_win_kinds(argc, argv, kinds);
    for (int k = 0; k < nkinds; k++) {
        run(kinds[k]);
        first_locks(kinds[k]);
    }
    free(holders);
    free(successes);
    return mtest_finish();
}
