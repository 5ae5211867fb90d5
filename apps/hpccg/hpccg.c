/* hpccg: conjugate gradient on a 27-point stencil over a 3D block
 * decomposition, after the design of Mantevo's HPCCG (written here from its
 * description): A has 27 on the diagonal and -1 for every neighbour cell
 * inside the global domain, applied matrix-free; b = A * ones, so the exact
 * solution is all ones.  The halo exchange of --mode rma is MPI_Put by one
 * thread per neighbour in a lock_all epoch with flush and a notification
 * counter (apps/common/halo.c); the options are the driver's
 * (apps/common/driver.c). */
#include <stddef.h>

#include "app.h"

/* b = A * (1, 1, ..., 1): the exact solution is all ones.  A cell has
 * prod_a(v_a) - 1 neighbours, v_a = 3 inside the domain on axis a, 2 on its
 * boundary (1 when the domain is one cell wide). */
static void *setup(const struct grid *gr, double *b)
{
    int64_t m = 0;
    for (int k = 0; k < gr->n[2]; k++)
        for (int j = 0; j < gr->n[1]; j++)
            for (int i = 0; i < gr->n[0]; i++) {
                int local[3] = {i, j, k}, prod = 1;
                for (int a = 0; a < 3; a++) {
                    int x = grid_global(gr, a, local[a]);
                    prod *= 1 + (x > 0) + (x < gr->gn[a] - 1);
                }
                b[m++] = 27.0 - (prod - 1);
            }
    return NULL; /* matrix-free: the operator needs no state */
}

/* y = A p; p is ghosted, its ghost cells hold the neighbours' values or 0 on
 * the domain's boundary.  The 26 neighbours are summed in a fixed order, so
 * every decomposition gives the same y bit for bit. */
static void apply(const void *op, const struct grid *gr, const double *p, double *y)
{
    (void)op;
    const int64_t sx = 1, sy = gr->g[0], sz = (int64_t)gr->g[0] * gr->g[1];
    int64_t m = 0;
    for (int k = 0; k < gr->n[2]; k++)
        for (int j = 0; j < gr->n[1]; j++) {
            const double *c = p + grid_at(gr, 0, j, k);
            for (int i = 0; i < gr->n[0]; i++, c++) {
                double s = 0.0;
                for (int dz = -1; dz <= 1; dz++)
                    for (int dy = -1; dy <= 1; dy++)
                        for (int dx = -1; dx <= 1; dx++)
                            if (dx | dy | dz)
                                s += c[dz * sz + dy * sy + dx * sx];
                y[m++] = 27.0 * c[0] - s;
            }
        }
}

static void destroy(void *op)
{
    (void)op;
}

static double exact(const struct grid *gr, int gx, int gy, int gz)
{
    (void)gr, (void)gx, (void)gy, (void)gz;
    return 1.0;
}

int main(int argc, char **argv)
{
    static const struct problem hpccg = {"hpccg", HALO_RMA_LOCKALL, setup, apply, destroy, exact};
    return app_main(argc, argv, &hpccg);
}
