/* Every synchronization mode, each with the invariant it must keep:
 *  - fence with every assert and combinations: data put in an epoch is
 *    visible after the closing fence;
 *  - PSCW: ring and all-to-all groups, overlapping groups, MPI_Win_test
 *    polling, and early posts (a target posts epoch k+1 before its origins
 *    completed epoch k; an origin must not take that post for epoch k);
 *  - lock/unlock exclusive: mutual exclusion (get-increment-put of one
 *    counter by every rank, N times: the end value is exact); shared and
 *    exclusive lockers of one target all finish; MPI_MODE_NOCHECK; locks on
 *    several targets at once; lock_all/unlock_all;
 *  - flush, flush_all, flush_local, flush_local_all: data is at the target
 *    after the flush (checked by the target after a message);
 *  - MPI_Win_sync with load/store on a shared window. */
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

static long iters = 20;

static void test_fence(MPI_Win win, long *base)
{
    int rank = mtest.rank, size = mtest.size, right = (rank + 1) % size;
    /* Asserts true of the fence closing a put epoch (nothing stored locally
     * in it; the epoch after it only reads locally, no RMA at all). */
    static const int closing[] = {0,
                                  MPI_MODE_NOSTORE,
                                  MPI_MODE_NOPUT,
                                  MPI_MODE_NOSTORE | MPI_MODE_NOPUT,
                                  MPI_MODE_NOSUCCEED,
                                  MPI_MODE_NOSTORE | MPI_MODE_NOPUT | MPI_MODE_NOSUCCEED};
    MTEST_MPI(MPI_Win_fence(MPI_MODE_NOPRECEDE, win));
    for (long it = 0; it < iters; it++) {
        long v = it * 100 + rank;
        MTEST_MPI(MPI_Put(&v, 1, MPI_LONG, right, 0, 1, MPI_LONG, win));
        int a = closing[it % 6];
        MTEST_MPI(MPI_Win_fence(a, win));
        long want = it * 100 + (rank + size - 1) % size;
        MTEST_CHECK(base[0] == want, "fence epoch %ld (assert %d): %ld instead of %ld", it, a, base[0], want);
        /* closes the read-only epoch: no local stores in it; puts follow */
        MTEST_MPI(MPI_Win_fence(MPI_MODE_NOSTORE, win));
    }
    MTEST_MPI(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
}

/* Ring PSCW: each rank exposes to its left neighbour and accesses its right
 * one; with early posts the target posts the next epoch right after wait. */
static void test_pscw_ring(MPI_Win win, long *base)
{
    int rank = mtest.rank, size = mtest.size;
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Group world, to, from;
    MPI_Win_get_group(win, &world);
    MPI_Group_incl(world, 1, &right, &to);
    MPI_Group_incl(world, 1, &left, &from);
    MTEST_MPI(MPI_Win_post(from, 0, win));
    for (long it = 0; it < iters; it++) {
        MTEST_MPI(MPI_Win_start(to, 0, win));
        long v = it * 1000 + rank;
        /* slot it%2: a target that posted epoch it+1 early must not see epoch it's data twice */
        MTEST_MPI(MPI_Put(&v, 1, MPI_LONG, right, it % 2, 1, MPI_LONG, win));
        MTEST_MPI(MPI_Win_complete(win));
        if (it % 2) {
            MTEST_MPI(MPI_Win_wait(win));
        } else {
            int done = 0;
            while (!done)
                MTEST_MPI(MPI_Win_test(win, &done));
        }
        long want = it * 1000 + left;
        MTEST_CHECK(base[it % 2] == want, "PSCW ring epoch %ld: %ld instead of %ld", it, base[it % 2], want);
        if (it + 1 < iters)
            MTEST_MPI(MPI_Win_post(from, 0, win)); /* the early post of the next epoch */
    }
    MPI_Group_free(&to);
    MPI_Group_free(&from);
    MPI_Group_free(&world);
}

/* All-to-all PSCW: every rank exposes to all and accesses all (overlapping
 * groups); each puts its rank into slot rank of every target. */
static void test_pscw_all(MPI_Win win, long *base)
{
    int rank = mtest.rank, size = mtest.size;
    MPI_Group world;
    MPI_Win_get_group(win, &world);
    for (long it = 0; it < iters / 4 + 1; it++) {
        MTEST_MPI(MPI_Win_post(world, 0, win));
        MTEST_MPI(MPI_Win_start(world, 0, win));
        long v = it * 10000 + rank;
        for (int t = 0; t < size; t++)
            MTEST_MPI(MPI_Put(&v, 1, MPI_LONG, t, 2 + rank, 1, MPI_LONG, win));
        MTEST_MPI(MPI_Win_complete(win));
        MTEST_MPI(MPI_Win_wait(win));
        for (int o = 0; o < size; o++)
            MTEST_CHECK(base[2 + o] == it * 10000 + o, "PSCW all-to-all epoch %ld from %d: %ld", it, o, base[2 + o]);
        MPI_Barrier(MPI_COMM_WORLD); /* nobody writes epoch it+1 before all have checked epoch it */
    }
    MPI_Group_free(&world);
}

/* Every rank increments the counter at rank 0 iters times with
 * get-increment-put under an exclusive lock: exact only with mutual exclusion.
 * Half of the ranks read it meanwhile under shared locks. */
static void test_exclusive(MPI_Win win, long *base)
{
    int rank = mtest.rank;
    base[0] = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    for (long it = 0; it < iters; it++) {
        long v;
        MTEST_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
        MTEST_MPI(MPI_Get(&v, 1, MPI_LONG, 0, 0, 1, MPI_LONG, win));
        MTEST_MPI(MPI_Win_flush(0, win));
        v++;
        MTEST_MPI(MPI_Put(&v, 1, MPI_LONG, 0, 0, 1, MPI_LONG, win));
        MTEST_MPI(MPI_Win_unlock(0, win));
        if (rank % 2) {
            long seen;
            MTEST_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
            MTEST_MPI(MPI_Get(&seen, 1, MPI_LONG, 0, 0, 1, MPI_LONG, win));
            MTEST_MPI(MPI_Win_unlock(0, win));
            MTEST_CHECK(seen >= it + 1 && seen <= iters * mtest.size, "shared reader saw %ld", seen);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        MTEST_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
        MTEST_EQ(base[0], iters * mtest.size, "counter under exclusive locks");
        MTEST_MPI(MPI_Win_unlock(0, win));
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* Locks on all targets at once (shared), then NOCHECK locks made safe by barriers. */
static void test_many_locks(MPI_Win win, long *base)
{
    int rank = mtest.rank, size = mtest.size;
    for (int t = 0; t < size; t++)
        MTEST_MPI(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win));
    long v = rank;
    for (int t = 0; t < size; t++)
        MTEST_MPI(MPI_Put(&v, 1, MPI_LONG, t, 2 + rank, 1, MPI_LONG, win));
    for (int t = size - 1; t >= 0; t--)
        MTEST_MPI(MPI_Win_unlock(t, win));
    MPI_Barrier(MPI_COMM_WORLD);
    MTEST_MPI(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win));
    for (int o = 0; o < size; o++)
        MTEST_CHECK(base[2 + o] == o, "lock on every target: slot %d holds %ld", o, base[2 + o]);
    MTEST_MPI(MPI_Win_unlock(rank, win));
    MPI_Barrier(MPI_COMM_WORLD);
    /* NOCHECK: the barrier guarantees nobody else holds a conflicting lock */
    int right = (rank + 1) % size;
    v = 4242 + rank;
    MTEST_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, MPI_MODE_NOCHECK, win));
    MTEST_MPI(MPI_Put(&v, 1, MPI_LONG, right, 1, 1, MPI_LONG, win));
    MTEST_MPI(MPI_Win_unlock(right, win));
    MPI_Barrier(MPI_COMM_WORLD);
    MTEST_MPI(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win));
    MTEST_EQ(base[1], 4242 + (rank + size - 1) % size, "NOCHECK exclusive lock put");
    MTEST_MPI(MPI_Win_unlock(rank, win));
    MPI_Barrier(MPI_COMM_WORLD);
}

/* lock_all + each flush kind: the data is at the target once the flush
 * returns (the target checks after a zero-byte message says so). */
static void test_flushes(MPI_Win win, long *base)
{
    int rank = mtest.rank, size = mtest.size;
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MTEST_MPI(MPI_Win_lock_all(0, win));
    for (int kind = 0; kind < 4; kind++) {
        long v = 777 * (kind + 1) + rank, w;
        MTEST_MPI(MPI_Put(&v, 1, MPI_LONG, right, 1, 1, MPI_LONG, win));
        switch (kind) {
        case 0: MTEST_MPI(MPI_Win_flush(right, win)); break;
        case 1: MTEST_MPI(MPI_Win_flush_all(win)); break;
        case 2: MTEST_MPI(MPI_Win_flush_local(right, win)); MTEST_MPI(MPI_Win_flush(right, win)); break;
        case 3: MTEST_MPI(MPI_Win_flush_local_all(win)); MTEST_MPI(MPI_Win_flush_all(win)); break;
        }
        v = -1; /* the origin buffer is ours again after any flush */
        MPI_Sendrecv(&v, 0, MPI_BYTE, right, 9, &w, 0, MPI_BYTE, left, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MTEST_MPI(MPI_Win_sync(win));
        MTEST_CHECK(base[1] == 777 * (kind + 1) + left, "flush kind %d: %ld at the target", kind, base[1]);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MTEST_MPI(MPI_Win_unlock_all(win));
}

/* Load/store on a shared window: a flag and data written with stores,
 * ordered by MPI_Win_sync (the standard's unified-model pattern). */
static void test_win_sync(void)
{
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int rank, size;
    MPI_Comm_rank(node, &rank);
    MPI_Comm_size(node, &size);
    long *mine;
    MPI_Win win;
    MTEST_MPI(MPI_Win_allocate_shared(2 * sizeof(long), sizeof(long), MPI_INFO_NULL, node, &mine, &win));
    mine[0] = mine[1] = 0;
    MTEST_MPI(MPI_Win_lock_all(MPI_MODE_NOCHECK, win));
    MTEST_MPI(MPI_Win_sync(win));
    MPI_Barrier(node);
    int right = (rank + 1) % size;
    MPI_Aint sz;
    int du;
    volatile long *theirs;
    MTEST_MPI(MPI_Win_shared_query(win, right, &sz, &du, (void *)&theirs));
    for (long it = 1; it <= iters; it++) {
        theirs[1] = it * 3; /* data, then flag */
        MTEST_MPI(MPI_Win_sync(win));
        theirs[0] = it;
        volatile long *me = mine;
        while (me[0] != it)
            MTEST_MPI(MPI_Win_sync(win));
        MTEST_CHECK(me[1] == it * 3, "Win_sync: data %ld after flag %ld", me[1], it);
        MPI_Barrier(node);
    }
    MTEST_MPI(MPI_Win_unlock_all(win));
    MTEST_MPI(MPI_Win_free(&win));
    MPI_Comm_free(&node);
}

int main(int argc, char **argv)
{
    mtest_init(&argc, &argv, MPI_THREAD_SINGLE);
    iters = mtest_arg_long(argc, argv, "--iters", iters);
    /* MPICH 4.0.2 misplaces RMA to MPI_Win_allocate windows whose size is not
     * a multiple of 16 (tests/common/mtest.c): round up */
    int nslots = (2 + mtest.size + 7) / 8 * 8;
    long *base;
    MPI_Win win;
    MTEST_MPI(MPI_Win_allocate(nslots * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
    memset(base, 0, nslots * sizeof(long));
    mtest_set_context("fence");
    test_fence(win, base);
    mtest_set_context("PSCW ring with early posts");
    test_pscw_ring(win, base);
    mtest_set_context("PSCW all-to-all");
    test_pscw_all(win, base);
    mtest_set_context("exclusive lock counter");
    test_exclusive(win, base);
    mtest_set_context("locks on many targets, NOCHECK");
    test_many_locks(win, base);
    mtest_set_context("flushes in lock_all");
    test_flushes(win, base);
    MTEST_MPI(MPI_Win_free(&win));
    mtest_set_context("MPI_Win_sync on a shared window");
    test_win_sync();
    return mtest_finish();
}
