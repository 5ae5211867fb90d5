/* minimd: Lennard-Jones molecular dynamics after the design of Mantevo's
 * miniMD (written here from its description): an FCC lattice at reduced
 * density 0.8442 and temperature 1.44, velocity Verlet with dt = 0.005, force
 * cut-off 2.5 sigma, half neighbour lists (each pair once, Newton's third law)
 * built from link cells every 20 steps with a skin of 0.3, periodic
 * boundaries, a 3D block decomposition.
 *
 * Communication (comm.c): ghost atoms in six swaps (left and right along x,
 * then y, then z; ghosts of earlier dimensions are forwarded, which covers
 * edges and corners); every step the forward communication sends the ghosts'
 * positions and the reverse communication returns the forces computed on
 * ghosts to their owners.  --mode twosided: MPI_Sendrecv per swap; --mode
 * rma: MPI_Put into the neighbour's window between two MPI_Win_fence calls
 * per dimension.  Atom migration and ghost selection (every 20 steps) are
 * two-sided in both modes. */
#ifndef MINIMD_H
#define MINIMD_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

enum comm_mode { COMM_TWOSIDED, COMM_RMA };

struct atoms {
    int nlocal, nghost, nmax;
    double *x, *v, *f; /* [3 * nmax]: local atoms first, then ghosts */
    int64_t *id;       /* [nmax]: the lattice site an atom started on */
};

struct swap {          /* one of the six ghost swaps: dimension s / 2, side s % 2 */
    int to, from;      /* ranks: whom my ghosts go to, whom I get ghosts from */
    double shift;      /* added to the sent coordinate across the periodic boundary */
    int nsend, nrecv, first_recv;
    int *send, send_cap;   /* indices of the atoms sent */
    double *buf;           /* packed positions being sent ([3 * send_cap]) */
    MPI_Aint fwd_slot, rev_slot;      /* my window: positions received, forces returned (doubles) */
    MPI_Aint peer_fwd, peer_rev;      /* the same in the window of `to` (fwd) and of `from` (rev) */
};

struct domain {
    MPI_Comm comm;     /* Cartesian, periodic */
    int rank, size, pdims[3], pcoord[3];
    double len[3], lo[3], hi[3]; /* global box and my part of it */
    double cutforce, cutneigh;
    enum comm_mode mode;
    struct swap swap[6];
    MPI_Win win;       /* RMA mode */
    double *winbuf;
    MPI_Aint wincap;   /* doubles */
};

/* comm.c */
void comm_init(struct domain *d, MPI_Comm comm, const int cells[3], double lattice, enum comm_mode mode);
void comm_free(struct domain *d);
void comm_exchange(struct domain *d, struct atoms *a);   /* migrate atoms that left my box */
void comm_borders(struct domain *d, struct atoms *a);    /* choose the ghosts anew */
void comm_forward(struct domain *d, struct atoms *a);    /* ghost positions */
void comm_reverse(struct domain *d, struct atoms *a);    /* ghost forces back to their owners */
void atoms_grow(struct atoms *a, int n);
void *minimd_grow(void *p, size_t bytes); /* realloc or abort */

/* force.c */
struct neighbours {
    int *start, *list, cap_start, cap_list;
};
void neighbour_build(const struct domain *d, const struct atoms *a, struct neighbours *nb);
double force_compute(const struct domain *d, struct atoms *a, const struct neighbours *nb); /* returns local PE */
void neighbour_free(struct neighbours *nb);

#endif
