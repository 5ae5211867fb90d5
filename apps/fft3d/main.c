/* fft3d: foMPI's 3D FFT motif (Gerstenberger et al., section 4.3, after the
 * NAS FT benchmark and its UPC slab version): a complex-to-complex forward
 * 3D FFT of an NX x NY x NZ grid with a slab decomposition over p ranks.
 *
 *   fft3d [--mode twosided|rma|all] [--n NX,NY,NZ] [--iterations I]
 *         [--repeat R] [--measure] [--verify]
 *
 * The grid is [z][y][x], x fastest.  Rank r starts with the z-planes
 * r * NZ/p ... (r + 1) * NZ/p - 1 of the input (a z-slab [zl][y][x]) and ends
 * with the y-rows r * NY/p ... (r + 1) * NY/p - 1 of the transform, all z and
 * all x (a y-slab [z][yl][x]).  A transform is
 *   1. the 2D FFT over (y, x) of each of my z-planes (FFTW, one plan made
 *      before the timing, executed plane by plane);
 *   2. the transpose: the rows y of every plane go to the owner of y;
 *   3. the 1D FFTs along z of my y-slab (FFTW, plan made before the timing).
 * The modes differ in step 2 (fft3d.h: the layouts; each mode's file: its
 * protocol in full):
 *   twosided (twosided.c): all of step 1, then pack the planes by destination
 *     and MPI_Alltoall; what arrives is already a y-slab (source s's block
 *     holds the planes z = s * NZ/p ...), so there is no unpack.  Phases
 *     fft2d, transpose (pack + Alltoall), fft1d.
 *   rma (rma.c): as soon as rank s's 2D FFT of plane z is done, s puts
 *     (MPI_Put) the rows t * NY/p ... of that plane, one contiguous piece, to
 *     [z][0][0] of rank t's receive window, for every t (itself too), and
 *     goes on with the next plane while they travel.  The window
 *     (MPI_Win_allocate) holds two y-slabs; transform k fills half k % 2, so
 *     the next transform's puts never hit a half its target still reads.
 *     One lock_all epoch for the whole run; per transform MPI_Win_flush_all
 *     (my puts are complete) + MPI_Barrier (everybody's are) + MPI_Win_sync
 *     (they are visible to my loads, separate or unified memory model), then
 *     the 1D FFTs read the half with plain loads.  No flag is polled.  Phases
 *     fft_planes (2D FFTs with the puts between them), sync, fft1d.
 * Each mode does one untimed warm-up transform (k = 0), then its timed ones
 * (k = 1, 2, ... over its repeats).  Transform k takes as input w^k * u0 with
 * w = exp(i): u0 is a pseudo-random field depending only on the global index
 * (field.c), and w^k, set outside the timing, makes every transform's data
 * differ from the ones before it, so that data left over from an earlier
 * transform is never mistaken for this one's.
 *
 * Options:
 *   --mode       twosided, rma or all (default: all, one after the other)
 *   --n          NX,NY,NZ (or N for a cube; default 64,64,64); NY and NZ must
 *                be multiples of the number of ranks
 *   --iterations forward transforms per timed run (default 3)
 *   --repeat     timed runs per mode (default 1); the result line gives the
 *                run of median time (motif_median_run)
 *   --measure    plan with FFTW_MEASURE (default FFTW_ESTIMATE)
 *   --verify     check every transform of every mode (below)
 * Output (rank 0): one line per mode (apps/common/motif.h), the time and
 * each phase summed over the iterations of the median run, each the maximum
 * over the ranks.
 *
 * --verify: rank 0 computes the serial 3D FFT of the whole input field with
 * fftw_plan_dft_3d and scatters its y-slabs (an MPI_Scatter, not the
 * communication being checked).  After every transform k (the warm-up too)
 * each rank compares every element of its y-slab with w^k times the
 * reference: |X - w^k X_ref| over max |X_ref| must be below 1e-10.  A lost,
 * misplaced, duplicated, stale or corrupted row shows as an O(1) error.  The
 * first failure of a mode on a rank is reported on stderr with the rank,
 * mode, transform and worst element (later transforms of that mode are not
 * checked); the result line then says verify=FAILED and the exit status is 1. */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fft3d.h"

struct options {
    int n[3], iterations, repeat, verify;
    unsigned planner;
    const char *mode; /* twosided, rma or all */
};

static const struct mode *const modes[] = {&twosided_mode, &rma_mode};
enum { NMODES = sizeof modes / sizeof modes[0] };

static const char usage[] = "usage: fft3d [--mode twosided|rma|all] [--n NX,NY,NZ] [--iterations I] [--repeat R] "
                            "[--measure] [--verify]\n";

/* NULL when the options are good, else what is wrong (maybe in buf) */
static const char *parse(int argc, char **argv, struct options *o, char *buf, size_t len)
{
    static const struct option longopts[] = {{"mode", required_argument, NULL, 'm'},
                                              {"n", required_argument, NULL, 'n'},
                                              {"iterations", required_argument, NULL, 'i'},
                                              {"repeat", required_argument, NULL, 'r'},
                                              {"measure", no_argument, NULL, 'M'},
                                              {"verify", no_argument, NULL, 'v'},
                                              {NULL, 0, NULL, 0}};
    *o = (struct options){.n = {64, 64, 64}, .iterations = 3, .repeat = 1, .planner = FFTW_ESTIMATE, .mode = "all"};
    opterr = 0;
    for (int c; (c = getopt_long(argc, argv, "", longopts, NULL)) != -1;) {
        switch (c) {
        case 'm':
            o->mode = optarg;
            if (strcmp(optarg, "all") && strcmp(optarg, "twosided") && strcmp(optarg, "rma"))
                return "--mode is twosided, rma or all";
            break;
        case 'n': {
            char extra;
            int k = sscanf(optarg, "%d,%d,%d%c", &o->n[0], &o->n[1], &o->n[2], &extra);
            if (k == 1)
                o->n[1] = o->n[2] = o->n[0];
            if ((k != 1 && k != 3) || o->n[0] < 1 || o->n[1] < 1 || o->n[2] < 1)
                return "--n is NX,NY,NZ or N, each at least 1";
            break;
        }
        case 'i':
            if ((o->iterations = atoi(optarg)) < 1)
                return "--iterations must be at least 1";
            break;
        case 'r':
            if ((o->repeat = atoi(optarg)) < 1)
                return "--repeat must be at least 1";
            break;
        case 'M':
            o->planner = FFTW_MEASURE;
            break;
        case 'v':
            o->verify = 1;
            break;
        default:
            snprintf(buf, len, "unknown option or missing value: %s", argv[optind - 1]);
            return buf;
        }
    }
    return optind < argc ? "unexpected argument" : NULL;
}

/* NULL when p ranks can decompose the grid, else why not (in buf) */
static const char *check_grid(const int n[3], int p, char *buf, size_t len)
{
    if (n[1] % p || n[2] % p)
        snprintf(buf, len, "--n %d,%d,%d at %d ranks: NY (%d) and NZ (%d) must be multiples of the number of ranks",
                 n[0], n[1], n[2], p, n[1], n[2]);
    else if ((double)n[0] * n[1] * n[2] / p > INT_MAX)
        snprintf(buf, len, "--n %d,%d,%d at %d ranks: more than %d elements per rank", n[0], n[1], n[2], p, INT_MAX);
    else
        return NULL;
    return buf;
}

/* transform k of mode m: input = w^k * u0 (outside the timing), the transform
 * (its phases added to t), and when ref is given the check of its result;
 * returns 0 if the check failed */
static int transform(const struct mode *m, void *state, const struct fft3d *f, int k, const fftw_complex *u0,
                     fftw_complex *input, const fftw_complex *result, const struct reference *ref,
                     struct motif_times *t)
{
    double complex w = cexp(I * k);
    for (size_t e = 0; e < f->local; e++)
        input[e] = w * u0[e];
    m->transform(state, input, t);
    return !ref || reference_check(f, ref, result, w, m->name, k);
}

/* one untimed transform (page faults, caches), the timed runs of one mode and
 * its result line; returns 1 if a check failed */
static int run_mode(const struct mode *m, const struct fft3d *f, const struct options *o, const fftw_complex *u0,
                    const struct reference *ref)
{
    fftw_complex *input = fft3d_alloc(f->local), *result = fft3d_alloc(f->local);
    struct motif_times *times = calloc((size_t)o->repeat + 1, sizeof *times), *warmup = &times[o->repeat];
    const struct reference *check = o->verify ? ref : NULL;
    void *state = m->create(f, result);
    int ok = transform(m, state, f, 0, u0, input, result, check, warmup);
    for (int r = 0; r < o->repeat; r++) {
        APP_CHECK(MPI_Barrier(f->comm));
        for (int i = 0; i < o->iterations; i++)
            ok &= transform(m, state, f, 1 + r * o->iterations + i, u0, input, result, ok ? check : NULL,
                            &times[r]);
    }
    m->destroy(state);
    enum motif_verdict verdict = !o->verify ? MOTIF_UNCHECKED : ok ? MOTIF_OK : MOTIF_FAILED;
    const int median = motif_median_run(f->comm, times, o->repeat, NULL);
    int failed = motif_report(f->comm, "fft3d", m->name, &times[median], verdict);
    free(times);
    fftw_free(result);
    fftw_free(input);
    return failed;
}

int main(int argc, char **argv)
{
    APP_CHECK(MPI_Init(&argc, &argv));
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    struct options o;
    char why[160];
    const char *bad = parse(argc, argv, &o, why, sizeof why); /* every rank sees the same arguments and size */
    if (!bad)
        bad = check_grid(o.n, size, why, sizeof why);
    if (bad) {
        if (rank == 0)
            fprintf(stderr, "fft3d: %s\n%s", bad, usage);
        MPI_Finalize();
        return 2;
    }
    struct fft3d f;
    fft3d_init(&f, MPI_COMM_WORLD, o.n, o.planner);
    fftw_complex *u0 = fft3d_alloc(f.local);
    field_input(&f, u0);
    struct reference ref = {0};
    if (o.verify)
        reference_compute(&f, &ref);
    int failed = 0;
    for (int i = 0; i < NMODES; i++)
        if (!strcmp(o.mode, "all") || !strcmp(o.mode, modes[i]->name))
            failed |= run_mode(modes[i], &f, &o, u0, &ref);
    if (o.verify)
        reference_free(&ref);
    fftw_free(u0);
    fft3d_free(&f);
    MPI_Finalize();
    return failed;
}
