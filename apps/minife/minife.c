/* minife: finite-element assembly of -laplace(u) = 1 on the unit cube with
 * u = 0 on its boundary, trilinear hexahedral elements, into a sparse (CSR)
 * matrix, then CG; after the design of Mantevo's MiniFE (written here from
 * its description).
 *
 * The mesh has nP+1 elements per axis (n unknown nodes per rank and axis, P
 * ranks on the axis), spacing 1/(nP+1) on that axis.  Unknowns are the interior nodes
 * 1..nP; nodes 0 and nP+1 carry the Dirichlet value 0 and are no unknowns.
 * The driver's cell (i, j, k) of a rank is the node with global index
 * (global coordinate + 1); its ghost cells are the neighbouring ranks' nodes
 * or, on the domain's boundary, the Dirichlet nodes (kept at 0).
 *
 * Assembly is element by element as in MiniFE: every rank visits each
 * element that touches one of its nodes (the elements of a neighbour's
 * interface are computed again here rather than sent), computes the element
 * stiffness matrix and load vector by 2x2x2 Gauss quadrature and adds the
 * rows of its own nodes.  Halo exchange of --mode rma: MPI_Put by one thread
 * per neighbour between two MPI_Win_fence calls (apps/common/halo.c). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"

struct csr {
    int64_t rows, *start; /* row r's entries are start[r] .. start[r+1]-1 */
    int64_t *col;         /* ghosted index of the column's node */
    double *val;
};

/* Element matrices of a box of sides h[3]; local node a = ax + 2 ay + 4 az. */
static void element(const double h[3], double ke[8][8], double fe[8])
{
    const double g[2] = {0.5 - 0.5 / sqrt(3.0), 0.5 + 0.5 / sqrt(3.0)}, w = 0.125 * h[0] * h[1] * h[2];
    memset(ke, 0, sizeof(double) * 64);
    memset(fe, 0, sizeof(double) * 8);
    for (int q = 0; q < 8; q++) {
        const double xi[3] = {g[q & 1], g[q >> 1 & 1], g[q >> 2 & 1]};
        double n[8], grad[8][3];
        for (int a = 0; a < 8; a++) {
            double f[3], df[3];
            for (int d = 0; d < 3; d++) {
                int on = a >> d & 1;
                f[d] = on ? xi[d] : 1.0 - xi[d];
                df[d] = (on ? 1.0 : -1.0) / h[d];
            }
            n[a] = f[0] * f[1] * f[2];
            grad[a][0] = df[0] * f[1] * f[2];
            grad[a][1] = f[0] * df[1] * f[2];
            grad[a][2] = f[0] * f[1] * df[2];
        }
        for (int a = 0; a < 8; a++) {
            fe[a] += w * n[a]; /* source f = 1 */
            for (int b = 0; b < 8; b++)
                ke[a][b] += w * (grad[a][0] * grad[b][0] + grad[a][1] * grad[b][1] + grad[a][2] * grad[b][2]);
        }
    }
}

static void *setup(const struct grid *gr, double *b)
{
    const int n0 = gr->n[0], n1 = gr->n[1], n2 = gr->n[2];
    const int64_t rows = grid_cells(gr);
    double h[3], ke[8][8], fe[8];
    for (int a = 0; a < 3; a++)
        h[a] = 1.0 / (gr->gn[a] + 1);
    element(h, ke, fe);

    /* rows of 27 couplings (offsets dz, dy, dx in -1..1), summed element by element */
    double(*dense)[27] = calloc((size_t)rows, sizeof *dense);
    memset(b, 0, sizeof(double) * (size_t)rows);
    /* elements e = global node index of their lower corner: those touching my
     * nodes 1+g0 .. n+g0 (g0 = my first node's global coordinate) on each axis */
    for (int ez = -1; ez < n2; ez++)
        for (int ey = -1; ey < n1; ey++)
            for (int ex = -1; ex < n0; ex++)
                for (int a = 0; a < 8; a++) {
                    int i = ex + (a & 1), j = ey + (a >> 1 & 1), k = ez + (a >> 2 & 1);
                    if (i < 0 || i >= n0 || j < 0 || j >= n1 || k < 0 || k >= n2)
                        continue; /* not my node: its owner adds this row */
                    int64_t row = ((int64_t)k * n1 + j) * n0 + i;
                    b[row] += fe[a];
                    for (int c = 0; c < 8; c++) {
                        int dx = (c & 1) - (a & 1), dy = (c >> 1 & 1) - (a >> 1 & 1), dz = (c >> 2 & 1) - (a >> 2 & 1);
                        dense[row][(dz + 1) * 9 + (dy + 1) * 3 + (dx + 1)] += ke[a][c];
                    }
                }

    /* CSR: every coupling to an unknown (a node inside the domain) */
    struct csr *m = calloc(1, sizeof *m);
    m->rows = rows;
    m->start = malloc(sizeof(int64_t) * (size_t)(rows + 1));
    m->col = malloc(sizeof(int64_t) * (size_t)rows * 27);
    m->val = malloc(sizeof(double) * (size_t)rows * 27);
    int64_t e = 0, row = 0;
    for (int k = 0; k < n2; k++)
        for (int j = 0; j < n1; j++)
            for (int i = 0; i < n0; i++, row++) {
                m->start[row] = e;
                for (int o = 0; o < 27; o++) {
                    int dx = o % 3 - 1, dy = o / 3 % 3 - 1, dz = o / 9 - 1;
                    int gx = grid_global(gr, 0, i + dx), gy = grid_global(gr, 1, j + dy),
                        gz = grid_global(gr, 2, k + dz);
                    if (gx < 0 || gx >= gr->gn[0] || gy < 0 || gy >= gr->gn[1] || gz < 0 || gz >= gr->gn[2])
                        continue; /* a Dirichlet node: u = 0 there, no unknown */
                    m->col[e] = grid_at(gr, i + dx, j + dy, k + dz);
                    m->val[e++] = dense[row][o];
                }
            }
    m->start[rows] = e;
    free(dense);
    return m;
}

static void apply(const void *op, const struct grid *gr, const double *p, double *y)
{
    const struct csr *m = op;
    (void)gr;
    for (int64_t r = 0; r < m->rows; r++) {
        double s = 0.0;
        for (int64_t e = m->start[r]; e < m->start[r + 1]; e++)
            s += m->val[e] * p[m->col[e]];
        y[r] = s;
    }
}

static void destroy(void *op)
{
    struct csr *m = op;
    free(m->start);
    free(m->col);
    free(m->val);
    free(m);
}

int main(int argc, char **argv)
{
    static const struct problem minife = {"minife", HALO_RMA_FENCE, setup, apply, destroy, NULL};
    return app_main(argc, argv, &minife);
}
