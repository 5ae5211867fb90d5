/* ARMCI-MPI (Debian's libarmci-mpi-dev) on MPI RMA: strided, vector and
 * contiguous put, get and accumulate, read-modify-write, mutexes, values,
 * fences.  Every rank works on its right neighbour's memory; data is
 * verified.  Exit status 0 and "No Errors" on rank 0 when all is right.
 * With --bench N, then N rounds of what Global Arrays does most (a strided
 * put, get and accumulate of a half-size block to the right neighbour, each
 * completed) and a line "bench: ... seconds" (the slowest rank's time), for
 * scripts/clients-compare.
 *
 *   armci_ops [--rows R] [--cols C] [--bench N] */
#include <armci.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long errors;
#define CHECK(cond, ...)                                                                 \
    do {                                                                                 \
        if (!(cond)) {                                                                   \
            errors++;                                                                    \
            printf("FAIL: rank %d (%s:%d): ", me, __FILE__, __LINE__);                   \
            printf(__VA_ARGS__);                                                         \
            printf("\n");                                                                \
        }                                                                                \
    } while (0)

static int me, np;

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    ARMCI_Init();
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    int rows = 16, cols = 24, bench = 0;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--rows"))
            rows = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--cols"))
            cols = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--bench"))
            bench = atoi(argv[i + 1]);
    }
    int right = (me + 1) % np, left = (me + np - 1) % np;
    size_t bytes = (size_t)rows * cols * sizeof(double);
    void **base = malloc(sizeof(void *) * (size_t)np);
    CHECK(ARMCI_Malloc(base, (armci_size_t)bytes) == 0, "ARMCI_Malloc");
    double *mine = base[me];
    double *local = malloc(bytes);

    /* ---- strided put of a sub-block (every other row, cols/2 columns) */
    ARMCI_Access_begin(mine);
    memset(mine, 0, bytes);
    ARMCI_Access_end(mine);
    ARMCI_Barrier();
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++)
            local[r * cols + c] = me * 10000 + r * 100 + c;
    int sub_rows = rows / 2, sub_cols = cols / 2;
    int src_stride[1] = {2 * cols * (int)sizeof(double)}, dst_stride[1] = {2 * cols * (int)sizeof(double)};
    int count[2] = {sub_cols * (int)sizeof(double), sub_rows};
    CHECK(ARMCI_PutS(local, src_stride, base[right], dst_stride, count, 1, right) == 0, "ARMCI_PutS");
    ARMCI_Fence(right);
    ARMCI_Barrier();
    ARMCI_Access_begin(mine);
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++) {
            double want = (r % 2 == 0 && r / 2 < sub_rows && c < sub_cols) ? left * 10000 + r * 100 + c : 0;
            CHECK(mine[r * cols + c] == want, "ARMCI_PutS element (%d,%d): %g, not %g", r, c, mine[r * cols + c],
                  want);
        }
    ARMCI_Access_end(mine);
    ARMCI_Barrier();

    /* ---- strided get back, into a packed buffer */
    double *packed = calloc((size_t)sub_rows * sub_cols, sizeof(double));
    int packed_stride[1] = {sub_cols * (int)sizeof(double)};
    CHECK(ARMCI_GetS(base[right], dst_stride, packed, packed_stride, count, 1, right) == 0, "ARMCI_GetS");
    for (int r = 0; r < sub_rows; r++)
        for (int c = 0; c < sub_cols; c++)
            CHECK(packed[r * sub_cols + c] == me * 10000 + 2 * r * 100 + c, "ARMCI_GetS element (%d,%d)", r, c);
    ARMCI_Barrier();

    /* ---- strided accumulate: every rank adds scale * 1 into the right block */
    double scale = 2.0;
    for (int i = 0; i < rows * cols; i++)
        local[i] = 1.0;
    CHECK(ARMCI_AccS(ARMCI_ACC_DBL, &scale, local, src_stride, base[right], dst_stride, count, 1, right) == 0,
          "ARMCI_AccS");
    ARMCI_Fence(right);
    ARMCI_Barrier();
    ARMCI_Access_begin(mine);
    for (int r = 0; r < rows; r += 2)
        for (int c = 0; c < sub_cols; c++)
            CHECK(mine[r * cols + c] == left * 10000 + r * 100 + c + 2.0, "ARMCI_AccS element (%d,%d)", r, c);
    ARMCI_Access_end(mine);
    ARMCI_Barrier();

    /* ---- vector put and get: three segments of 5 doubles, scattered */
    enum { NSEG = 3, SEG = 5 };
    double vsrc[NSEG][SEG], vdst[NSEG][SEG];
    void *srcp[NSEG], *dstp[NSEG];
    for (int s = 0; s < NSEG; s++) {
        for (int k = 0; k < SEG; k++)
            vsrc[s][k] = -(me * 100 + s * 10 + k);
        srcp[s] = vsrc[s];
        dstp[s] = (double *)base[right] + (size_t)(s * 2 + 1) * cols; /* rows 1, 3, 5 */
    }
    armci_giov_t iov = {srcp, dstp, SEG * (int)sizeof(double), NSEG};
    CHECK(ARMCI_PutV(&iov, 1, right) == 0, "ARMCI_PutV");
    ARMCI_Fence(right);
    for (int s = 0; s < NSEG; s++)
        srcp[s] = vdst[s];
    armci_giov_t back = {dstp, srcp, SEG * (int)sizeof(double), NSEG};
    CHECK(ARMCI_GetV(&back, 1, right) == 0, "ARMCI_GetV");
    for (int s = 0; s < NSEG; s++)
        for (int k = 0; k < SEG; k++)
            CHECK(vdst[s][k] == -(me * 100 + s * 10 + k), "ARMCI_GetV segment %d element %d", s, k);
    ARMCI_Barrier();

    /* ---- read-modify-write on rank 0's first int: every rank adds its rank+1 */
    int **counters = malloc(sizeof(int *) * (size_t)np);
    CHECK(ARMCI_Malloc((void **)counters, sizeof(long) * 2) == 0, "ARMCI_Malloc counters");
    ARMCI_Access_begin(counters[me]);
    counters[me][0] = 0;
    counters[me][1] = 0;
    ARMCI_Access_end(counters[me]);
    ARMCI_Barrier();
    int old = -1;
    CHECK(ARMCI_Rmw(ARMCI_FETCH_AND_ADD, &old, counters[0], me + 1, 0) == 0, "ARMCI_Rmw");
    CHECK(old >= 0 && old <= np * (np + 1) / 2 - (me + 1), "ARMCI_Rmw returned %d", old);
    ARMCI_Barrier();
    CHECK(ARMCI_GetValueInt(counters[0], 0) == np * (np + 1) / 2, "the sum of every rank's fetch-and-add");
    ARMCI_Barrier();

    /* ---- mutexes: a read-increment-write under a lock at rank 0 */
    CHECK(ARMCI_Create_mutexes(1) == 0, "ARMCI_Create_mutexes");
    for (int i = 0; i < 10; i++) {
        ARMCI_Lock(0, 0);
        int v = ARMCI_GetValueInt(&counters[0][1], 0);
        ARMCI_PutValueInt(v + 1, &counters[0][1], 0);
        ARMCI_Fence(0);
        ARMCI_Unlock(0, 0);
    }
    ARMCI_Barrier();
    CHECK(ARMCI_GetValueInt(&counters[0][1], 0) == 10 * np, "increments under ARMCI_Lock: %d, not %d",
          ARMCI_GetValueInt(&counters[0][1], 0), 10 * np);
    ARMCI_Barrier();
    CHECK(ARMCI_Destroy_mutexes() == 0, "ARMCI_Destroy_mutexes");

    /* ---- contiguous put, get and accumulate */
    double one[4] = {1, 2, 3, 4}, got[4] = {0};
    CHECK(ARMCI_Put(one, base[right], sizeof one, right) == 0, "ARMCI_Put");
    ARMCI_Fence(right);
    CHECK(ARMCI_Get(base[right], got, sizeof got, right) == 0, "ARMCI_Get");
    CHECK(!memcmp(one, got, sizeof one), "ARMCI_Get after ARMCI_Put");
    ARMCI_Barrier();
    double unit = 1.0;
    CHECK(ARMCI_Acc(ARMCI_ACC_DBL, &unit, one, base[right], sizeof one, right) == 0, "ARMCI_Acc");
    ARMCI_AllFence();
    ARMCI_Barrier();
    CHECK(ARMCI_GetValueDouble(&mine[3], me) == 8.0, "ARMCI_Acc: %g", ARMCI_GetValueDouble(&mine[3], me));

    ARMCI_Barrier();
    if (bench > 0) {
        double t0 = MPI_Wtime();
        for (int i = 0; i < bench; i++) {
            ARMCI_PutS(local, src_stride, base[right], dst_stride, count, 1, right);
            ARMCI_Fence(right);
            ARMCI_GetS(base[right], dst_stride, packed, packed_stride, count, 1, right);
            ARMCI_AccS(ARMCI_ACC_DBL, &scale, local, src_stride, base[right], dst_stride, count, 1, right);
            ARMCI_Fence(right);
        }
        ARMCI_Barrier();
        double t = MPI_Wtime() - t0, slowest;
        MPI_Reduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        if (me == 0)
            printf("bench: %d x (strided put, get, acc of %dx%d doubles) %.6f seconds\n", bench, sub_rows,
                   sub_cols, slowest);
    }
    ARMCI_Free(counters[me]);
    ARMCI_Free(base[me]);
    free(counters);
    free(base);
    free(local);
    free(packed);
    long total = 0;
    MPI_Allreduce(&errors, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0)
        printf(total ? " Found %ld errors\n" : " No Errors\n", total);
    ARMCI_Finalize();
    MPI_Finalize();
    return total != 0;
}
