/* The decomposition and the faces/edges/corners a neighbour needs. */
#include <string.h>

#include "app.h"

static int offset(int dir, int axis) /* -1, 0 or +1 */
{
    static const int div[3] = {1, 3, 9};
    return dir / div[axis] % 3 - 1;
}

void grid_init(struct grid *gr, MPI_Comm comm, const int n[3])
{
    memset(gr, 0, sizeof *gr);
    int size, periods[3] = {0, 0, 0};
    MPI_Comm_size(comm, &size);
    MPI_Dims_create(size, 3, gr->pdims);
    MPI_Cart_create(comm, 3, gr->pdims, periods, 0, &gr->comm);
    MPI_Comm_rank(gr->comm, &gr->rank);
    gr->size = size;
    MPI_Cart_coords(gr->comm, gr->rank, 3, gr->pcoord);
    for (int a = 0; a < 3; a++) {
        gr->n[a] = n[a];
        gr->g[a] = n[a] + 2;
        gr->gn[a] = n[a] * gr->pdims[a];
    }
    for (int dir = 0; dir < NDIR; dir++) {
        gr->neighbour[dir] = MPI_PROC_NULL;
        if (dir == SELF_DIR)
            continue;
        int c[3], inside = 1;
        gr->count[dir] = 1;
        for (int a = 0; a < 3; a++) {
            c[a] = gr->pcoord[a] + offset(dir, a);
            inside &= c[a] >= 0 && c[a] < gr->pdims[a];
            gr->count[dir] *= offset(dir, a) ? 1 : n[a];
        }
        if (inside) {
            MPI_Cart_rank(gr->comm, c, &gr->neighbour[dir]);
            gr->dirs[gr->ndir++] = dir;
        }
    }
}

int64_t grid_cells(const struct grid *gr)
{
    return (int64_t)gr->n[0] * gr->n[1] * gr->n[2];
}

int64_t grid_ghosted(const struct grid *gr)
{
    return (int64_t)gr->g[0] * gr->g[1] * gr->g[2];
}

/* The box of ghosted indices [lo, hi] per axis that direction dir sends
 * (interior cells next to that neighbour) or receives (its ghost cells). */
static void box(const struct grid *gr, int dir, int ghost, int lo[3], int hi[3])
{
    for (int a = 0; a < 3; a++) {
        switch (offset(dir, a)) {
        case -1: lo[a] = hi[a] = ghost ? 0 : 1; break;
        case 1: lo[a] = hi[a] = ghost ? gr->n[a] + 1 : gr->n[a]; break;
        default: lo[a] = 1; hi[a] = gr->n[a]; break;
        }
    }
}

static void copy_box(const struct grid *gr, int dir, int ghost, double *ghosted, double *buf, int to_buf)
{
    int lo[3], hi[3];
    box(gr, dir, ghost, lo, hi);
    int64_t m = 0;
    for (int k = lo[2]; k <= hi[2]; k++)
        for (int j = lo[1]; j <= hi[1]; j++)
            for (int i = lo[0]; i <= hi[0]; i++) {
                int64_t at = ((int64_t)k * gr->g[1] + j) * gr->g[0] + i;
                if (to_buf)
                    buf[m++] = ghosted[at];
                else
                    ghosted[at] = buf[m++];
            }
}

void grid_pack(const struct grid *gr, int dir, const double *ghosted, double *buf)
{
    copy_box(gr, dir, 0, (double *)ghosted, buf, 1);
}

void grid_unpack(const struct grid *gr, int dir, const double *buf, double *ghosted)
{
    copy_box(gr, dir, 1, ghosted, (double *)buf, 0);
}
