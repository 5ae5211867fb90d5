/* The loop scripts/count-instructions runs under callgrind to count
 * instructions per call, to an on-node target inside a lock_all epoch: N of
 * each of MPI_Put and MPI_Get of 8 contiguous bytes, MPI_Accumulate of a row
 * of 30 doubles with MPI_SUM (what Global Arrays and ARMCI-MPI send per row of
 * a patch) and MPI_Fetch_and_op of one long (a counter); then N exclusive
 * MPI_Win_lock/MPI_Win_unlock pairs on that target.  Plain MPI: runs on any
 * MPI. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { ROW = 30, SLOTS = 1024 };

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long n = argc > 1 ? atol(argv[1]) : 100000;
    long *base, x = rank, y = 0, one = 1;
    double row[ROW];
    for (int i = 0; i < ROW; i++)
        row[i] = i;
    MPI_Win win;
    MPI_Win_allocate(SLOTS * ROW * sizeof(double), 8, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    int target = (rank + 1) % size;
    MPI_Win_lock_all(0, win);
    for (long i = 0; i < n; i++)
        MPI_Put(&x, 1, MPI_LONG, target, i % SLOTS, 1, MPI_LONG, win);
    for (long i = 0; i < n; i++)
        MPI_Get(&y, 1, MPI_LONG, target, i % SLOTS, 1, MPI_LONG, win);
    MPI_Win_flush_all(win);
    for (long i = 0; i < n; i++)
        MPI_Accumulate(row, ROW, MPI_DOUBLE, target, i % SLOTS * ROW, ROW, MPI_DOUBLE, MPI_SUM, win);
    for (long i = 0; i < n; i++)
        MPI_Fetch_and_op(&one, &y, MPI_LONG, target, 0, MPI_SUM, win);
    MPI_Win_unlock_all(win);
    for (long i = 0; i < n; i++) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, target, 0, win);
        MPI_Win_unlock(target, win);
    }
    MPI_Win_free(&win);
    MPI_Finalize();
    return y < 0; /* y is used */
}
