/* N MPI_Put and N MPI_Get of 8 contiguous bytes to an on-node target inside a
 * lock_all epoch: the loop scripts/count-instructions runs under callgrind to
 * count instructions per call.  Plain MPI: runs on any MPI. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long n = argc > 1 ? atol(argv[1]) : 100000;
    long *base, x = rank, y = 0;
    MPI_Win win;
    MPI_Win_allocate(8 * 1024, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    int target = (rank + 1) % size;
    MPI_Win_lock_all(0, win);
    for (long i = 0; i < n; i++)
        MPI_Put(&x, 1, MPI_LONG, target, i & 1023, 1, MPI_LONG, win);
    for (long i = 0; i < n; i++)
        MPI_Get(&y, 1, MPI_LONG, target, i & 1023, 1, MPI_LONG, win);
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
    MPI_Finalize();
    return y < 0; /* y is used */
}
