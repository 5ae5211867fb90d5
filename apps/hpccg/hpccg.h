/* hpccg: conjugate gradient on a 27-point stencil over a 3D block
 * decomposition, after the design of Mantevo's HPCCG (written here from its
 * description).  The halo exchange of the search direction is two-sided
 * (Isend/Irecv) or one-sided (MPI_Put by one thread per neighbour inside a
 * lock_all epoch, flush, and a notification counter the target waits on). */
#ifndef HPCCG_H
#define HPCCG_H

#include <mpi.h>
#include <stdint.h>

/* The 26 neighbour directions are numbered 0..26 by (dz+1)*9+(dy+1)*3+(dx+1);
 * 13 is the cell itself.  The opposite of direction k is 26-k. */
enum { NDIR = 27, SELF_DIR = 13 };

struct grid {
    MPI_Comm comm;            /* Cartesian, non-periodic */
    int rank, size;
    int pdims[3], pcoord[3];  /* process grid and my place in it            */
    int n[3];                 /* local cells per axis (x, y, z)             */
    int gn[3];                /* global cells per axis                      */
    int g[3];                 /* local extents with the ghost layer: n + 2  */
    int neighbour[NDIR];      /* rank, or MPI_PROC_NULL                     */
    int count[NDIR];          /* cells of the face/edge/corner in direction k */
    int ndir, dirs[NDIR];     /* the directions that have a neighbour       */
};

/* geometry (grid.c) */
void grid_init(struct grid *gr, MPI_Comm comm, const int n[3]);
int64_t grid_cells(const struct grid *gr);
int64_t grid_ghosted(const struct grid *gr);
/* the ghosted index of interior cell (i, j, k), 0-based interior coordinates */
static inline int64_t grid_at(const struct grid *gr, int i, int j, int k)
{
    return ((int64_t)(k + 1) * gr->g[1] + (j + 1)) * gr->g[0] + (i + 1);
}
void grid_pack(const struct grid *gr, int dir, const double *ghosted, double *buf);
void grid_unpack(const struct grid *gr, int dir, const double *buf, double *ghosted);
void grid_rhs(const struct grid *gr, double *b);
void grid_spmv(const struct grid *gr, const double *p_ghosted, double *y);

/* halo exchange of a ghosted vector (halo.c) */
enum halo_mode { HALO_TWOSIDED, HALO_RMA };
struct halo;
/* the threads that communicate: one (two-sided), else `requested` or one per neighbour */
static inline int halo_threads(const struct grid *gr, enum halo_mode mode, int requested)
{
    return mode == HALO_TWOSIDED ? 1 : requested > 0 ? requested : gr->ndir > 0 ? gr->ndir : 1;
}
struct halo *halo_create(const struct grid *gr, enum halo_mode mode, int threads);
void halo_exchange(struct halo *h, double *ghosted);
void halo_free(struct halo *h);

#endif
