/* milc: the lattice, the SU(3) kernels, the Dslash operator, its halo
 * exchange and the CG solver (main.c describes the motif). */
#ifndef MILC_H
#define MILC_H

#include <complex.h>
#include <mpi.h>
#include <stdint.h>

#include "motif.h"

enum { NDIM = 4, NDIR = 2 * NDIM, NCOLOR = 3 };

/* a direction d = 2 * mu + FORWARD is the hop x -> x + mu, 2 * mu + BACKWARD
 * the hop x -> x - mu */
enum { FORWARD = 0, BACKWARD = 1 };
static inline int direction(int mu, int side)
{
    return 2 * mu + side;
}
static inline int opposite(int d)
{
    return d ^ 1;
}

typedef struct {
    double complex c[NCOLOR];
} su3_vector;

typedef struct {
    double complex e[NCOLOR][NCOLOR];
} su3_matrix;

/* su3.c: the kernels and deterministic random numbers */
void su3_mul(const su3_matrix *u, const su3_vector *v, su3_vector *out);     /* out = U v */
void su3_adj_mul(const su3_matrix *u, const su3_vector *v, su3_vector *out); /* out = U^dagger v */
double random_uniform(uint64_t *state);                                        /* in [-0.5, 0.5) */
void su3_random(uint64_t seed, su3_matrix *u);          /* a random SU(3) matrix: unitary, det 1 */
double su3_defect(const su3_matrix *u);                 /* max |(U U^dagger - 1)_ij|, |det U - 1| */

/* lattice.c: my block of the global lattice.  Sites are numbered with x
 * fastest: site = ((t * LZ + z) * LY + y) * LX + x in local coordinates. */
struct lattice {
    MPI_Comm comm;
    int rank;
    int local[NDIM];  /* my block's extent */
    int dims[NDIM];   /* the process grid */
    int coord[NDIM];  /* my place in it */
    int global[NDIM]; /* local * dims, periodic */
    int volume;       /* my sites */
    int neighbour[NDIR]; /* the rank across each face (myself when dims[mu] == 1) */
    int face_sites[NDIR]; /* sites of a face in direction d: volume / local[mu] */
    /* send_face[d]: the sites whose data the neighbour in direction
     * opposite(d) needs for its hops in direction d: the low face (x_mu = 0)
     * for d = (mu, FORWARD), the high face (x_mu = L_mu - 1) for (mu, BACKWARD) */
    int *send_face[NDIR];
    /* hop[x][d]: the local site at x + mu (FORWARD) or x - mu (BACKWARD), or
     * -1 - k when it lies across my face: then its data is element k of the
     * face received from neighbour[d] */
    int (*hop)[NDIR];
    double (*half_eta)[NDIM]; /* eta_mu(x) / 2, the staggered phases of the global coordinates */
    int *interior, ninterior; /* sites whose 8 hops are all local */
    int *boundary, nboundary; /* the others */
};

/* my block of a lattice of local * dims sites in comm (dims multiply to its
 * size).  halo = 0: the whole lattice is mine (dims all 1) and hops wrap
 * around locally, no face is exchanged; halo = 1: every hop across my block's
 * faces goes through the halo, also when the neighbour is myself. */
void lattice_init(struct lattice *lat, MPI_Comm comm, const int local[NDIM], const int dims[NDIM], int halo);
void lattice_free(struct lattice *lat);
int64_t lattice_global_index(const struct lattice *lat, int site); /* x fastest over the global lattice */
/* the gauge links U_mu(x) and the right-hand side b, from global indices only */
void lattice_links(const struct lattice *lat, su3_matrix (*links)[NDIM]);
void lattice_source(const struct lattice *lat, su3_vector *b);

/* halo.c: the exchange of the 8 faces for one Dslash */
enum halo_mode { HALO_TWOSIDED, HALO_RMA };
struct halo;
struct halo *halo_create(const struct lattice *lat, enum halo_mode mode); /* collective */
su3_vector *const *halo_begin(struct halo *h); /* starts an exchange: the buffers to pack the faces into */
void halo_post(struct halo *h);                /* the packed faces are ready: send / notify */
su3_vector *const *halo_wait(struct halo *h);  /* the faces received from each direction */
void halo_free(struct halo *h);                /* collective */

/* dslash.c: D psi(x) = 1/2 sum_mu eta_mu(x) [U_mu(x) psi(x+mu) - U_mu(x-mu)^dagger psi(x-mu)] */
struct dslash {
    const struct lattice *lat;
    const su3_matrix (*links)[NDIM];
    struct halo *halo;         /* NULL when the lattice has no halo */
    struct motif_times *times; /* dslash_comm and dslash_compute are added here */
};
void dslash(const struct dslash *op, const su3_vector *psi, su3_vector *out);

/* cg.c: solves (m^2 - D D) x = b */
struct cg_result {
    int iterations;
    double residual; /* |r| / |b| at the end (CG's recursively updated r) */
};
/* from x = 0: max_iterations steps, or fewer when tolerance > 0 and |r|/|b| <= tolerance */
void cg_solve(const struct dslash *op, double mass, const su3_vector *b, su3_vector *x, int max_iterations,
              double tolerance, struct cg_result *res);
/* out = (m^2 - D D) in (tmp: a work vector) */
void cg_operator(const struct dslash *op, double mass, const su3_vector *in, su3_vector *tmp, su3_vector *out);

/* verify.c: the serial CG of the whole lattice (on rank 0, broadcast) and the
 * comparison of a mode's solution with it */
struct reference {
    int64_t volume;       /* sites of the whole lattice */
    su3_vector *x;        /* the serial solution, indexed by global site */
    struct cg_result cg;
    int ok;               /* the serial problem passed its own checks */
};
void reference_solve(const struct lattice *lat, double mass, int iterations, double tolerance,
                     struct reference *ref); /* collective */
void reference_free(struct reference *ref);
/* 1 when my block of x is the serial solution's; else 0 and a message on stderr */
int verify_solution(const struct lattice *lat, const char *mode, const struct reference *ref,
                    const su3_vector *x, const struct cg_result *cg);

#endif
