/* The slab decomposition and the two FFTW steps both modes share: the 2D
 * FFT of one z-plane (step 1) and the 1D FFTs along z of a y-slab (step 3). */
#include <stdio.h>
#include <stdlib.h>

#include "fft3d.h"

fftw_complex *fft3d_alloc(size_t count)
{
    fftw_complex *p = fftw_malloc(sizeof(fftw_complex) * count);
    if (!p) {
        fprintf(stderr, "fft3d: out of memory (%zu elements)\n", count);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return p;
}

static fftw_plan checked_plan(fftw_plan plan, const char *what)
{
    if (!plan) {
        fprintf(stderr, "fft3d: FFTW could not plan %s\n", what);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return plan;
}

void fft3d_init(struct fft3d *f, MPI_Comm comm, const int n[3], unsigned planner)
{
    f->comm = comm;
    MPI_Comm_rank(comm, &f->rank);
    MPI_Comm_size(comm, &f->size);
    f->nx = n[0];
    f->ny = n[1];
    f->nz = n[2];
    f->nzp = f->nz / f->size;
    f->nyp = f->ny / f->size;
    f->plane = (size_t)f->nx * (size_t)f->ny;
    f->local = f->plane * (size_t)f->nzp;
    f->planner = planner;
    f->planes = fft3d_alloc(f->local);
    /* planned on a scratch plane (FFTW_MEASURE overwrites its arrays); every
     * input plane later is as aligned (fftw_malloc, planes of 16-byte elements) */
    fftw_complex *scratch = fft3d_alloc(f->plane);
    f->plane_fft = checked_plan(fftw_plan_dft_2d(f->ny, f->nx, scratch, f->planes, FFTW_FORWARD, planner),
                                "the 2D FFT of a z-plane");
    fftw_free(scratch);
}

void fft3d_free(struct fft3d *f)
{
    fftw_destroy_plan(f->plane_fft);
    fftw_free(f->planes);
}

void fft3d_plane(const struct fft3d *f, fftw_complex *input, int zl)
{
    /* out of place complex DFTs leave their input alone (FFTW's default) */
    fftw_execute_dft(f->plane_fft, input + (size_t)zl * f->plane, f->planes + (size_t)zl * f->plane);
}

fftw_plan fft3d_plan_z(const struct fft3d *f, fftw_complex *in, fftw_complex *out)
{
    /* [z][yl][x]: nyp * nx transforms of length nz, stride nyp * nx, side by side */
    int n = f->nz, lines = f->nyp * f->nx;
    return checked_plan(fftw_plan_many_dft(1, &n, lines, in, NULL, lines, 1, out, NULL, lines, 1, FFTW_FORWARD,
                                           f->planner),
                        "the 1D FFTs along z");
}
