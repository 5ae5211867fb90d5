/* Erroneous RMA calls under MPI_ERRORS_RETURN return the right error class
 * (never a crash or a hang).  A host MPI alone need not detect them: the
 * harness prints "host does not detect" there, and fails under Remora. */
#include <string.h>

#include "mtest.h"

#define EXPECT(call, cls) MTEST_EXPECT_ERR((call), (cls), #call)
/* An erroneous call that, if a host accepted it, would open or close an
 * epoch and derail the rest: not made over a host run with --host-skip
 * stateful (Open MPI and MPICH accept several of them). */
static int skip_stateful;
#define EXPECT_STATEFUL(call, cls) \
    do { if (!skip_stateful) EXPECT(call, cls); } while (0)
/* A displacement whose byte offset overflows 64 bits: hosts compute the
 * offset modulo 2^64 and accept it (--host-skip wrap). */
static int skip_wrap;
/* NULL buffers of MPI_Fetch_and_op and MPI_Compare_and_swap: MPI_ERR_ARG, as
 * MPICH says, and nothing done; Open MPI's osc/sm dereferences them
 * (--host-skip null). */
static int skip_null;

int main(int argc, char **argv)
{
    mtest_init(&argc, &argv, MPI_THREAD_SINGLE);
    const char *host_skip = mtest_host_list(argc, argv, "--host-skip");
    skip_stateful = mtest_listed(host_skip, "stateful");
    skip_wrap = mtest_listed(host_skip, "wrap");
    skip_null = mtest_listed(host_skip, "null");
    int size = mtest.size, right = (mtest.rank + 1) % size;
    long *base, x = 1;
    MPI_Win win;
    MTEST_MPI(MPI_Win_allocate(8 * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
    MTEST_MPI(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    mtest_set_context("outside any epoch");
    EXPECT(MPI_Put(&x, 1, MPI_LONG, right, 0, 1, MPI_LONG, win), MPI_ERR_RMA_SYNC);
    EXPECT(MPI_Get(&x, 1, MPI_LONG, right, 0, 1, MPI_LONG, win), MPI_ERR_RMA_SYNC);
    EXPECT(MPI_Win_flush(right, win), MPI_ERR_RMA_SYNC);
    EXPECT(MPI_Win_flush_all(win), MPI_ERR_RMA_SYNC);
    EXPECT(MPI_Win_sync(win), MPI_ERR_RMA_SYNC); /* only in passive-target epochs (MPI-4.1, 12.5.4) */
    EXPECT_STATEFUL(MPI_Win_unlock(right, win), MPI_ERR_RMA_SYNC);
    EXPECT_STATEFUL(MPI_Win_unlock_all(win), MPI_ERR_RMA_SYNC);
    EXPECT_STATEFUL(MPI_Win_complete(win), MPI_ERR_RMA_SYNC);
    EXPECT_STATEFUL(MPI_Win_wait(win), MPI_ERR_RMA_SYNC);

    mtest_set_context("in a lock_all epoch");
    MTEST_MPI(MPI_Win_lock_all(0, win));
    EXPECT(MPI_Put(&x, 1, MPI_LONG, size, 0, 1, MPI_LONG, win), MPI_ERR_RANK);
    EXPECT(MPI_Put(&x, 1, MPI_LONG, -5, 0, 1, MPI_LONG, win), MPI_ERR_RANK);
    EXPECT(MPI_Put(&x, 1, MPI_LONG, right, 8, 1, MPI_LONG, win), MPI_ERR_RMA_RANGE);
    EXPECT(MPI_Get(&x, 1, MPI_LONG, right, -1, 1, MPI_LONG, win), MPI_ERR_RMA_RANGE);
    EXPECT(MPI_Put(&x, 2, MPI_LONG, right, 7, 2, MPI_LONG, win), MPI_ERR_RMA_RANGE);
    EXPECT(MPI_Put(&x, 2, MPI_LONG, right, -1, 2, MPI_LONG, win), MPI_ERR_RMA_RANGE);
    if (!skip_wrap) {
        EXPECT(MPI_Put(&x, 1, MPI_LONG, right, (MPI_Aint)1 << 61, 1, MPI_LONG, win), MPI_ERR_RMA_RANGE);
        EXPECT(MPI_Get(&x, 1, MPI_LONG, right, ((MPI_Aint)1 << 61) + 1, 1, MPI_LONG, win), MPI_ERR_RMA_RANGE);
        EXPECT(MPI_Put(&x, 1, MPI_LONG, right, -((MPI_Aint)1 << 61), 1, MPI_LONG, win), MPI_ERR_RMA_RANGE);
    }
    EXPECT(MPI_Put(&x, -1, MPI_LONG, right, 0, -1, MPI_LONG, win), MPI_ERR_COUNT);
    EXPECT(MPI_Put(&x, 1, MPI_DATATYPE_NULL, right, 0, 1, MPI_LONG, win), MPI_ERR_TYPE);
    MPI_Datatype uncommitted; /* a derived type before MPI_Type_commit */
    MPI_Type_vector(2, 1, 2, MPI_LONG, &uncommitted);
    EXPECT(MPI_Put(base, 2, MPI_LONG, right, 0, 1, uncommitted, win), MPI_ERR_TYPE);
    EXPECT(MPI_Get(base, 1, uncommitted, right, 0, 2, MPI_LONG, win), MPI_ERR_TYPE);
    EXPECT(MPI_Accumulate(base, 1, uncommitted, right, 0, 2, MPI_LONG, MPI_SUM, win), MPI_ERR_TYPE);
    MPI_Type_commit(&uncommitted); /* now it is, and serves */
    MTEST_MPI(MPI_Put(base, 2, MPI_LONG, right, 0, 1, uncommitted, win));
    MPI_Type_free(&uncommitted);
    EXPECT_STATEFUL(MPI_Win_lock_all(0, win), MPI_ERR_RMA_SYNC);
    EXPECT_STATEFUL(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win), MPI_ERR_RMA_SYNC);
    EXPECT_STATEFUL(MPI_Win_fence(0, win), MPI_ERR_RMA_SYNC);
    EXPECT(MPI_Win_flush(size + 3, win), MPI_ERR_RANK);
    MTEST_MPI(MPI_Win_unlock_all(win));

    mtest_set_context("locks");
    EXPECT_STATEFUL(MPI_Win_lock(12345, right, 0, win), MPI_ERR_LOCKTYPE);
    EXPECT_STATEFUL(MPI_Win_lock(MPI_LOCK_SHARED, right, 1 << 20, win), MPI_ERR_ASSERT);
    EXPECT(MPI_Win_lock(MPI_LOCK_SHARED, size, 0, win), MPI_ERR_RANK);
    MTEST_MPI(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win));
    MTEST_MPI(MPI_Win_sync(win)); /* a lock on one target opens a passive-target epoch too */
    EXPECT_STATEFUL(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win), MPI_ERR_RMA_SYNC);
    EXPECT_STATEFUL(MPI_Win_lock_all(0, win), MPI_ERR_RMA_SYNC);
    EXPECT_STATEFUL(MPI_Win_unlock((right + 1) % size == right ? size : (right + 1) % size, win),
           (right + 1) % size == right ? MPI_ERR_RANK : MPI_ERR_RMA_SYNC);
    MTEST_MPI(MPI_Win_unlock(right, win));
    EXPECT_STATEFUL(MPI_Win_unlock(right, win), MPI_ERR_RMA_SYNC);
    /* the epoch is over, though the target stays among those ever locked (lock.c) */
    EXPECT(MPI_Win_flush_all(win), MPI_ERR_RMA_SYNC);
    EXPECT(MPI_Win_sync(win), MPI_ERR_RMA_SYNC);

    if (!skip_null) {
        /* slot 6 of the right neighbour: nobody else's calls touch it */
        mtest_set_context("NULL buffers of the atomics");
        long before, after, cmp = 0;
        MTEST_MPI(MPI_Win_lock_all(0, win));
        MTEST_MPI(MPI_Fetch_and_op(NULL, &before, MPI_LONG, right, 6, MPI_NO_OP, win)); /* allowed: no origin */
        EXPECT(MPI_Fetch_and_op(&x, NULL, MPI_LONG, right, 6, MPI_SUM, win), MPI_ERR_ARG);
        EXPECT(MPI_Fetch_and_op(&x, NULL, MPI_LONG, right, 6, MPI_REPLACE, win), MPI_ERR_ARG);
        EXPECT(MPI_Fetch_and_op(NULL, &after, MPI_LONG, right, 6, MPI_SUM, win), MPI_ERR_ARG);
        EXPECT(MPI_Compare_and_swap(NULL, &cmp, &after, MPI_LONG, right, 6, win), MPI_ERR_ARG);
        EXPECT(MPI_Compare_and_swap(&x, NULL, &after, MPI_LONG, right, 6, win), MPI_ERR_ARG);
        EXPECT(MPI_Compare_and_swap(&x, &before, NULL, MPI_LONG, right, 6, win), MPI_ERR_ARG);
        MTEST_MPI(MPI_Fetch_and_op(NULL, &after, MPI_LONG, right, 6, MPI_NO_OP, win));
        MTEST_MPI(MPI_Win_unlock_all(win));
        MTEST_CHECK(after == before, "an erroneous atomic changed the target: %ld, was %ld", after, before);
    }

    mtest_set_context("fence and PSCW");
    EXPECT_STATEFUL(MPI_Win_fence(1 << 20, win), MPI_ERR_ASSERT);
    MPI_Group world;
    MPI_Win_get_group(win, &world);
    EXPECT_STATEFUL(MPI_Win_post(world, 1 << 20, win), MPI_ERR_ASSERT);
    EXPECT_STATEFUL(MPI_Win_start(world, 1 << 20, win), MPI_ERR_ASSERT);
    MTEST_MPI(MPI_Win_post(world, 0, win));
    EXPECT_STATEFUL(MPI_Win_post(world, 0, win), MPI_ERR_RMA_SYNC);
    MTEST_MPI(MPI_Win_start(world, 0, win));
    EXPECT_STATEFUL(MPI_Win_start(world, 0, win), MPI_ERR_RMA_SYNC);
    EXPECT_STATEFUL(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win), MPI_ERR_RMA_SYNC);
    EXPECT(MPI_Win_sync(win), MPI_ERR_RMA_SYNC); /* an active-target epoch is not a passive one */
    MTEST_MPI(MPI_Win_complete(win));
    MTEST_MPI(MPI_Win_wait(win));
    MPI_Group_free(&world);

    mtest_set_context("MPI_Win_free with a lock held");
    MTEST_MPI(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win));
    EXPECT_STATEFUL(MPI_Win_free(&win), MPI_ERR_RMA_SYNC);
    MTEST_MPI(MPI_Win_unlock(right, win));
    MPI_Barrier(MPI_COMM_WORLD);

    MTEST_MPI(MPI_Win_free(&win));

    mtest_set_context("window creation");
    char mem[64];
    EXPECT_STATEFUL(MPI_Win_create(mem, -1, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win), MPI_ERR_SIZE);
    EXPECT_STATEFUL(MPI_Win_create(mem, 64, 0, MPI_INFO_NULL, MPI_COMM_WORLD, &win), MPI_ERR_DISP);
    EXPECT_STATEFUL(MPI_Win_allocate(-8, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win), MPI_ERR_SIZE);
    EXPECT_STATEFUL(MPI_Win_allocate(64, -2, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win), MPI_ERR_DISP);
    EXPECT_STATEFUL(MPI_Win_create(mem, 64, 1, MPI_INFO_NULL, MPI_COMM_NULL, &win), MPI_ERR_COMM);
    return mtest_finish();
}
