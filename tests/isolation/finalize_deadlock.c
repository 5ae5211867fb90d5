/* finalize_deadlock: the MPI program that makes Debian's MPICH 4.0 deadlock in
 * its own MPI_Finalize across nodes, every time (scripts/mpich-finalize-watch
 * explains the deadlock).  Rank 1 tells rank 0 that it is about to finalize
 * and enters MPI_Finalize; rank 0 keeps calling MPI for 2 s more
 * (MPI_Iprobe), in which it answers rank 1's UCX disconnect, so rank 1 closes
 * its endpoints and waits in the PMI barrier; then rank 0 finalizes, and its
 * own disconnect waits for an answer that rank 1, in the barrier, never gives.
 * Nothing about it is wrong by the MPI standard.  Through Remora it ends
 * (src/mpi/host_finalize.c).  Two ranks. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (np != 2) {
        fprintf(stderr, "finalize_deadlock: needs 2 ranks, not %d\n", np);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int note = 1;
    if (me == 1) {
        MPI_Send(&note, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    } else {
        MPI_Recv(&note, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        double start = MPI_Wtime();
        int flag;
        while (MPI_Wtime() - start < 2.0)
            MPI_Iprobe(MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    }
    printf("finalize_deadlock: rank %d enters MPI_Finalize\n", me);
    fflush(stdout);
    MPI_Finalize();
    return 0;
}
