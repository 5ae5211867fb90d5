/* A job that dies by SIGKILL while Remora holds node-shared memory for it:
 * windows of every flavour (allocate, allocate_shared, create on
 * MPI_Alloc_mem memory, dynamic with an attached region), each holding
 * what the left neighbour put there (checked), then the last rank kills
 * itself; the others wait in a barrier until the launcher ends the job.
 * Every rank prints "rank R pid P" (the segments Remora names carry the pid
 * of the process that made them).  Run by sigkill_clean.sh, which checks
 * what is left of these processes. */
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#include "mtest.h"

int main(int argc, char **argv)
{
    mtest_init(&argc, &argv, MPI_THREAD_SINGLE);
    int rank = mtest.rank, size = mtest.size, right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Win win[4];
    long *a, *s, *m, d[8] = {0}, x = rank;
    MTEST_MPI(MPI_Win_allocate(4096, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &a, &win[0]));
    MTEST_MPI(MPI_Win_allocate_shared(4096, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &s, &win[1]));
    MTEST_MPI(MPI_Alloc_mem(4096, MPI_INFO_NULL, &m));
    MTEST_MPI(MPI_Win_create(m, 4096, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win[2]));
    MTEST_MPI(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win[3]));
    MTEST_MPI(MPI_Win_attach(win[3], d, sizeof d));
    MPI_Aint at[size]; /* each rank's d in the dynamic window */
    MPI_Aint mine;
    MPI_Get_address(d, &mine);
    MPI_Allgather(&mine, 1, MPI_AINT, at, 1, MPI_AINT, MPI_COMM_WORLD);
    printf("rank %d pid %d\n", rank, (int)getpid());
    fflush(stdout);
    /* lock_all epochs left open: the windows are in use when a rank dies */
    for (int k = 0; k < 4; k++) {
        MTEST_MPI(MPI_Win_lock_all(0, win[k]));
        MTEST_MPI(MPI_Put(&x, 1, MPI_LONG, right, k == 3 ? at[right] : 0, 1, MPI_LONG, win[k]));
        MTEST_MPI(MPI_Win_flush_all(win[k]));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    long *mem[4] = {a, s, m, d};
    static const char *what[4] = {"allocate", "allocate_shared", "create (MPI_Alloc_mem)", "dynamic"};
    for (int k = 0; k < 4; k++) {
        MTEST_MPI(MPI_Win_sync(win[k]));
        MTEST_CHECK(mem[k][0] == left, "%s window: my first long is %ld, the left neighbour put %d", what[k],
                    mem[k][0], left);
    }
    if (rank == 0) /* a rank whose window failed printed FAIL (sigkill_clean.sh looks) */
        printf("windows ready\n");
    fflush(stdout);
    MPI_Barrier(MPI_COMM_WORLD); /* rank 0 has said so before a rank dies (the launcher then kills the rest) */
    if (rank == size - 1)
        raise(SIGKILL);
    MPI_Barrier(MPI_COMM_WORLD); /* never completes */
    return mtest_finish();
}
