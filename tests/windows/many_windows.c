/* Many windows alive at once (1000 by default), of alternating flavours,
 * each used: every rank puts its rank and the window's number into its right
 * neighbour's window k, all inside one lock_all epoch per window, and checks
 * them all at the end; then frees them in an order unlike creation.
 *   many_windows [--windows N] */
#include <stdlib.h>

#include "mtest.h"

int main(int argc, char **argv)
{
    mtest_init(&argc, &argv, MPI_THREAD_SINGLE);
    int n = (int)mtest_arg_long(argc, argv, "--windows", 1000);
    int rank = mtest.rank, size = mtest.size, right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Win *win = malloc(sizeof *win * (size_t)n);
    long **mem = malloc(sizeof *mem * (size_t)n);
    for (int k = 0; k < n; k++) {
        if (k % 2 == 0) {
            MTEST_MPI(MPI_Win_allocate(2 * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &mem[k], &win[k]));
        } else {
            mem[k] = malloc(2 * sizeof(long));
            MTEST_MPI(MPI_Win_create(mem[k], 2 * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &win[k]));
        }
        mem[k][0] = mem[k][1] = -1;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    for (int k = 0; k < n; k++) {
        long v[2] = {rank, k};
        MTEST_MPI(MPI_Win_lock_all(0, win[k]));
        MTEST_MPI(MPI_Put(v, 2, MPI_LONG, right, 0, 2, MPI_LONG, win[k]));
        MTEST_MPI(MPI_Win_unlock_all(win[k]));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    for (int k = 0; k < n; k++) {
        MTEST_MPI(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win[k]));
        MTEST_CHECK(mem[k][0] == left && mem[k][1] == k, "window %d holds (%ld, %ld)", k, mem[k][0], mem[k][1]);
        MTEST_MPI(MPI_Win_unlock(rank, win[k]));
    }
    for (int j = 0; j < n; j++) {
        int k = (int)(((long)j * 7919) % n); /* a permutation when n is not a multiple of 7919 */
        MTEST_MPI(MPI_Win_free(&win[k]));
        if (k % 2)
            free(mem[k]);
    }
    free(win);
    free(mem);
    return mtest_finish();
}
