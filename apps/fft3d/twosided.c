/* --mode twosided: the MPI-1 transpose (NAS FT's): all 2D FFTs, then pack,
 * MPI_Alltoall, 1D FFTs.  Phases: fft2d, transpose (pack + MPI_Alltoall),
 * fft1d. */
#include <stdlib.h>
#include <string.h>

#include "fft3d.h"

struct twosided {
    const struct fft3d *f;
    fftw_complex *send; /* [t][zl][yl][x]: the rows of my planes that rank t owns after the transpose */
    fftw_complex *recv; /* [s][zl][yl][x] from rank s = [z][yl][x], z = s * nzp + zl: a y-slab as it is */
    fftw_plan z_fft;    /* recv -> result */
};

static void *twosided_create(const struct fft3d *f, fftw_complex *result)
{
    struct twosided *s = malloc(sizeof *s);
    s->f = f;
    s->send = fft3d_alloc(f->local);
    s->recv = fft3d_alloc(f->local);
    s->z_fft = fft3d_plan_z(f, s->recv, result);
    return s;
}

/* send[t][zl] = planes[zl], rows t * nyp ... (t + 1) * nyp - 1 */
static void pack(const struct fft3d *f, fftw_complex *send)
{
    const size_t piece = (size_t)f->nyp * f->nx;
    for (int t = 0; t < f->size; t++)
        for (int zl = 0; zl < f->nzp; zl++)
            memcpy(send + ((size_t)t * f->nzp + zl) * piece, f->planes + zl * f->plane + t * piece,
                   sizeof(fftw_complex) * piece);
}

static void twosided_transform(void *state, fftw_complex *input, struct motif_times *t)
{
    struct twosided *s = state;
    const struct fft3d *f = s->f;
    const int block = (int)(f->local / (size_t)f->size); /* what one rank sends another */
    double t0 = MPI_Wtime();
    for (int zl = 0; zl < f->nzp; zl++)
        fft3d_plane(f, input, zl);
    double t1 = MPI_Wtime();
    pack(f, s->send);
    APP_CHECK(MPI_Alltoall(s->send, block, MPI_C_DOUBLE_COMPLEX, s->recv, block, MPI_C_DOUBLE_COMPLEX, f->comm));
    double t2 = MPI_Wtime();
    fftw_execute(s->z_fft);
    double t3 = MPI_Wtime();
    motif_phase(t, "fft2d", t1 - t0);
    motif_phase(t, "transpose", t2 - t1);
    motif_phase(t, "fft1d", t3 - t2);
}

static void twosided_destroy(void *state)
{
    struct twosided *s = state;
    fftw_destroy_plan(s->z_fft);
    fftw_free(s->send);
    fftw_free(s->recv);
    free(s);
}

const struct mode twosided_mode = {"twosided", twosided_create, twosided_transform, twosided_destroy};
