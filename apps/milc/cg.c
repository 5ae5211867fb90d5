/* Conjugate gradient on (m^2 - D D) x = b.  D is anti-Hermitian, so
 * m^2 - D D = m^2 + D^dagger D is Hermitian positive definite, and the CG's
 * inner products <p, A p> and <r, r> are real: a colour vector is handled
 * as 6 doubles per site.  Phases: the two Dslashes of every iteration
 * (dslash_comm, dslash_compute), the inner products with their MPI_Allreduce
 * (reductions) and the vector updates (vector). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "milc.h"

static int doubles(const struct lattice *lat)
{
    return lat->volume * 2 * NCOLOR;
}

/* The inner products are summed in double-double (a sum and its rounding
 * error, Knuth's TwoSum), locally and in the MPI_Allreduce (a user operation
 * on pairs): the sum of the same products then rounds to the same double
 * whatever the decomposition and the order of the reduction, and the
 * parallel CG follows the serial one of --verify bit for bit instead of
 * drifting away by ~1e-9 within 200 iterations (measured with plain sums). */
struct sum {
    double hi, lo;
};

static void add(struct sum *s, double term)
{
    const double hi = s->hi + term, back = hi - term;
    s->lo += (s->hi - back) + (term - (hi - back));
    s->hi = hi;
}

static void reduce_sums(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    const struct sum *a = in;
    struct sum *b = inout;
    for (int i = 0; i < *len; i++) {
        const double lo = b[i].lo + a[i].lo;
        b[i].lo = 0.0;
        add(&b[i], a[i].hi);
        b[i].lo += lo;
    }
}

/* the MPI datatype and operation of the double-double sums */
struct summation {
    MPI_Datatype pair;
    MPI_Op op;
};

/* Re <a, b> over the whole lattice */
static double dot(const struct dslash *op, const struct summation *sum, const su3_vector *a, const su3_vector *b)
{
    double t0 = MPI_Wtime();
    const double *x = (const double *)a, *y = (const double *)b;
    struct sum local = {0.0, 0.0}, total;
    for (int i = 0; i < doubles(op->lat); i++)
        add(&local, x[i] * y[i]);
    APP_CHECK(MPI_Allreduce(&local, &total, 1, sum->pair, sum->op, op->lat->comm));
    motif_phase(op->times, "reductions", MPI_Wtime() - t0);
    return total.hi + total.lo;
}

/* y = a x + b y */
static void axpby(const struct dslash *op, double a, const su3_vector *x, double b, su3_vector *y)
{
    double t0 = MPI_Wtime();
    const double *xs = (const double *)x;
    double *ys = (double *)y;
    for (int i = 0; i < doubles(op->lat); i++)
        ys[i] = a * xs[i] + b * ys[i];
    motif_phase(op->times, "vector", MPI_Wtime() - t0);
}

void cg_operator(const struct dslash *op, double mass, const su3_vector *in, su3_vector *tmp, su3_vector *out)
{
    dslash(op, in, tmp);
    dslash(op, tmp, out);
    axpby(op, mass * mass, in, -1.0, out);
}

void cg_solve(const struct dslash *op, double mass, const su3_vector *b, su3_vector *x, int max_iterations,
              double tolerance, struct cg_result *res)
{
    const size_t bytes = sizeof(su3_vector) * (size_t)op->lat->volume;
    su3_vector *r = malloc(bytes), *p = malloc(bytes), *ap = malloc(bytes), *tmp = malloc(bytes);
    struct summation sum;
    APP_CHECK(MPI_Type_contiguous(2, MPI_DOUBLE, &sum.pair));
    APP_CHECK(MPI_Type_commit(&sum.pair));
    APP_CHECK(MPI_Op_create(reduce_sums, 1, &sum.op));
    memset(x, 0, bytes);
    memcpy(r, b, bytes);
    memcpy(p, b, bytes);
    const double bb = dot(op, &sum, b, b);
    double rr = bb;
    int k = 0;
    for (; k < max_iterations && !(tolerance > 0 && sqrt(rr / bb) <= tolerance); k++) {
        cg_operator(op, mass, p, tmp, ap);
        const double alpha = rr / dot(op, &sum, p, ap);
        axpby(op, alpha, p, 1.0, x);
        axpby(op, -alpha, ap, 1.0, r);
        const double rr_next = dot(op, &sum, r, r);
        axpby(op, 1.0, r, rr_next / rr, p);
        rr = rr_next;
    }
    res->iterations = k;
    res->residual = sqrt(rr / bb);
    free(r);
    free(p);
    free(ap);
    free(tmp);
    APP_CHECK(MPI_Type_free(&sum.pair));
    APP_CHECK(MPI_Op_free(&sum.op));
}
