/* minimd (minimd.h describes the model and the communication).
 *
 *   minimd [--mode twosided|rma] [--n CELLS[,CY,CZ]] [--steps N] [--verify] [--serial-check]
 *
 * --n: FCC unit cells per rank and axis (weak scaling; default 8, 2048 atoms
 *   per rank).
 * --verify: run both modes from the same start; every rank's atoms must end
 *   bit for bit the same (the communication moves the same values and the
 *   arithmetic is the same).
 * --serial-check: rank 0 also runs the whole system alone; the final kinetic
 *   and potential energies must agree within a relative 1e-9 (only the order
 *   of the force and energy sums differs).
 * Always: the total energy must be conserved within a relative 1e-2.  The
 *   potential is truncated at 2.5 without a shift, so a pair crossing the
 *   cut-off changes the energy by up to 0.016; while the lattice melts the
 *   drift is ~2e-3 over 100-400 steps.  Ghost forces not returned to their
 *   owners drift by ~1 in 100 steps (tried).
 * Output (rank 0): atoms, temperature, energies at the start and the end,
 *   and the time of each phase (maximum over the ranks).
 * Exit status 0 only if every check passed. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "minimd.h"

enum { REBUILD_EVERY = 20 };
static const double density = 0.8442, t_request = 1.44, dt = 0.005;

enum { FORCE, NEIGH, COMM, OTHER, NPHASE };
static const char *const phase_name[NPHASE] = {"force", "neigh", "comm", "other"};

struct result {
    int pdims[3];  /* the process grid */
    int64_t natoms;
    double ke0, pe0, ke, pe; /* per atom */
    double time, phase[NPHASE];
};

static double uniform(uint64_t *s) /* splitmix64: a stream per atom, whatever the decomposition */
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (double)(z >> 11) * 0x1.0p-53 - 0.5;
}

/* the FCC lattice sites in my box, velocities for temperature t_request and no net momentum */
static void create_atoms(const struct domain *d, const int cells[3], double lattice, struct atoms *a)
{
    static const double basis[4][3] = {{0, 0, 0}, {0.5, 0.5, 0}, {0.5, 0, 0.5}, {0, 0.5, 0.5}};
    int g[3], c0[3];
    for (int k = 0; k < 3; k++) {
        g[k] = cells[k] * d->pdims[k];
        c0[k] = cells[k] * d->pcoord[k];
    }
    atoms_grow(a, 4 * cells[0] * cells[1] * cells[2]);
    a->nlocal = 0;
    for (int cz = c0[2]; cz < c0[2] + cells[2]; cz++)
        for (int cy = c0[1]; cy < c0[1] + cells[1]; cy++)
            for (int cx = c0[0]; cx < c0[0] + cells[0]; cx++)
                for (int b = 0; b < 4; b++) {
                    int i = a->nlocal++;
                    const int c[3] = {cx, cy, cz};
                    a->id[i] = (((int64_t)cz * g[1] + cy) * g[0] + cx) * 4 + b;
                    uint64_t seed = (uint64_t)a->id[i] * 0x2545F4914F6CDD1Dull + 12345;
                    for (int k = 0; k < 3; k++) {
                        a->x[3 * i + k] = (c[k] + basis[b][k]) * lattice;
                        a->v[3 * i + k] = uniform(&seed);
                    }
                }
    double local[4] = {0, 0, 0, a->nlocal}, sum[4];
    for (int i = 0; i < a->nlocal; i++)
        for (int k = 0; k < 3; k++)
            local[k] += a->v[3 * i + k];
    MPI_Allreduce(local, sum, 4, MPI_DOUBLE, MPI_SUM, d->comm);
    double v2 = 0.0, v2sum;
    for (int i = 0; i < a->nlocal; i++)
        for (int k = 0; k < 3; k++) {
            a->v[3 * i + k] -= sum[k] / sum[3];
            v2 += a->v[3 * i + k] * a->v[3 * i + k];
        }
    MPI_Allreduce(&v2, &v2sum, 1, MPI_DOUBLE, MPI_SUM, d->comm);
    double scale = sqrt(t_request / (v2sum / (3 * sum[3] - 3)));
    for (int i = 0; i < 3 * a->nlocal; i++)
        a->v[i] *= scale;
}

/* kinetic and potential energy per atom */
static void energies(const struct domain *d, const struct atoms *a, double pe_local, int64_t natoms, double *ke,
                     double *pe)
{
    double local[2] = {0.0, pe_local}, sum[2];
    for (int i = 0; i < 3 * a->nlocal; i++)
        local[0] += 0.5 * a->v[i] * a->v[i];
    MPI_Allreduce(local, sum, 2, MPI_DOUBLE, MPI_SUM, d->comm);
    *ke = sum[0] / (double)natoms;
    *pe = sum[1] / (double)natoms;
}

static void simulate(MPI_Comm comm, const int cells[3], enum comm_mode mode, int steps, struct atoms *a,
                     struct result *res)
{
    struct domain d;
    struct neighbours nb = {0};
    const double lattice = pow(4.0 / density, 1.0 / 3.0);
    memset(res, 0, sizeof *res);
    comm_init(&d, comm, cells, lattice, mode);
    memcpy(res->pdims, d.pdims, sizeof d.pdims);
    create_atoms(&d, cells, lattice, a);
    int64_t nlocal = a->nlocal;
    MPI_Allreduce(&nlocal, &res->natoms, 1, MPI_INT64_T, MPI_SUM, d.comm);

    comm_borders(&d, a);
    neighbour_build(&d, a, &nb);
    double pe = force_compute(&d, a, &nb);
    comm_reverse(&d, a);
    energies(&d, a, pe, res->natoms, &res->ke0, &res->pe0);

    MPI_Barrier(d.comm);
    double start = MPI_Wtime();
    for (int step = 1; step <= steps; step++) {
        double t0 = MPI_Wtime();
        for (int i = 0; i < 3 * a->nlocal; i++) {
            a->v[i] += 0.5 * dt * a->f[i];
            a->x[i] += dt * a->v[i];
        }
        double t1 = MPI_Wtime(), t2;
        if (step % REBUILD_EVERY == 0) {
            comm_exchange(&d, a);
            comm_borders(&d, a);
            neighbour_build(&d, a, &nb);
            t2 = MPI_Wtime();
            res->phase[NEIGH] += t2 - t1;
        } else {
            comm_forward(&d, a);
            t2 = MPI_Wtime();
            res->phase[COMM] += t2 - t1;
        }
        pe = force_compute(&d, a, &nb);
        double t3 = MPI_Wtime();
        comm_reverse(&d, a);
        double t4 = MPI_Wtime();
        for (int i = 0; i < 3 * a->nlocal; i++)
            a->v[i] += 0.5 * dt * a->f[i];
        double t5 = MPI_Wtime();
        res->phase[FORCE] += t3 - t2;
        res->phase[COMM] += t4 - t3;
        res->phase[OTHER] += (t1 - t0) + (t5 - t4);
    }
    res->time = MPI_Wtime() - start;
    energies(&d, a, pe, res->natoms, &res->ke, &res->pe);
    neighbour_free(&nb);
    comm_free(&d);
}

static int run(const int cells[3], enum comm_mode mode, int steps, struct atoms *a, struct result *res)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    simulate(MPI_COMM_WORLD, cells, mode, steps, a, res);
    double worst[NPHASE + 1], mine[NPHASE + 1];
    memcpy(mine, res->phase, sizeof res->phase);
    mine[NPHASE] = res->time;
    MPI_Reduce(mine, worst, NPHASE + 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    double e0 = res->ke0 + res->pe0, e = res->ke + res->pe, drift = fabs(e - e0) / fabs(e0);
    int ok = drift <= 1e-2;
    if (rank == 0) {
        printf("minimd mode=%s ranks=%d procs=%dx%dx%d atoms=%lld steps=%d T0=%.6f T=%.6f pe0=%.9f pe=%.9f "
               "e0=%.9f e=%.9f drift=%.2e time=%.6f",
               mode == COMM_RMA ? "rma" : "twosided", size, res->pdims[0], res->pdims[1], res->pdims[2], (long long)res->natoms,
               steps, res->ke0 * 2 / 3 * res->natoms / (res->natoms - 1), res->ke * 2 / 3 * res->natoms / (res->natoms - 1),
               res->pe0, res->pe, e0, e, drift, worst[NPHASE]);
        for (int i = 0; i < NPHASE; i++)
            printf(" %s=%.6f", phase_name[i], worst[i]);
        printf("%s\n", ok ? "" : "  ENERGY NOT CONSERVED (tolerance 1e-2)");
    }
    return ok;
}

/* rank 0 runs the whole system alone; energies must agree */
static int serial_check(const int cells[3], int steps, const struct result *par)
{
    int rank, ok = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        const int *p = par->pdims, whole[3] = {cells[0] * p[0], cells[1] * p[1], cells[2] * p[2]};
        struct atoms a = {0};
        struct result ser;
        simulate(MPI_COMM_SELF, whole, COMM_TWOSIDED, steps, &a, &ser);
        double dke = fabs(ser.ke - par->ke) / fabs(ser.ke), dpe = fabs(ser.pe - par->pe) / fabs(ser.pe);
        ok = ser.natoms == par->natoms && dke <= 1e-9 && dpe <= 1e-9;
        printf("minimd serial-check: atoms %lld/%lld, relative difference ke %.2e pe %.2e (tolerance 1e-9)%s\n",
               (long long)ser.natoms, (long long)par->natoms, dke, dpe, ok ? "" : "  FAILED");
        free(a.x), free(a.v), free(a.f), free(a.id);
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return ok;
}

static void usage(const char *msg)
{
    fprintf(stderr, "minimd: %s\nusage: minimd [--mode twosided|rma] [--n CELLS[,CY,CZ]] [--steps N] [--verify] "
                    "[--serial-check]\n", msg);
    exit(2);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int cells[3] = {8, 8, 8}, steps = 100, verify = 0, serial = 0;
    enum comm_mode mode = COMM_RMA;
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(o, "--verify")) {
            verify = 1;
        } else if (!strcmp(o, "--serial-check")) {
            serial = 1;
        } else if (!v) {
            usage("an option is missing its value");
        } else if (i++, !strcmp(o, "--mode")) {
            if (strcmp(v, "rma") && strcmp(v, "twosided"))
                usage("--mode is twosided or rma");
            mode = strcmp(v, "rma") ? COMM_TWOSIDED : COMM_RMA;
        } else if (!strcmp(o, "--n")) {
            int k = sscanf(v, "%d,%d,%d", &cells[0], &cells[1], &cells[2]);
            if (k == 1)
                cells[1] = cells[2] = cells[0];
            if ((k != 1 && k != 3) || cells[0] < 1 || cells[1] < 1 || cells[2] < 1)
                usage("--n is CELLS or CX,CY,CZ, each at least 1");
        } else if (!strcmp(o, "--steps")) {
            if ((steps = atoi(v)) < 1)
                usage("--steps must be at least 1");
        } else {
            usage("unknown option");
        }
    }
    struct atoms a = {0};
    struct result res;
    int ok;
    if (verify) {
        struct atoms b = {0};
        struct result res2;
        ok = run(cells, COMM_TWOSIDED, steps, &b, &res2);
        ok &= run(cells, COMM_RMA, steps, &a, &res);
        int same = a.nlocal == b.nlocal && !memcmp(a.x, b.x, sizeof(double) * 3 * (size_t)a.nlocal) &&
                   !memcmp(a.v, b.v, sizeof(double) * 3 * (size_t)a.nlocal) &&
                   !memcmp(a.id, b.id, sizeof(int64_t) * (size_t)a.nlocal),
            all, rank;
        MPI_Allreduce(&same, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        if (rank == 0)
            printf("minimd verify: the two modes' atoms %s\n", all ? "agree bit for bit" : "DIFFER");
        ok &= all;
        free(b.x), free(b.v), free(b.f), free(b.id);
    } else {
        ok = run(cells, mode, steps, &a, &res);
    }
    if (serial)
        ok &= serial_check(cells, steps, &res);
    free(a.x), free(a.v), free(a.f), free(a.id);
    MPI_Finalize();
    return ok ? 0 : 1;
}
