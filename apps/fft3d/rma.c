/* --mode rma: foMPI's port of the UPC slab scheme.  The moment a z-plane's
 * 2D FFT is done, its rows go by MPI_Put straight to where their owners after
 * the transpose keep them, while the next plane is transformed; one
 * flush_all + barrier per transform completes them all.  Phases: fft_planes
 * (2D FFTs with the puts issued between them), sync (flush_all, barrier,
 * win_sync), fft1d.
 *
 * The window (MPI_Win_allocate) holds two y-slabs, halves 0 and 1, each
 * [z][yl][x]: transform k fills half k % 2.  Plane z of rank s is, for every
 * target t, the rows t * nyp ... (t + 1) * nyp - 1 of s's planes buffer: one
 * contiguous piece of nyp * nx elements, put at [z][0][0] of t's half (rank s
 * puts to itself too; targets in the order s + 1, s + 2, ..., s).
 *
 * Synchronization: a lock_all epoch (MPI_MODE_NOCHECK) is open from create to
 * destroy.  After its last put a rank calls MPI_Win_flush_all (its puts are
 * complete at the targets) and MPI_Barrier (so is everybody's), then
 * MPI_Win_sync (the public copy's contents become visible to its own loads:
 * the separate model's copy, a memory barrier in the unified one) and reads
 * its half with loads only (the 1D FFTs).  No flag is polled.
 * Reuse: my half h is written again in transform k + 2, by origins that have
 * passed the barrier of transform k + 1, which I enter only after my 1D FFTs
 * of transform k have read half h.  An origin's planes buffer is overwritten
 * by its next transform's 2D FFTs only after this one's flush_all. */
#include <stdlib.h>

#include "fft3d.h"

struct rma {
    const struct fft3d *f;
    MPI_Win win;
    fftw_complex *halves; /* the window: [2][z][yl][x] */
    fftw_plan z_fft[2];   /* halves[h] -> result */
    int next;             /* the half the next transform fills */
};

static void *rma_create(const struct fft3d *f, fftw_complex *result)
{
    struct rma *s = malloc(sizeof *s);
    s->f = f;
    s->next = 0;
    APP_CHECK(MPI_Win_allocate((MPI_Aint)(2 * f->local * sizeof(fftw_complex)), sizeof(fftw_complex),
                               MPI_INFO_NULL, f->comm, &s->halves, &s->win));
    for (int h = 0; h < 2; h++) /* FFTW_MEASURE writes into the halves: before anybody puts */
        s->z_fft[h] = fft3d_plan_z(f, s->halves + h * f->local, result);
    APP_CHECK(MPI_Win_lock_all(MPI_MODE_NOCHECK, s->win));
    APP_CHECK(MPI_Win_sync(s->win));
    APP_CHECK(MPI_Barrier(f->comm));
    return s;
}

static void rma_transform(void *state, fftw_complex *input, struct motif_times *t)
{
    struct rma *s = state;
    const struct fft3d *f = s->f;
    const int h = s->next, piece = f->nyp * f->nx;
    double t0 = MPI_Wtime();
    for (int zl = 0; zl < f->nzp; zl++) {
        fft3d_plane(f, input, zl);
        const fftw_complex *rows = f->planes + zl * f->plane;
        const MPI_Aint at = (MPI_Aint)h * (MPI_Aint)f->local + (MPI_Aint)(f->rank * f->nzp + zl) * piece;
        for (int j = 1; j <= f->size; j++) {
            int target = (f->rank + j) % f->size;
            APP_CHECK(MPI_Put(rows + (size_t)target * piece, piece, MPI_C_DOUBLE_COMPLEX, target, at, piece,
                              MPI_C_DOUBLE_COMPLEX, s->win));
        }
    }
    double t1 = MPI_Wtime();
    APP_CHECK(MPI_Win_flush_all(s->win));
    APP_CHECK(MPI_Barrier(f->comm));
    APP_CHECK(MPI_Win_sync(s->win));
    double t2 = MPI_Wtime();
    fftw_execute(s->z_fft[h]);
    double t3 = MPI_Wtime();
    s->next = 1 - h;
    motif_phase(t, "fft_planes", t1 - t0);
    motif_phase(t, "sync", t2 - t1);
    motif_phase(t, "fft1d", t3 - t2);
}

static void rma_destroy(void *state)
{
    struct rma *s = state;
    APP_CHECK(MPI_Win_unlock_all(s->win));
    for (int h = 0; h < 2; h++)
        fftw_destroy_plan(s->z_fft[h]);
    APP_CHECK(MPI_Win_free(&s->win));
    free(s);
}

const struct mode rma_mode = {"rma", rma_create, rma_transform, rma_destroy};
