/* The input field and the serial reference transform --verify compares with.
 *
 * Element g of the global array [z][y][x] (g = (z * NY + y) * NX + x) is a
 * complex number with parts uniform in [-1, 1), drawn from a splitmix64
 * stream seeded by g alone: every decomposition, and rank 0's serial copy,
 * gets the same field without any communication. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "fft3d.h"

static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static double uniform(uint64_t *state) /* [-1, 1) */
{
    return (double)(splitmix64(state) >> 11) * 0x1.0p-52 - 1.0;
}

/* out[i] = element first + i of the global field */
static void fill(size_t first, size_t count, fftw_complex *out)
{
    for (size_t i = 0; i < count; i++) {
        uint64_t state = (uint64_t)(first + i) * 0xD1B54A32D192ED03ull + 20230917u;
        double re = uniform(&state);
        out[i] = re + uniform(&state) * I; /* finite parts: no need for CMPLX (which clang lacks) */
    }
}

void field_input(const struct fft3d *f, fftw_complex *zslab)
{
    fill((size_t)f->rank * f->local, f->local, zslab); /* my z-planes are contiguous in [z][y][x] */
}

/* Rank 0 transforms the whole field with fftw_plan_dft_3d and scatters the
 * y-slabs: rank r gets, for every z, the rows y in [r * nyp, (r + 1) * nyp). */
void reference_compute(const struct fft3d *f, struct reference *ref)
{
    const size_t total = f->local * (size_t)f->size;
    fftw_complex *whole = NULL;
    ref->expected = fft3d_alloc(f->local);
    ref->largest = 0.0;
    if (f->rank == 0) {
        fftw_complex *field = fft3d_alloc(total);
        whole = fft3d_alloc(total);
        fftw_plan plan = fftw_plan_dft_3d(f->nz, f->ny, f->nx, field, whole, FFTW_FORWARD, FFTW_ESTIMATE);
        fill(0, total, field);
        fftw_execute(plan);
        fftw_destroy_plan(plan);
        fftw_free(field);
        for (size_t i = 0; i < total; i++)
            ref->largest = fmax(ref->largest, cabs(whole[i]));
    }
    MPI_Datatype rows, yslab; /* one y-slab in [z][y][x], extent nyp rows so rank r's starts at row r * nyp */
    APP_CHECK(MPI_Type_vector(f->nz, f->nyp * f->nx, f->ny * f->nx, MPI_C_DOUBLE_COMPLEX, &rows));
    APP_CHECK(MPI_Type_create_resized(rows, 0, (MPI_Aint)(sizeof(fftw_complex) * (size_t)(f->nyp * f->nx)), &yslab));
    APP_CHECK(MPI_Type_commit(&yslab));
    APP_CHECK(MPI_Scatter(whole, 1, yslab, ref->expected, (int)f->local, MPI_C_DOUBLE_COMPLEX, 0, f->comm));
    APP_CHECK(MPI_Bcast(&ref->largest, 1, MPI_DOUBLE, 0, f->comm));
    MPI_Type_free(&yslab);
    MPI_Type_free(&rows);
    fftw_free(whole);
}

void reference_free(struct reference *ref)
{
    fftw_free(ref->expected);
}

/* Error of an element: |result - factor * expected| / max |X|.  Both modes'
 * arithmetic differs from the serial transform only in rounding (~1e-15). */
int reference_check(const struct fft3d *f, const struct reference *ref, const fftw_complex *result,
                    double complex factor, const char *mode, int k)
{
    static const double tolerance = 1e-10;
    size_t bad = 0, worst = 0;
    double worst_error = -1.0;
    for (size_t i = 0; i < f->local; i++) {
        double error = cabs(result[i] - factor * ref->expected[i]) / ref->largest;
        if (!(error < tolerance)) /* NaN too */
            bad++;
        if (!(error <= worst_error)) {
            worst_error = error;
            worst = i;
        }
    }
    if (!bad)
        return 1;
    int z = (int)(worst / ((size_t)f->nyp * f->nx)), yl = (int)(worst / f->nx % f->nyp), x = (int)(worst % f->nx);
    double complex want = factor * ref->expected[worst];
    fprintf(stderr,
            "fft3d: rank %d, mode %s, transform %d: %zu of my %zu results are wrong; the worst, X(x=%d,y=%d,z=%d), "
            "is (%.17g, %.17g) instead of (%.17g, %.17g): error %.3e relative to max|X| = %.6e (tolerance %.0e)\n",
            f->rank, mode, k, bad, f->local, x, f->rank * f->nyp + yl, z, creal(result[worst]),
            cimag(result[worst]), creal(want), cimag(want), worst_error, ref->largest, tolerance);
    return 0;
}
