/* What the mini-apps share: a 3D block decomposition of a structured grid
 * with one ghost layer (grid.c), the halo exchange of a ghosted vector,
 * two-sided or one-sided (halo.c), and a driver that solves A x = b by
 * conjugate gradients in either mode, times the phases and checks the
 * results (driver.c).  An app supplies the operator (struct problem). */
#ifndef APP_H
#define APP_H

#include <mpi.h>
#include <stdint.h>
#include "check.h"


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
/* the global coordinate on axis a of interior coordinate x */
static inline int grid_global(const struct grid *gr, int a, int x)
{
    return gr->pcoord[a] * gr->n[a] + x;
}
void grid_pack(const struct grid *gr, int dir, const double *ghosted, double *buf);
void grid_unpack(const struct grid *gr, int dir, const double *buf, double *ghosted);

/* halo exchange of a ghosted vector (halo.c) */
enum halo_mode {
    HALO_TWOSIDED,     /* Isend/Irecv, one thread                                        */
    HALO_RMA_LOCKALL,  /* MPI_Put + flush + notification counter in a lock_all epoch     */
    HALO_RMA_FENCE     /* MPI_Put between two MPI_Win_fence calls                        */
};
struct halo;
/* the threads that communicate: one (two-sided), else `requested` or one per neighbour */
static inline int halo_threads(const struct grid *gr, enum halo_mode mode, int requested)
{
    return mode == HALO_TWOSIDED ? 1 : requested > 0 ? requested : gr->ndir > 0 ? gr->ndir : 1;
}
struct halo *halo_create(const struct grid *gr, enum halo_mode mode, int threads);
void halo_exchange(struct halo *h, double *ghosted);
void halo_free(struct halo *h);

/* An app's problem (driver.c solves it).  setup builds the operator of the
 * rank's block and fills b (interior layout); apply computes y = A p for a
 * ghosted p whose ghost cells hold the neighbours' values (0 outside the
 * domain); exact, if not NULL, gives the exact solution at a global cell. */
struct problem {
    const char *name;
    enum halo_mode rma_mode; /* what --mode rma means for this app */
    void *(*setup)(const struct grid *gr, double *b);
    void (*apply)(const void *op, const struct grid *gr, const double *p, double *y);
    void (*destroy)(void *op);
    double (*exact)(const struct grid *gr, int gx, int gy, int gz);
};
int app_main(int argc, char **argv, const struct problem *pb);

#endif
