/* An unmodified MPI program's RMA, for tests/launch/remora_run_wheels.sh:
 * built with another MPI's own mpicc (the PyPI wheels), run through
 * remora-run.  Fence puts, a shared lock's accumulates and gets, a
 * fetch-and-op, each result checked; prints "rank R: ok" or what was wrong. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, n, bad = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    long *b;
    MPI_Win w;
    MPI_Win_allocate((MPI_Aint)sizeof(long) * (n + 2), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &b, &w);
    for (int i = 0; i < n + 2; i++)
        b[i] = 0;
    /* every rank puts its rank + 1 into slot `rank` of every rank */
    long mine = rank + 1;
    MPI_Win_fence(0, w);
    for (int t = 0; t < n; t++)
        MPI_Put(&mine, 1, MPI_LONG, t, rank, 1, MPI_LONG, w);
    MPI_Win_fence(0, w);
    for (int i = 0; i < n; i++)
        if (b[i] != i + 1) {
            printf("rank %d: put slot %d holds %ld, not %d\n", rank, i, b[i], i + 1);
            bad = 1;
        }
    MPI_Barrier(MPI_COMM_WORLD);
    /* every rank adds rank + 1 to slot n of rank 0, and counts on slot n + 1 */
    long one = 1, old = -1;
    MPI_Win_lock_all(0, w);
    MPI_Accumulate(&mine, 1, MPI_LONG, 0, n, 1, MPI_LONG, MPI_SUM, w);
    MPI_Fetch_and_op(&one, &old, MPI_LONG, 0, n + 1, MPI_SUM, w);
    MPI_Win_unlock_all(w);
    MPI_Barrier(MPI_COMM_WORLD);
    long got[2] = {-1, -1};
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w);
    MPI_Get(got, 2, MPI_LONG, 0, n, 2, MPI_LONG, w);
    MPI_Win_unlock(0, w);
    if (got[0] != (long)n * (n + 1) / 2 || got[1] != n) {
        printf("rank %d: accumulate sum %ld (want %ld), fetch-and-op count %ld (want %d)\n", rank, got[0],
               (long)n * (n + 1) / 2, got[1], n);
        bad = 1;
    }
    if (old < 0 || old >= n) {
        printf("rank %d: fetch-and-op fetched %ld, not in [0, %d)\n", rank, old, n);
        bad = 1;
    }
    MPI_Win_free(&w);
    if (!bad)
        printf("rank %d: ok\n", rank);
    MPI_Finalize();
    return bad;
}
