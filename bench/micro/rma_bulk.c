/* rma_bulk: bulk and noncontiguous RMA from rank 0 (origin) to the last rank
 * (target, waiting in a barrier), every result checked.  Plain MPI: the same
 * binary runs over a host MPI alone and through remora-run.
 *
 *   rma_bulk [--repeat R] [--size N] [TEST ...]
 *
 * Tests (all by default; seconds per call, the median of R repeats):
 *   acc_rows   inside one exclusive lock, MPI_Accumulate (MPI_SUM) of N rows
 *              of N doubles, one call per row (N = 1024: 8 MiB)
 *   transpose  one MPI_Put of an N x N int matrix whose target datatype
 *              transposes it (a vector of hvectors: N*N 4-byte blocks;
 *              N = 1000)
 *   subarray   one MPI_Accumulate (MPI_SUM, doubles) into an N x N
 *              subarray (MPI_Type_create_subarray) of a 2N x 2N array
 *   put_B / acc_B for B in 4, 64, 4096: a put (accumulate, MPI_SUM of
 *              ints) of 4 MiB in B-byte blocks at stride 2B, and the same
 *              4 MiB contiguous (put_contig / acc_contig): their ratio is
 *              the price of noncontiguity
 * Output: "test seconds s [ratio-to-contiguous x]" per test. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, nprocs, target, repeat = 3, size = 0, failures;

static void check(int ok, const char *test, const char *what)
{
    if (!ok) {
        fprintf(stderr, "rma_bulk: %s: %s\n", test, what);
        failures++;
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* One timed run of a test: its body on the origin between two barriers. */
typedef void (*body_fn)(MPI_Win win, void *arg);

static double timed(body_fn body, MPI_Win win, void *arg)
{
    double t = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        double t0 = MPI_Wtime();
        body(win, arg);
        t = MPI_Wtime() - t0;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    return t;
}

static double median(body_fn body, MPI_Win win, void *arg)
{
    double s[repeat];
    for (int r = 0; r < repeat; r++)
        s[r] = timed(body, win, arg);
    qsort(s, (size_t)repeat, sizeof *s, cmp_double);
    return s[repeat / 2];
}

/* A window of `bytes` (zeroed) at the target and none elsewhere; its memory in *mem. */
static MPI_Win target_window(size_t bytes, int unit, void *mem)
{
    MPI_Win win;
    MPI_Win_allocate(rank == target ? (MPI_Aint)bytes : 0, unit, MPI_INFO_NULL, MPI_COMM_WORLD, mem, &win);
    if (rank == target)
        memset(*(void **)mem, 0, bytes);
    return win;
}

static void report(const char *name, double sec, double contig)
{
    if (rank != 0)
        return;
    if (contig > 0)
        printf("%-12s %12.6f s %8.2f x\n", name, sec, sec / contig);
    else
        printf("%-12s %12.6f s\n", name, sec);
    fflush(stdout);
}

/* ---- acc_rows ------------------------------------------------------------------ */

struct rows {
    int n;
    double *row;
};

static void acc_rows_body(MPI_Win win, void *arg)
{
    struct rows *r = arg;
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, target, 0, win);
    for (int i = 0; i < r->n; i++)
        MPI_Accumulate(r->row + (size_t)i * r->n, r->n, MPI_DOUBLE, target, (MPI_Aint)i * r->n, r->n, MPI_DOUBLE,
                       MPI_SUM, win);
    MPI_Win_unlock(target, win);
}

static void acc_rows(void)
{
    int n = size ? size : 1024;
    size_t elems = (size_t)n * n;
    double *mem;
    MPI_Win win = target_window(elems * sizeof(double), sizeof(double), &mem);
    struct rows r = {n, malloc(elems * sizeof(double))};
    for (size_t i = 0; i < elems; i++)
        r.row[i] = (double)(i % 1000);
    double sec = median(acc_rows_body, win, &r);
    if (rank == target) {
        MPI_Win_lock(MPI_LOCK_SHARED, target, 0, win);
        int ok = 1;
        for (size_t i = 0; i < elems; i++)
            ok &= mem[i] == (double)(i % 1000) * repeat;
        MPI_Win_unlock(target, win);
        check(ok, "acc_rows", "the target does not hold the sum of the rows");
    }
    report("acc_rows", sec, 0);
    free(r.row);
    MPI_Win_free(&win);
}

/* ---- transpose ------------------------------------------------------------------ */

struct transpose {
    int n;
    int *a;
    MPI_Datatype t;
};

static void transpose_body(MPI_Win win, void *arg)
{
    struct transpose *x = arg;
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, target, 0, win);
    MPI_Put(x->a, x->n * x->n, MPI_INT, target, 0, 1, x->t, win);
    MPI_Win_unlock(target, win);
}

static void transpose(void)
{
    int n = size ? size : 1000;
    size_t elems = (size_t)n * n;
    int *mem;
    MPI_Win win = target_window(elems * sizeof(int), sizeof(int), &mem);
    struct transpose x = {n, malloc(elems * sizeof(int)), MPI_DATATYPE_NULL};
    for (size_t i = 0; i < elems; i++)
        x.a[i] = (int)i;
    MPI_Datatype column;
    MPI_Type_vector(n, 1, n, MPI_INT, &column);
    MPI_Type_create_hvector(n, 1, sizeof(int), column, &x.t);
    MPI_Type_commit(&x.t);
    double sec = median(transpose_body, win, &x);
    if (rank == target) {
        MPI_Win_lock(MPI_LOCK_SHARED, target, 0, win);
        int ok = 1;
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                ok &= mem[(size_t)j * n + i] == i * n + j;
        MPI_Win_unlock(target, win);
        check(ok, "transpose", "the target does not hold the transposed matrix");
    }
    report("transpose", sec, 0);
    MPI_Type_free(&column);
    MPI_Type_free(&x.t);
    free(x.a);
    MPI_Win_free(&win);
}

/* ---- subarray -------------------------------------------------------------------- */

struct subarray {
    int n;
    double *a;
    MPI_Datatype t;
};

static void subarray_body(MPI_Win win, void *arg)
{
    struct subarray *x = arg;
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, target, 0, win);
    MPI_Accumulate(x->a, x->n * x->n, MPI_DOUBLE, target, 0, 1, x->t, MPI_SUM, win);
    MPI_Win_unlock(target, win);
}

static void subarray(void)
{
    int n = size ? size : 512, full = 2 * n;
    size_t elems = (size_t)full * full;
    double *mem;
    MPI_Win win = target_window(elems * sizeof(double), sizeof(double), &mem);
    struct subarray x = {n, malloc((size_t)n * n * sizeof(double)), MPI_DATATYPE_NULL};
    for (size_t i = 0; i < (size_t)n * n; i++)
        x.a[i] = (double)(i % 777);
    int sizes[2] = {full, full}, sub[2] = {n, n}, starts[2] = {n / 2, n / 2};
    MPI_Type_create_subarray(2, sizes, sub, starts, MPI_ORDER_C, MPI_DOUBLE, &x.t);
    MPI_Type_commit(&x.t);
    double sec = median(subarray_body, win, &x);
    if (rank == target) {
        MPI_Win_lock(MPI_LOCK_SHARED, target, 0, win);
        int ok = 1;
        for (int i = 0; i < full; i++)
            for (int j = 0; j < full; j++) {
                int in = i >= n / 2 && i < n / 2 + n && j >= n / 2 && j < n / 2 + n;
                double want = in ? (double)(((size_t)(i - n / 2) * n + (size_t)(j - n / 2)) % 777) * repeat : 0;
                ok &= mem[(size_t)i * full + j] == want;
            }
        MPI_Win_unlock(target, win);
        check(ok, "subarray", "the target does not hold the sum in the subarray");
    }
    report("subarray", sec, 0);
    MPI_Type_free(&x.t);
    free(x.a);
    MPI_Win_free(&win);
}

/* ---- noncontiguous against contiguous ------------------------------------------------- */

#define NC_BYTES (4 << 20)

struct strided {
    int acc;
    int count;       /* elements (ints) of the origin, contiguous */
    int *a;
    MPI_Datatype t;  /* the target layout: MPI_INT x count, in blocks */
};

static void strided_body(MPI_Win win, void *arg)
{
    struct strided *x = arg;
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, target, 0, win);
    if (x->acc)
        MPI_Accumulate(x->a, x->count, MPI_INT, target, 0, 1, x->t, MPI_SUM, win);
    else
        MPI_Put(x->a, x->count, MPI_INT, target, 0, 1, x->t, win);
    MPI_Win_unlock(target, win);
}

/* block 0: contiguous.  Returns the seconds; checks the target's bytes. */
static double strided(int acc, int block, MPI_Win win, int *mem)
{
    int count = NC_BYTES / (int)sizeof(int);
    struct strided x = {acc, count, malloc(NC_BYTES), MPI_DATATYPE_NULL};
    for (int i = 0; i < count; i++)
        x.a[i] = i + 1;
    int per = block ? block / (int)sizeof(int) : count;
    if (block)
        MPI_Type_vector(count / per, per, 2 * per, MPI_INT, &x.t);
    else
        MPI_Type_contiguous(count, MPI_INT, &x.t);
    MPI_Type_commit(&x.t);
    if (rank == target)
        memset(mem, 0, 2 * NC_BYTES);
    MPI_Barrier(MPI_COMM_WORLD);
    double sec = median(strided_body, win, &x);
    if (rank == target) {
        MPI_Win_lock(MPI_LOCK_SHARED, target, 0, win);
        int ok = 1;
        for (int i = 0; i < count; i++)
            ok &= mem[(size_t)(i / per) * (block ? 2 * per : per) + i % per] == (i + 1) * (acc ? repeat : 1);
        MPI_Win_unlock(target, win);
        char name[32];
        snprintf(name, sizeof name, "%s_%d", acc ? "acc" : "put", block);
        check(ok, name, "the target does not hold the data in its blocks");
    }
    MPI_Type_free(&x.t);
    free(x.a);
    return sec;
}

static void noncontig(int acc)
{
    int *mem;
    MPI_Win win = target_window(2 * NC_BYTES, sizeof(int), &mem);
    double contig = strided(acc, 0, win, mem);
    report(acc ? "acc_contig" : "put_contig", contig, 0);
    int blocks[] = {4, 64, 4096};
    for (int b = 0; b < 3; b++) {
        char name[32];
        snprintf(name, sizeof name, "%s_%d", acc ? "acc" : "put", blocks[b]);
        report(name, strided(acc, blocks[b], win, mem), contig);
    }
    MPI_Win_free(&win);
}

static void put_nc(void) { noncontig(0); }
static void acc_nc(void) { noncontig(1); }

static const struct {
    const char *name;
    void (*run)(void);
} tests[] = {
    {"acc_rows", acc_rows}, {"transpose", transpose}, {"subarray", subarray}, {"put_nc", put_nc}, {"acc_nc", acc_nc},
};

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    target = nprocs - 1;
    const char *chosen[16];
    int nchosen = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--repeat") && i + 1 < argc)
            repeat = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--size") && i + 1 < argc)
            size = atoi(argv[++i]);
        else if (argv[i][0] != '-' && nchosen < 16)
            chosen[nchosen++] = argv[i];
        else {
            if (rank == 0)
                fprintf(stderr, "usage: rma_bulk [--repeat R] [--size N] [acc_rows|transpose|subarray|put_nc|acc_nc ...]\n");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    if (nprocs < 2 || repeat < 1 || size < 0) {
        if (rank == 0)
            fprintf(stderr, "rma_bulk: needs 2 ranks and positive counts\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (int c = 0; c < nchosen; c++) { /* a name that is no test is a mistake, not an empty run */
        int known = 0;
        for (size_t k = 0; k < sizeof tests / sizeof *tests; k++)
            known |= !strcmp(chosen[c], tests[k].name);
        if (!known) {
            if (rank == 0)
                fprintf(stderr, "rma_bulk: no test %s (acc_rows|transpose|subarray|put_nc|acc_nc)\n", chosen[c]);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    for (size_t k = 0; k < sizeof tests / sizeof *tests; k++) {
        int want = nchosen == 0;
        for (int c = 0; c < nchosen; c++)
            want |= !strcmp(chosen[c], tests[k].name);
        if (want)
            tests[k].run();
    }
    int all;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    return all != 0;
}
