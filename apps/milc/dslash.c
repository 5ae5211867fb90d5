/* The Dslash operator
 *   D psi(x) = 1/2 sum_mu eta_mu(x) [U_mu(x) psi(x+mu) - U_mu(x-mu)^dagger psi(x-mu)]
 * with its halo exchange overlapped with the interior sites, as MILC does:
 * the faces are packed and sent, the interior sites (all 8 hops local) are
 * computed, then the faces are received and the boundary sites computed.
 * As in MILC, the backward hop's product U_mu(x-mu)^dagger psi(x-mu) is made
 * by the rank that holds x-mu: a rank sends psi on its low faces and
 * U^dagger psi on its high faces, and no rank holds its neighbours' links. */
#include <stddef.h>

#include "milc.h"

/* the faces of psi my neighbours need: psi on the low face of mu for the
 * neighbour at -mu (its forward hops), U_mu^dagger psi on the high face for
 * the neighbour at +mu (its backward hops) */
static void pack_faces(const struct dslash *op, const su3_vector *psi, su3_vector *const send[NDIR])
{
    const struct lattice *lat = op->lat;
    for (int mu = 0; mu < NDIM; mu++) {
        const int fw = direction(mu, FORWARD), bw = direction(mu, BACKWARD);
        for (int k = 0; k < lat->face_sites[fw]; k++)
            send[fw][k] = psi[lat->send_face[fw][k]];
        for (int k = 0; k < lat->face_sites[bw]; k++) {
            const int site = lat->send_face[bw][k];
            su3_adj_mul(&op->links[site][mu], &psi[site], &send[bw][k]);
        }
    }
}

/* D psi on a list of sites; recv: the faces received (NULL: every hop is local) */
static void dslash_sites(const struct dslash *op, const int *sites, int n, const su3_vector *psi,
                         su3_vector *const *recv, su3_vector *out)
{
    const struct lattice *lat = op->lat;
    for (int i = 0; i < n; i++) {
        const int site = sites[i];
        const int *hop = lat->hop[site];
        su3_vector sum = {{0}}, term;
        for (int mu = 0; mu < NDIM; mu++) {
            const int fw = hop[direction(mu, FORWARD)], bw = hop[direction(mu, BACKWARD)];
            const su3_vector *ahead = fw >= 0 ? &psi[fw] : &recv[direction(mu, FORWARD)][-1 - fw];
            su3_mul(&op->links[site][mu], ahead, &term);
            if (bw >= 0) { /* U_mu(x-mu)^dagger psi(x-mu), here */
                su3_vector behind;
                su3_adj_mul(&op->links[bw][mu], &psi[bw], &behind);
                for (int c = 0; c < NCOLOR; c++)
                    term.c[c] -= behind.c[c];
            } else { /* made by the neighbour at -mu */
                const su3_vector *behind = &recv[direction(mu, BACKWARD)][-1 - bw];
                for (int c = 0; c < NCOLOR; c++)
                    term.c[c] -= behind->c[c];
            }
            const double phase = lat->half_eta[site][mu];
            for (int c = 0; c < NCOLOR; c++)
                sum.c[c] += phase * term.c[c];
        }
        out[site] = sum;
    }
}

void dslash(const struct dslash *op, const su3_vector *psi, su3_vector *out)
{
    const struct lattice *lat = op->lat;
    if (!op->halo) {
        double t0 = MPI_Wtime();
        dslash_sites(op, lat->interior, lat->ninterior, psi, NULL, out);
        motif_phase(op->times, "dslash_compute", MPI_Wtime() - t0);
        return;
    }
    double t0 = MPI_Wtime();
    pack_faces(op, psi, halo_begin(op->halo));
    halo_post(op->halo);
    double t1 = MPI_Wtime();
    dslash_sites(op, lat->interior, lat->ninterior, psi, NULL, out);
    double t2 = MPI_Wtime();
    su3_vector *const *recv = halo_wait(op->halo);
    double t3 = MPI_Wtime();
    dslash_sites(op, lat->boundary, lat->nboundary, psi, recv, out);
    double t4 = MPI_Wtime();
    motif_phase(op->times, "dslash_comm", (t1 - t0) + (t3 - t2));
    motif_phase(op->times, "dslash_compute", (t2 - t1) + (t4 - t3));
}
