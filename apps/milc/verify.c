/* --verify: the serial reference and the checks of a mode's solution.
 *
 * Rank 0 builds the whole lattice alone (no halo: the hops wrap around
 * locally), with the links and b regenerated from global site indices, and
 * runs the same CG on it; it also checks what the parallel runs take for
 * granted: the links are SU(3), D is anti-Hermitian (so that m^2 - D D is
 * Hermitian positive definite), and the serial solution's true residual
 * |b - A x| / |b| decreased and matches CG's recursive one.  The serial
 * solution is broadcast; every rank compares its block with it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "milc.h"

static const double max_relative_error = 1e-10;

static double complex inner(int n, const su3_vector *a, const su3_vector *b) /* <a, b> */
{
    double complex sum = 0.0;
    for (int s = 0; s < n; s++)
        for (int c = 0; c < NCOLOR; c++)
            sum += conj(a[s].c[c]) * b[s].c[c];
    return sum;
}

static void random_vector(int n, uint64_t seed, su3_vector *v)
{
    for (int s = 0; s < n; s++)
        for (int c = 0; c < NCOLOR; c++) {
            double re = random_uniform(&seed);
            v[s].c[c] = re + I * random_uniform(&seed);
        }
}

static int fail(const char *what, double value, double limit)
{
    fprintf(stderr, "milc: rank 0: serial reference: %s is %.3e (limit %.1e)\n", what, value, limit);
    return 0;
}

/* the checks of the serial problem itself; returns 1 when they pass */
static int check_serial(const struct dslash *op, double mass, const su3_vector *b, const su3_vector *x,
                        const struct cg_result *cg)
{
    const int n = op->lat->volume;
    double worst = 0.0;
    for (int s = 0; s < n; s++)
        for (int mu = 0; mu < NDIM; mu++)
            worst = fmax(worst, su3_defect(&op->links[s][mu]));
    if (worst > 1e-12)
        return fail("the links' distance from SU(3)", worst, 1e-12);

    su3_vector *u = malloc(sizeof *u * (size_t)n), *v = malloc(sizeof *v * (size_t)n);
    su3_vector *du = malloc(sizeof *u * (size_t)n), *dv = malloc(sizeof *v * (size_t)n);
    random_vector(n, 1, u);
    random_vector(n, 2, v);
    dslash(op, u, du);
    dslash(op, v, dv);
    /* anti-Hermitian: <u, D v> = -conj(<v, D u>) */
    const double skew = cabs(inner(n, u, dv) + conj(inner(n, v, du))) /
                        sqrt(creal(inner(n, u, u)) * creal(inner(n, dv, dv)));
    /* true residual: du = A x, then du = b - A x */
    cg_operator(op, mass, x, dv, du);
    for (int s = 0; s < n; s++)
        for (int c = 0; c < NCOLOR; c++)
            du[s].c[c] = b[s].c[c] - du[s].c[c];
    const double residual = sqrt(creal(inner(n, du, du)) / creal(inner(n, b, b)));
    free(u);
    free(v);
    free(du);
    free(dv);
    if (!(skew < 1e-12))
        return fail("|<u, D v> + conj(<v, D u>)| / (|u| |D v|)", skew, 1e-12);
    if (!(residual < 1.0))
        return fail("the true residual |b - A x| / |b| (it did not decrease)", residual, 1.0);
    if (!(fabs(residual - cg->residual) < 1e-8))
        return fail("the difference of the true and the recursive residual", fabs(residual - cg->residual), 1e-8);
    return 1;
}

void reference_solve(const struct lattice *lat, double mass, int iterations, double tolerance,
                     struct reference *ref)
{
    ref->volume = 1;
    for (int mu = 0; mu < NDIM; mu++)
        ref->volume *= lat->global[mu];
    ref->x = malloc(sizeof(su3_vector) * (size_t)ref->volume);
    int summary[2]; /* iterations, checks passed */
    if (lat->rank == 0) {
        static const int one[NDIM] = {1, 1, 1, 1};
        struct lattice whole;
        lattice_init(&whole, MPI_COMM_SELF, lat->global, one, 0);
        su3_matrix(*links)[NDIM] = malloc(sizeof *links * (size_t)whole.volume);
        su3_vector *b = malloc(sizeof *b * (size_t)whole.volume);
        lattice_links(&whole, links);
        lattice_source(&whole, b);
        struct motif_times ignored = {0};
        const struct dslash op = {&whole, (const su3_matrix(*)[NDIM])links, NULL, &ignored};
        cg_solve(&op, mass, b, ref->x, iterations, tolerance, &ref->cg);
        summary[0] = ref->cg.iterations;
        summary[1] = check_serial(&op, mass, b, ref->x, &ref->cg);
        free(links);
        free(b);
        lattice_free(&whole);
    }
    APP_CHECK(MPI_Bcast(summary, 2, MPI_INT, 0, lat->comm));
    APP_CHECK(MPI_Bcast(&ref->cg.residual, 1, MPI_DOUBLE, 0, lat->comm));
    APP_CHECK(MPI_Bcast(ref->x, (int)(ref->volume * 2 * NCOLOR), MPI_DOUBLE, 0, lat->comm));
    ref->cg.iterations = summary[0];
    ref->ok = summary[1];
}

void reference_free(struct reference *ref)
{
    free(ref->x);
}

int verify_solution(const struct lattice *lat, const char *mode, const struct reference *ref,
                    const su3_vector *x, const struct cg_result *cg)
{
    if (!ref->ok) {
        fprintf(stderr, "milc: rank %d mode=%s: no reference: the serial problem failed its checks\n", lat->rank,
                mode);
        return 0;
    }
    if (cg->iterations != ref->cg.iterations) {
        fprintf(stderr, "milc: rank %d mode=%s: %d CG iterations, the serial CG took %d\n", lat->rank, mode,
                cg->iterations, ref->cg.iterations);
        return 0;
    }
    double diff = 0.0, norm = 0.0, worst = 0.0;
    int worst_site = 0;
    for (int s = 0; s < lat->volume; s++) {
        const su3_vector *want = &ref->x[lattice_global_index(lat, s)];
        double d = 0.0;
        for (int c = 0; c < NCOLOR; c++) {
            d += pow(cabs(x[s].c[c] - want->c[c]), 2);
            norm += pow(cabs(want->c[c]), 2);
        }
        diff += d;
        if (d > worst) {
            worst = d;
            worst_site = s;
        }
    }
    const double error = sqrt(diff / norm);
    if (!(error < max_relative_error)) {
        fprintf(stderr,
                "milc: rank %d mode=%s: the solution differs from the serial CG's: relative error %.3e (limit "
                "%.0e), largest at global site %lld\n",
                lat->rank, mode, error, max_relative_error, (long long)lattice_global_index(lat, worst_site));
        return 0;
    }
    if (!(cg->residual < 1.0)) {
        fprintf(stderr, "milc: rank %d mode=%s: the residual did not decrease: |r|/|b| = %.3e\n", lat->rank, mode,
                cg->residual);
        return 0;
    }
    return 1;
}
