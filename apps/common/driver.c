/* The mini-apps' driver: CG on the app's A x = b (struct problem), with the
 * halo exchange of the search direction two-sided or one-sided.  Weak
 * scaling: --n gives the cells per rank.
 *
 *   APP [--mode twosided|rma] [--n NX[,NY,NZ]] [--max-iter N] [--tol T]
 *       [--threads T] [--verify] [--serial-check]
 *
 * --threads: RMA mode's communication threads (default one per neighbour).
 * --verify: run both modes; their solutions must agree bit for bit (the
 *   halo exchange moves the same values; the arithmetic is the same).
 * --serial-check: rank 0 also solves the global problem alone; every rank's
 *   block must agree with it within 1e-8 (only the summation order of the
 *   dot products differs).
 * Output (rank 0): a line per solve with the iterations, the relative
 * residual, the error against the exact solution where the app knows it, and
 * the time of the setup and of each CG phase (the maximum over the ranks).
 * Exit status 0 only if every solve converged (relative residual below
 * --tol) and every requested check passed. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"

struct options {
    const struct problem *pb;
    int n[3], max_iter, threads, verify, serial_check;
    enum halo_mode mode;
    double tol;
};

enum { SETUP, HALO, SPMV, DOT, WAXPBY, NPHASE };
static const char *const phase_name[NPHASE] = {"setup", "halo", "spmv", "dot", "waxpby"};

struct result {
    int iterations;
    double relres, time, phase[NPHASE];
};

/* sum over the ranks of a . b; a is ghosted when a_ghosted */
static double dot(const struct grid *gr, const double *a, int a_ghosted, const double *b)
{
    double local = 0.0, global;
    int64_t m = 0;
    for (int k = 0; k < gr->n[2]; k++)
        for (int j = 0; j < gr->n[1]; j++) {
            const double *row = a_ghosted ? a + grid_at(gr, 0, j, k) : a + m;
            for (int i = 0; i < gr->n[0]; i++, m++)
                local += row[i] * b[m];
        }
    MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, gr->comm);
    return global;
}

/* p (ghosted) = r + beta p;  x += alpha p;  r -= alpha ap */
static void direction(const struct grid *gr, const double *r, double beta, double *p)
{
    int64_t m = 0;
    for (int k = 0; k < gr->n[2]; k++)
        for (int j = 0; j < gr->n[1]; j++) {
            double *row = p + grid_at(gr, 0, j, k);
            for (int i = 0; i < gr->n[0]; i++, m++)
                row[i] = r[m] + beta * row[i];
        }
}

static void step(const struct grid *gr, double alpha, const double *p, const double *ap, double *x, double *r)
{
    int64_t m = 0;
    for (int k = 0; k < gr->n[2]; k++)
        for (int j = 0; j < gr->n[1]; j++) {
            const double *row = p + grid_at(gr, 0, j, k);
            for (int i = 0; i < gr->n[0]; i++, m++) {
                x[m] += alpha * row[i];
                r[m] -= alpha * ap[m];
            }
        }
}

static void cg(const struct grid *gr, struct halo *h, const struct options *o, double *x, struct result *res)
{
    const size_t n = (size_t)grid_cells(gr);
    double *r = malloc(sizeof(double) * n), *ap = malloc(sizeof(double) * n),
           *p = calloc((size_t)grid_ghosted(gr), sizeof(double));
    memset(res, 0, sizeof *res);
    memset(x, 0, sizeof(double) * n);
    MPI_Barrier(gr->comm);
    double start = MPI_Wtime();
    void *op = o->pb->setup(gr, r); /* r = b - A 0 */
    res->phase[SETUP] = MPI_Wtime() - start;
    double rtrans = dot(gr, r, 0, r), norm0 = sqrt(rtrans), oldrtrans = 1.0;
    res->relres = norm0 > 0 ? 1.0 : 0.0;
    for (int it = 1; it <= o->max_iter && res->relres > o->tol; it++) {
        double t0 = MPI_Wtime();
        direction(gr, r, it == 1 ? 0.0 : rtrans / oldrtrans, p);
        double t1 = MPI_Wtime();
        halo_exchange(h, p);
        double t2 = MPI_Wtime();
        o->pb->apply(op, gr, p, ap);
        double t3 = MPI_Wtime();
        double alpha = rtrans / dot(gr, p, 1, ap);
        double t4 = MPI_Wtime();
        step(gr, alpha, p, ap, x, r);
        double t5 = MPI_Wtime();
        oldrtrans = rtrans;
        rtrans = dot(gr, r, 0, r);
        double t6 = MPI_Wtime();
        res->phase[WAXPBY] += (t1 - t0) + (t5 - t4);
        res->phase[HALO] += t2 - t1;
        res->phase[SPMV] += t3 - t2;
        res->phase[DOT] += (t4 - t3) + (t6 - t5);
        res->relres = sqrt(rtrans) / norm0;
        res->iterations = it;
    }
    res->time = MPI_Wtime() - start;
    o->pb->destroy(op);
    free(r);
    free(ap);
    free(p);
}

/* max |x - exact| over the ranks */
static double max_error(const struct grid *gr, const struct problem *pb, const double *x)
{
    double e = 0.0, global;
    int64_t m = 0;
    for (int k = 0; k < gr->n[2]; k++)
        for (int j = 0; j < gr->n[1]; j++)
            for (int i = 0; i < gr->n[0]; i++, m++)
                e = fmax(e, fabs(x[m] - pb->exact(gr, grid_global(gr, 0, i), grid_global(gr, 1, j),
                                                  grid_global(gr, 2, k))));
    MPI_Allreduce(&e, &global, 1, MPI_DOUBLE, MPI_MAX, gr->comm);
    return global;
}

static int solve(const struct grid *gr, const struct options *o, enum halo_mode mode, double *x)
{
    struct halo *h = halo_create(gr, mode, o->threads);
    struct result res, worst;
    cg(gr, h, o, x, &res);
    halo_free(h);
    MPI_Reduce(res.phase, worst.phase, NPHASE, MPI_DOUBLE, MPI_MAX, 0, gr->comm);
    MPI_Reduce(&res.time, &worst.time, 1, MPI_DOUBLE, MPI_MAX, 0, gr->comm);
    double local[2] = {0.0, -INFINITY}, sum_max[2]; /* checksum: sum and max of x */
    for (int64_t i = 0, n = grid_cells(gr); i < n; i++) {
        local[0] += x[i];
        local[1] = fmax(local[1], x[i]);
    }
    MPI_Reduce(&local[0], &sum_max[0], 1, MPI_DOUBLE, MPI_SUM, 0, gr->comm);
    MPI_Reduce(&local[1], &sum_max[1], 1, MPI_DOUBLE, MPI_MAX, 0, gr->comm);
    char err[32] = "n/a"; /* the error against the exact solution, where the app knows it */
    if (o->pb->exact)
        snprintf(err, sizeof err, "%.3e", max_error(gr, o->pb, x));
    int converged = res.relres <= o->tol;
    if (gr->rank == 0) {
        printf("%s mode=%s ranks=%d procs=%dx%dx%d local=%dx%dx%d threads=%d iterations=%d relres=%.3e "
               "error=%s sum=%.12e max=%.6e time=%.6f",
               o->pb->name, mode == HALO_TWOSIDED ? "twosided" : "rma", gr->size, gr->pdims[0], gr->pdims[1],
               gr->pdims[2], gr->n[0], gr->n[1], gr->n[2], halo_threads(gr, mode, o->threads), res.iterations,
               res.relres, err, sum_max[0], sum_max[1], worst.time);
        for (int i = 0; i < NPHASE; i++)
            printf(" %s=%.6f", phase_name[i], worst.phase[i]);
        printf("%s\n", converged ? "" : "  NOT CONVERGED");
    }
    return converged;
}

/* rank 0 solves the global problem alone and sends everyone the solution */
static int serial_check(const struct grid *gr, const struct options *o, const double *x)
{
    int64_t total = (int64_t)gr->gn[0] * gr->gn[1] * gr->gn[2];
    double *ref = malloc(sizeof(double) * (size_t)total);
    int ok = 1;
    if (gr->rank == 0) {
        struct grid whole;
        struct result res;
        grid_init(&whole, MPI_COMM_SELF, gr->gn);
        struct halo *h = halo_create(&whole, HALO_TWOSIDED, 1);
        cg(&whole, h, o, ref, &res);
        halo_free(h);
        MPI_Comm_free(&whole.comm);
        ok = res.relres <= o->tol;
    }
    MPI_Bcast(ref, (int)total, MPI_DOUBLE, 0, gr->comm);
    double diff = 0.0, global;
    int64_t m = 0;
    for (int k = 0; k < gr->n[2]; k++)
        for (int j = 0; j < gr->n[1]; j++)
            for (int i = 0; i < gr->n[0]; i++, m++) {
                int64_t gx = grid_global(gr, 0, i), gy = grid_global(gr, 1, j), gz = grid_global(gr, 2, k);
                diff = fmax(diff, fabs(x[m] - ref[(gz * gr->gn[1] + gy) * gr->gn[0] + gx]));
            }
    MPI_Allreduce(&diff, &global, 1, MPI_DOUBLE, MPI_MAX, gr->comm);
    MPI_Bcast(&ok, 1, MPI_INT, 0, gr->comm);
    ok = ok && global <= 1e-8;
    if (gr->rank == 0)
        printf("%s serial-check: max |x - x_serial| = %.3e (tolerance 1e-8)%s\n", o->pb->name, global,
               ok ? "" : "  FAILED");
    free(ref);
    return ok;
}

static void usage(const char *app, const char *msg)
{
    fprintf(stderr, "%s: %s\nusage: %s [--mode twosided|rma] [--n NX[,NY,NZ]] [--max-iter N] [--tol T] "
                    "[--threads T] [--verify] [--serial-check]\n", app, msg, app);
    exit(2);
}

static void parse(int argc, char **argv, const struct problem *pb, struct options *o)
{
    *o = (struct options){.pb = pb, .n = {16, 16, 16}, .max_iter = 500, .tol = 1e-10, .mode = pb->rma_mode};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--verify")) {
            o->verify = 1;
            continue;
        }
        if (!strcmp(a, "--serial-check")) {
            o->serial_check = 1;
            continue;
        }
        if (!v)
            usage(pb->name, "an option is missing its value");
        i++;
        if (!strcmp(a, "--mode")) {
            if (strcmp(v, "rma") && strcmp(v, "twosided"))
                usage(pb->name, "--mode is twosided or rma");
            o->mode = strcmp(v, "rma") ? HALO_TWOSIDED : pb->rma_mode;
        } else if (!strcmp(a, "--n")) {
            int k = sscanf(v, "%d,%d,%d", &o->n[0], &o->n[1], &o->n[2]);
            if (k == 1)
                o->n[1] = o->n[2] = o->n[0];
            if ((k != 1 && k != 3) || o->n[0] < 1 || o->n[1] < 1 || o->n[2] < 1)
                usage(pb->name, "--n is NX or NX,NY,NZ, each at least 1");
        } else if (!strcmp(a, "--max-iter")) {
            if ((o->max_iter = atoi(v)) < 1)
                usage(pb->name, "--max-iter must be at least 1");
        } else if (!strcmp(a, "--tol")) {
            if (!((o->tol = atof(v)) > 0))
                usage(pb->name, "--tol must be positive");
        } else if (!strcmp(a, "--threads")) {
            if ((o->threads = atoi(v)) < 1)
                usage(pb->name, "--threads must be at least 1");
        } else {
            usage(pb->name, "unknown option");
        }
    }
}

int app_main(int argc, char **argv, const struct problem *pb)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    struct options o;
    parse(argc, argv, pb, &o);
    if (provided < MPI_THREAD_MULTIPLE) {
        fprintf(stderr, "%s: the MPI library does not provide MPI_THREAD_MULTIPLE\n", pb->name);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    struct grid gr;
    grid_init(&gr, MPI_COMM_WORLD, o.n);
    size_t n = (size_t)grid_cells(&gr);
    double *x = malloc(sizeof(double) * n);
    int ok;
    if (o.verify) {
        double *x2 = malloc(sizeof(double) * n);
        ok = solve(&gr, &o, HALO_TWOSIDED, x2);
        ok &= solve(&gr, &o, pb->rma_mode, x);
        int same = memcmp(x, x2, sizeof(double) * n) == 0, all;
        MPI_Allreduce(&same, &all, 1, MPI_INT, MPI_LAND, gr.comm);
        if (gr.rank == 0)
            printf("%s verify: the two modes' solutions %s\n", pb->name, all ? "agree bit for bit" : "DIFFER");
        ok &= all;
        free(x2);
    } else {
        ok = solve(&gr, &o, o.mode, x);
    }
    if (o.serial_check)
        ok &= serial_check(&gr, &o, x);
    free(x);
    MPI_Comm_free(&gr.comm);
    MPI_Finalize();
    return ok ? 0 : 1;
}
