/* Windows of more ranks than a process makes state for at once: Remora makes
 * what it keeps about a target at the target's first use, eight ranks at a
 * time, when every rank's place can be computed (one node, one size and
 * displacement unit everywhere); otherwise all at creation.  Every kind is
 * checked on fresh windows, so every first use is a first use:
 *   allocate (one size: made on first use), allocate with sizes that differ
 *   by rank (made at creation), allocate_shared (one size), create.
 * In each, under MPI_THREAD_MULTIPLE, T threads at once reach every target
 * for the first time inside one lock_all epoch: a put into the slot of
 * (origin, thread) and a fetch_and_op on the target's counter; then the main
 * thread locks every target exclusively (MPI_Win_lock makes the target's
 * state too) and reads its slot back; every rank posts to and starts toward
 * all and puts into their slots; and MPI_Win_shared_query answers for
 * far ranks (allocate_shared, over the node's processes: contiguous memory,
 * rank r's at r * size).
 * Every slot and counter is checked at its owner.
 *   far_ranks [--threads T] [--windows N] [--host-skip kind,...]
 * (--host-skip: the kinds a host MPI alone gets wrong, tests/windows/CMakeLists.txt) */
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

enum { UNIFORM, VARYING, SHARED, CREATE, NKINDS };
static const char *kind_name[NKINDS] = {"allocate", "allocate-varying-sizes", "allocate_shared", "create"};

static int nthreads = 4;
static MPI_Win win;
static MPI_Comm comm; /* the window's: the node's processes for allocate_shared */
static int rank, size; /* in comm */

/* long 0 is the counter, then one slot per (origin, thread) */
static MPI_Aint slot(int origin, int thread) { return 1 + (MPI_Aint)origin * nthreads + thread; }
static long value(int origin, int thread, int w) { return ((long)w << 32) | ((long)origin << 8) | thread; }

static int window_index;

static void first_uses(int t, void *arg)
{
    (void)arg;
    long *v = malloc(sizeof(long) * 2 * (size_t)size), *old = v + size, one = 1;
    for (int i = 0; i < size; i++) {
        int target = (rank + 1 + i + t) % size; /* threads start at different ranks */
        v[i] = value(rank, t, window_index);
        MTEST_MPI(MPI_Put(&v[i], 1, MPI_LONG, target, slot(rank, t), 1, MPI_LONG, win));
        MTEST_MPI(MPI_Fetch_and_op(&one, &old[i], MPI_LONG, target, 0, MPI_SUM, win));
    }
    MTEST_MPI(MPI_Win_flush_all(win)); /* the buffers are ours again, the results defined */
    for (int i = 0; i < size; i++)
        MTEST_CHECK(old[i] >= 0 && old[i] < (long)size * nthreads, "a counter was %ld", old[i]);
    free(v);
}

static void check_window(int kind, long *mem, MPI_Aint bytes)
{
    mtest_set_context("%s, window %d", kind_name[kind], window_index);
    for (int i = 0; i < (int)(bytes / sizeof(long)); i++)
        mem[i] = -1;
    mem[0] = 0;
    MPI_Barrier(comm);
    MTEST_MPI(MPI_Win_lock_all(0, win));
    mtest_run_threads(nthreads, first_uses, NULL);
    MTEST_MPI(MPI_Win_unlock_all(win));
    MPI_Barrier(comm);

    MTEST_MPI(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win));
    MTEST_EQ(mem[0], (long)size * nthreads, "fetch_and_op count at this rank");
    for (int o = 0; o < size; o++)
        for (int t = 0; t < nthreads; t++)
            MTEST_CHECK(mem[slot(o, t)] == value(o, t, window_index), "slot of origin %d thread %d: %lx", o, t,
                        (unsigned long)mem[slot(o, t)]);
    MTEST_MPI(MPI_Win_unlock(rank, win));
    MPI_Barrier(comm);

    for (int i = size - 1; i >= 0; i--) { /* far ranks first */
        int target = (rank + i) % size;
        long back = 0;
        MTEST_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, target, 0, win));
        MTEST_MPI(MPI_Get(&back, 1, MPI_LONG, target, slot(rank, 0), 1, MPI_LONG, win));
        MTEST_MPI(MPI_Win_unlock(target, win));
        MTEST_EQ(back, value(rank, 0, window_index), "own slot read back under an exclusive lock");
    }
    /* PSCW with everyone: posts land in each origin's control block, as
     * the target finds it, and start waits on its own */
    MPI_Group all;
    MPI_Comm_group(comm, &all);
    long mark = -value(rank, 0, window_index);
    MTEST_MPI(MPI_Win_post(all, 0, win));
    MTEST_MPI(MPI_Win_start(all, 0, win));
    for (int i = 0; i < size; i++)
        MTEST_MPI(MPI_Put(&mark, 1, MPI_LONG, (rank + i) % size, slot(rank, 0), 1, MPI_LONG, win));
    MTEST_MPI(MPI_Win_complete(win));
    MTEST_MPI(MPI_Win_wait(win));
    MPI_Group_free(&all);
    MTEST_MPI(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win));
    for (int o = 0; o < size; o++)
        MTEST_EQ(mem[slot(o, 0)], -value(o, 0, window_index), "slot put in a PSCW epoch");
    MTEST_MPI(MPI_Win_unlock(rank, win));
    MPI_Barrier(comm);

    if (kind == SHARED) {
        char *base0 = NULL;
        MTEST_MPI(MPI_Win_lock_all(MPI_MODE_NOCHECK, win));
        MTEST_MPI(MPI_Win_sync(win)); /* the counters' last updates, before our loads */
        for (int r = 0; r < size; r++) {
            MPI_Aint sz;
            int du;
            char *b;
            MTEST_MPI(MPI_Win_shared_query(win, r, &sz, &du, &b));
            if (r == 0)
                base0 = b;
            MTEST_EQ(sz, bytes, "shared_query size");
            MTEST_EQ(du, (int)sizeof(long), "shared_query disp_unit");
            MTEST_CHECK(b == base0 + (MPI_Aint)r * bytes, "rank %d's memory is not contiguous after rank 0's", r);
            MTEST_EQ(((long *)b)[0], (long)size * nthreads, "counter by load through shared_query");
        }
        MTEST_MPI(MPI_Win_unlock_all(win));
    }
    MPI_Barrier(comm);
}

int main(int argc, char **argv)
{
    mtest_init(&argc, &argv, MPI_THREAD_MULTIPLE);
    nthreads = (int)mtest_arg_long(argc, argv, "--threads", 4);
    int windows = (int)mtest_arg_long(argc, argv, "--windows", 3);
    const char *skip = mtest_host_list(argc, argv, "--host-skip");
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    for (window_index = 0; window_index < windows * NKINDS; window_index++) {
        int kind = window_index % NKINDS;
        if (mtest_listed(skip, kind_name[kind]))
            continue;
        comm = kind == SHARED ? node : MPI_COMM_WORLD;
        MPI_Comm_rank(comm, &rank);
        MPI_Comm_size(comm, &size);
        MPI_Aint bytes = (MPI_Aint)sizeof(long) * (1 + (MPI_Aint)size * nthreads);
        long *mem = NULL;
        MPI_Aint mine = kind == VARYING ? bytes + (MPI_Aint)sizeof(long) * rank : bytes;
        if (kind == UNIFORM || kind == VARYING) {
            MTEST_MPI(MPI_Win_allocate(mine, sizeof(long), MPI_INFO_NULL, comm, &mem, &win));
        } else if (kind == SHARED) {
            MTEST_MPI(MPI_Win_allocate_shared(mine, sizeof(long), MPI_INFO_NULL, comm, &mem, &win));
        } else {
            mem = malloc((size_t)mine);
            MTEST_MPI(MPI_Win_create(mem, mine, sizeof(long), MPI_INFO_NULL, comm, &win));
        }
        check_window(kind, mem, bytes);
        MTEST_MPI(MPI_Win_free(&win));
        if (kind == CREATE)
            free(mem);
    }
    MPI_Comm_free(&node);
    return mtest_finish();
}
