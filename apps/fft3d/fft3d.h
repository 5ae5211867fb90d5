/* fft3d's pieces (main.c describes the motif): the grid and its two slab
 * decompositions, the FFTW steps both modes share, the modes, the input and
 * the reference the results are checked against.
 *
 * Layouts (x fastest, then y, then z; rank r of p):
 *   z-slab (the input, step 1):   [zl][y][x],  z = r * nzp + zl
 *   y-slab (the result, step 3):  [z][yl][x],  y = r * nyp + yl
 * Both hold local = NX * NY * NZ / p elements; a z-slab is a contiguous range
 * of the global array [z][y][x], a y-slab is not. */
#ifndef FFT3D_H
#define FFT3D_H

#include <complex.h> /* before fftw3.h: fftw_complex is then double complex */
#include <fftw3.h>
#include <mpi.h>
#include <stddef.h>

#include "check.h"
#include "motif.h"

struct fft3d {
    MPI_Comm comm;
    int rank, size;
    int nx, ny, nz;       /* the global grid */
    int nzp, nyp;         /* z-planes per rank before the transpose, y-planes after */
    size_t plane;         /* nx * ny: one z-plane */
    size_t local;         /* nx * ny * nz / size: a rank's elements in either slab */
    unsigned planner;     /* FFTW_ESTIMATE or FFTW_MEASURE */
    fftw_complex *planes; /* [nzp][ny][nx]: the 2D FFTs of my z-planes (step 1's output) */
    fftw_plan plane_fft;  /* one z-plane of an input z-slab -> the same plane of planes */
};

/* the geometry and step 1's plan; n = {NX, NY, NZ}, NY and NZ multiples of the size of comm */
void fft3d_init(struct fft3d *f, MPI_Comm comm, const int n[3], unsigned planner);
void fft3d_free(struct fft3d *f);
/* count elements from fftw_malloc (aligned for FFTW); aborts when out of memory */
fftw_complex *fft3d_alloc(size_t count);
/* step 1 for one plane: f->planes[zl] = 2D FFT over (y, x) of input[zl] (input is preserved) */
void fft3d_plane(const struct fft3d *f, fftw_complex *input, int zl);
/* step 3's plan: out = the 1D FFTs along z of the y-slab in (both [z][yl][x]) */
fftw_plan fft3d_plan_z(const struct fft3d *f, fftw_complex *in, fftw_complex *out);

/* A mode: create (collective) makes its buffers and plans, writing its
 * results to result (a y-slab); transform does one forward 3D FFT of the
 * z-slab input, adding the time of its phases to t; destroy is collective. */
struct mode {
    const char *name;
    void *(*create)(const struct fft3d *f, fftw_complex *result);
    void (*transform)(void *state, fftw_complex *input, struct motif_times *t);
    void (*destroy)(void *state);
};
extern const struct mode twosided_mode; /* twosided.c */
extern const struct mode rma_mode;      /* rma.c */

/* field.c: the input field (a function of the global index only) and the
 * serial reference transform */
void field_input(const struct fft3d *f, fftw_complex *zslab);

struct reference {
    fftw_complex *expected; /* my y-slab of the serial 3D FFT of the input */
    double largest;         /* max |X| over the whole transform: the scale of the error */
};
void reference_compute(const struct fft3d *f, struct reference *ref); /* collective */
void reference_free(struct reference *ref);
/* result (my y-slab) against factor * expected; on a mismatch prints on
 * stderr what is wrong (rank, mode, transform k, element) and returns 0 */
int reference_check(const struct fft3d *f, const struct reference *ref, const fftw_complex *result,
                    double complex factor, const char *mode, int k);

#endif
