/* milc: foMPI's MILC motif (Gerstenberger et al., "Enabling highly-scalable
 * remote memory access programming with MPI-3 One Sided", section 4.4): the
 * conjugate gradient of MILC's staggered quarks on a 4D lattice with SU(3)
 * gauge links, its nearest-neighbour halo exchange written two ways.
 *
 * Problem: a periodic 4D lattice, decomposed over the process grid of
 * MPI_Dims_create(p, 4) (rank order as MPI_Cart_create's).  Every site x has
 * 4 links U_mu(x), random SU(3) matrices (Gram-Schmidt of two random rows,
 * the third the conjugate cross product: unitary, det 1), and a colour vector
 * (3 complex); links and the right-hand side b are generated from global site
 * indices, whatever the decomposition.  The operator is the staggered Dslash
 *   D psi(x) = 1/2 sum_mu eta_mu(x) [U_mu(x) psi(x+mu) - U_mu(x-mu)^dagger psi(x-mu)],
 * anti-Hermitian, and CG solves (m^2 - D D) x = b, Hermitian positive
 * definite, from x = 0.  An iteration is two Dslashes (each an exchange of 8
 * faces), two inner products (MPI_Allreduce) and three vector updates.  As in
 * MILC, the rank holding x - mu computes U_mu(x-mu)^dagger psi(x-mu) on its
 * high face and sends the product; no rank holds its neighbours' links
 * (dslash.c).
 *
 * Modes (halo.c has the protocols in full):
 *   twosided  per Dslash: MPI_Irecv of the 8 faces, pack, MPI_Isend of the 8
 *             faces, the interior sites are computed, MPI_Waitall, the
 *             boundary sites (MILC's nonblocking communication overlapped
 *             with local computation).
 *   rma       foMPI's scheme: the send buffers are in an MPI_Win_allocate
 *             window, doubled by step parity, with one counter per
 *             direction; one MPI_Win_lock_all epoch for the whole solve.  Per
 *             Dslash: pack into the window, MPI_Win_sync, MPI_Accumulate +1
 *             on each neighbour's counter for that direction and
 *             MPI_Win_flush_all; the interior sites; poll the own counters
 *             with MPI_Get_accumulate(MPI_NO_OP) until every neighbour packed
 *             this step, MPI_Get each face as soon as its counter shows it,
 *             MPI_Win_flush_all; the boundary sites.
 * Phases (each the maximum over the ranks): dslash_comm (packing and the
 * exchange), dslash_compute, reductions (the inner products and their
 * MPI_Allreduce), vector (the CG's vector updates); time= is their sum, the
 * whole solve.
 *
 *   milc [--mode twosided|rma|all] [--local LX,LY,LZ,LT | --lattice LX,LY,LZ,LT]
 *        [--mass M] [--iterations N] [--tolerance T] [--repeat R] [--verify] [--help]
 *
 * --local: the sites of each rank's block (default 4,4,4,8, foMPI's local
 *   lattice); the global lattice is local * process grid.
 * --lattice: the global lattice instead; it must divide by the process grid.
 * --mass: m (default 0.1).  --iterations: CG's steps (default 50, >= 1); with
 *   --tolerance T > 0, CG stops earlier once |r|/|b| <= T.
 * --mode: one mode, or all (default) one after the other in this process.
 * --repeat R: each mode solves R times (from x = 0); the reported phases are
 *   those of the solve of median time.
 * --verify: rank 0 solves the whole lattice alone with the same CG and no
 *   halo (verify.c), and checks that the links are SU(3), that D is
 *   anti-Hermitian, and that the true residual of the serial solution
 *   decreased and matches CG's.  Every mode must then take the same number of
 *   iterations, end with |r|/|b| < 1, and every rank's block of the solution
 *   must match the serial one within a relative 1e-10 (the arithmetic of
 *   Dslash is the same, and the inner products are summed in double-double,
 *   cg.c, so that the two agree bit for bit here).  A lost, duplicated,
 *   stale or corrupted face changes D and so the solution far beyond that.
 * Output (rank 0): a "# " line with the lattice, and per mode a "# " line
 * with CG's iterations and residual followed by the result line of
 * motif_report().  Exit status 1 when a check failed (stderr names the rank,
 * the mode and what is wrong), 2 for bad options. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "milc.h"

static const char *const mode_name[] = {[HALO_TWOSIDED] = "twosided", [HALO_RMA] = "rma"};
enum { NMODES = 2 };

struct options {
    int modes[NMODES], nmodes;
    int local[NDIM], lattice[NDIM], have_lattice;
    double mass, tolerance;
    int iterations, repeat, verify, help;
};

struct problem {
    struct lattice lat;
    su3_matrix (*links)[NDIM];
    su3_vector *b, *x;
};

static const char usage[] =
    "usage: milc [--mode twosided|rma|all] [--local LX,LY,LZ,LT | --lattice LX,LY,LZ,LT]\n"
    "            [--mass M] [--iterations N] [--tolerance T] [--repeat R] [--verify]\n";

static int parse_sizes(const char *s, int v[NDIM])
{
    char end;
    return sscanf(s, "%d,%d,%d,%d%c", &v[0], &v[1], &v[2], &v[3], &end) == NDIM && v[0] > 0 && v[1] > 0 &&
           v[2] > 0 && v[3] > 0;
}

static int parse_mode(const char *s, struct options *o)
{
    o->nmodes = 0;
    for (int m = 0; m < NMODES; m++)
        if (strcmp(s, "all") == 0 || strcmp(s, mode_name[m]) == 0)
            o->modes[o->nmodes++] = m;
    return o->nmodes > 0;
}

/* 0 when the options are good */
static int parse_options(int argc, char **argv, struct options *o)
{
    static const struct option longopts[] = {
        {"mode", required_argument, NULL, 'm'},       {"local", required_argument, NULL, 'l'},
        {"lattice", required_argument, NULL, 'L'},    {"mass", required_argument, NULL, 'M'},
        {"iterations", required_argument, NULL, 'i'}, {"tolerance", required_argument, NULL, 't'},
        {"repeat", required_argument, NULL, 'r'},     {"verify", no_argument, NULL, 'v'},
        {"help", no_argument, NULL, 'h'},             {NULL, 0, NULL, 0}};
    *o = (struct options){.local = {4, 4, 4, 8}, .mass = 0.1, .iterations = 50, .repeat = 1};
    parse_mode("all", o);
    int c, ok = 1;
    while (ok && (c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case 'm': ok = parse_mode(optarg, o); break;
        case 'l': ok = parse_sizes(optarg, o->local); break;
        case 'L': ok = o->have_lattice = parse_sizes(optarg, o->lattice); break;
        case 'M': o->mass = atof(optarg); ok = o->mass > 0; break;
        case 'i': o->iterations = atoi(optarg); ok = o->iterations >= 1; break;
        case 't': o->tolerance = atof(optarg); ok = o->tolerance >= 0; break;
        case 'r': o->repeat = atoi(optarg); ok = o->repeat >= 1; break;
        case 'v': o->verify = 1; break;
        case 'h': o->help = 1; break;
        default: ok = 0;
        }
    }
    return !ok || optind != argc;
}

/* the process grid and my block; 0 when the lattice divides by the grid */
static int make_problem(const struct options *o, struct problem *pb)
{
    int size, rank, dims[NDIM] = {0}, local[NDIM];
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    APP_CHECK(MPI_Dims_create(size, NDIM, dims));
    for (int mu = 0; mu < NDIM; mu++) {
        local[mu] = o->have_lattice ? o->lattice[mu] / dims[mu] : o->local[mu];
        if (o->have_lattice && o->lattice[mu] % dims[mu] != 0) {
            if (rank == 0)
                fprintf(stderr, "milc: --lattice %d,%d,%d,%d does not divide by the process grid %dx%dx%dx%d\n",
                        o->lattice[0], o->lattice[1], o->lattice[2], o->lattice[3], dims[0], dims[1], dims[2],
                        dims[3]);
            return 1;
        }
    }
    lattice_init(&pb->lat, MPI_COMM_WORLD, local, dims, 1);
    const size_t sites = (size_t)pb->lat.volume;
    pb->links = malloc(sizeof *pb->links * sites);
    pb->b = malloc(sizeof *pb->b * sites);
    pb->x = malloc(sizeof *pb->x * sites);
    lattice_links(&pb->lat, pb->links);
    lattice_source(&pb->lat, pb->b);
    return 0;
}

static void free_problem(struct problem *pb)
{
    free(pb->links);
    free(pb->b);
    free(pb->x);
    lattice_free(&pb->lat);
}

/* one mode: R solves, the result line; returns 1 when a check failed */
static int run_mode(const struct options *o, struct problem *pb, enum halo_mode mode, const struct reference *ref)
{
    static const char *const phases[] = {"dslash_comm", "dslash_compute", "reductions", "vector"};
    struct motif_times *times = calloc((size_t)o->repeat, sizeof *times);
    struct cg_result cg;
    struct halo *halo = halo_create(&pb->lat, mode);
    for (int r = 0; r < o->repeat; r++) {
        for (size_t i = 0; i < sizeof phases / sizeof *phases; i++)
            motif_phase(&times[r], phases[i], 0.0); /* the same phases in the same order on every rank */
        const struct dslash op = {&pb->lat, (const su3_matrix(*)[NDIM])pb->links, halo, &times[r]};
        APP_CHECK(MPI_Barrier(MPI_COMM_WORLD));
        cg_solve(&op, o->mass, pb->b, pb->x, o->iterations, o->tolerance, &cg);
    }
    halo_free(halo);
    enum motif_verdict verdict = MOTIF_UNCHECKED;
    if (o->verify)
        verdict = verify_solution(&pb->lat, mode_name[mode], ref, pb->x, &cg) ? MOTIF_OK : MOTIF_FAILED;
    if (pb->lat.rank == 0)
        printf("# %s: %d CG iterations, residual |r|/|b| = %.6e\n", mode_name[mode], cg.iterations, cg.residual);
    const int median = motif_median_run(MPI_COMM_WORLD, times, o->repeat, NULL);
    int failed = motif_report(MPI_COMM_WORLD, "milc", mode_name[mode], &times[median], verdict);
    free(times);
    return failed;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    struct options o;
    const int bad = parse_options(argc, argv, &o);
    if (bad || o.help) {
        if (rank == 0)
            fputs(usage, bad ? stderr : stdout);
        MPI_Finalize();
        return bad ? 2 : 0;
    }
    struct problem pb;
    if (make_problem(&o, &pb)) {
        MPI_Finalize();
        return 2;
    }
    const struct lattice *lat = &pb.lat;
    if (rank == 0)
        printf("# milc lattice %dx%dx%dx%d, process grid %dx%dx%dx%d, block %dx%dx%dx%d, mass %g\n",
               lat->global[0], lat->global[1], lat->global[2], lat->global[3], lat->dims[0], lat->dims[1],
               lat->dims[2], lat->dims[3], lat->local[0], lat->local[1], lat->local[2], lat->local[3], o.mass);
    struct reference ref = {0};
    if (o.verify)
        reference_solve(lat, o.mass, o.iterations, o.tolerance, &ref);
    int failed = 0;
    for (int m = 0; m < o.nmodes; m++)
        failed |= run_mode(&o, &pb, (enum halo_mode)o.modes[m], &ref);
    if (o.verify)
        reference_free(&ref);
    free_problem(&pb);
    MPI_Finalize();
    return failed;
}
