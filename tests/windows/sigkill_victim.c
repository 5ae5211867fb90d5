/* A job that dies by SIGKILL while Remora holds node-shared memory for it:
 * windows of every flavour (allocate, allocate_shared, create on
 * MPI_Alloc_mem memory, dynamic with an attached region) in use, then the
 * last rank kills itself; the others wait in a barrier until the launcher
 * ends the job.  Run by sigkill_clean.sh, which checks what is left. */
#include <signal.h>
#include <stdio.h>

#include "mtest.h"

int main(int argc, char **argv)
{
    mtest_init(&argc, &argv, MPI_THREAD_SINGLE);
    int rank = mtest.rank, size = mtest.size, right = (rank + 1) % size;
    MPI_Win win[4];
    long *a, *s, *m, d[8], x = rank;
    MTEST_MPI(MPI_Win_allocate(4096, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &a, &win[0]));
    MTEST_MPI(MPI_Win_allocate_shared(4096, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &s, &win[1]));
    MTEST_MPI(MPI_Alloc_mem(4096, MPI_INFO_NULL, &m));
    MTEST_MPI(MPI_Win_create(m, 4096, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win[2]));
    MTEST_MPI(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win[3]));
    MTEST_MPI(MPI_Win_attach(win[3], d, sizeof d));
    for (int k = 0; k < 3; k++) {
        MTEST_MPI(MPI_Win_lock_all(0, win[k]));
        MTEST_MPI(MPI_Put(&x, 1, MPI_LONG, right, 0, 1, MPI_LONG, win[k]));
        MTEST_MPI(MPI_Win_flush_all(win[k]));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("windows ready\n");
    fflush(stdout);
    if (rank == size - 1)
        raise(SIGKILL);
    MPI_Barrier(MPI_COMM_WORLD); /* never completes */
    return mtest_finish();
}
