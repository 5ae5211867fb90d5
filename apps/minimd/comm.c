/* minimd's communication: the decomposition, atom migration, ghost
 * selection, and the per-step forward (positions) and reverse (forces)
 * communication, two-sided or by MPI_Put between fences (minimd.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "minimd.h"


void *minimd_grow(void *p, size_t bytes)
{
    void *q = realloc(p, bytes ? bytes : 1);
    if (!q) {
        fprintf(stderr, "minimd: out of memory (%zu bytes)\n", bytes);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return q;
}

void atoms_grow(struct atoms *a, int n)
{
    if (n <= a->nmax)
        return;
    a->nmax = n + n / 2 + 16;
    a->x = minimd_grow(a->x, sizeof(double) * 3 * (size_t)a->nmax);
    a->v = minimd_grow(a->v, sizeof(double) * 3 * (size_t)a->nmax);
    a->f = minimd_grow(a->f, sizeof(double) * 3 * (size_t)a->nmax);
    a->id = minimd_grow(a->id, sizeof(int64_t) * (size_t)a->nmax);
}

void comm_init(struct domain *d, MPI_Comm comm, const int cells[3], double lattice, enum comm_mode mode)
{
    memset(d, 0, sizeof *d);
    int periods[3] = {1, 1, 1};
    MPI_Comm_size(comm, &d->size);
    MPI_Dims_create(d->size, 3, d->pdims);
    MPI_Cart_create(comm, 3, d->pdims, periods, 0, &d->comm);
    MPI_Comm_rank(d->comm, &d->rank);
    MPI_Cart_coords(d->comm, d->rank, 3, d->pcoord);
    d->mode = mode;
    d->cutforce = 2.5;
    d->cutneigh = 2.8; /* cut-off + skin */
    for (int k = 0; k < 3; k++) {
        double width = cells[k] * lattice;
        d->len[k] = width * d->pdims[k];
        d->lo[k] = width * d->pcoord[k];
        d->hi[k] = width * (d->pcoord[k] + 1);
        /* one swap per side reaches every ghost; each pair has one image */
        if (width < d->cutneigh || d->len[k] < 2 * d->cutneigh) {
            if (d->rank == 0)
                fprintf(stderr, "minimd: %d cells per rank on axis %d are too few (a rank's box %.2f must be at least "
                                "%.2f, the whole box at least %.2f)\n", cells[k], k, width, d->cutneigh,
                        2 * d->cutneigh);
            MPI_Abort(comm, 2);
        }
        int left, right;
        MPI_Cart_shift(d->comm, k, 1, &left, &right);
        struct swap *lo = &d->swap[2 * k], *hi = &d->swap[2 * k + 1];
        lo->to = left, lo->from = right; /* atoms near my lower face go to the left */
        lo->shift = d->pcoord[k] == 0 ? d->len[k] : 0.0;
        hi->to = right, hi->from = left;
        hi->shift = d->pcoord[k] == d->pdims[k] - 1 ? -d->len[k] : 0.0;
    }
}

void comm_free(struct domain *d)
{
    for (int s = 0; s < 6; s++) {
        free(d->swap[s].send);
        free(d->swap[s].buf);
    }
    if (d->wincap)
        APP_CHECK(MPI_Win_free(&d->win));
    MPI_Comm_free(&d->comm);
}

/* an atom as 7 doubles: position, velocity, id (exact below 2^53) */
static void pack_atom(const struct atoms *a, int i, double *out)
{
    memcpy(out, &a->x[3 * i], 3 * sizeof(double));
    memcpy(out + 3, &a->v[3 * i], 3 * sizeof(double));
    out[6] = (double)a->id[i];
}

static void remove_atom(struct atoms *a, int i) /* the last local atom takes its place */
{
    int last = --a->nlocal;
    memcpy(&a->x[3 * i], &a->x[3 * last], 3 * sizeof(double));
    memcpy(&a->v[3 * i], &a->v[3 * last], 3 * sizeof(double));
    a->id[i] = a->id[last];
}

void comm_exchange(struct domain *d, struct atoms *a)
{
    a->nghost = 0;
    for (int k = 0; k < 3; k++) {
        if (d->pdims[k] == 1) { /* my box spans the axis: wrap */
            for (int i = 0; i < a->nlocal; i++)
                a->x[3 * i + k] -= d->len[k] * floor(a->x[3 * i + k] / d->len[k]);
            continue;
        }
        /* leavers to the left (side 0) and right (side 1) */
        double *out[2] = {NULL, NULL};
        int nout[2] = {0, 0}, cap[2] = {0, 0};
        for (int i = 0; i < a->nlocal;) {
            double xk = a->x[3 * i + k];
            int side = xk < d->lo[k] ? 0 : xk >= d->hi[k] ? 1 : -1;
            if (side < 0) {
                i++;
                continue;
            }
            if (nout[side] == cap[side]) { /* doubling: one realloc per atom was quadratic */
                cap[side] = 2 * cap[side] + 16;
                out[side] = minimd_grow(out[side], sizeof(double) * 7 * (size_t)cap[side]);
            }
            pack_atom(a, i, out[side] + 7 * nout[side]++);
            remove_atom(a, i);
        }
        for (int side = 0; side < 2; side++) {
            const struct swap *sw = &d->swap[2 * k + side];
            int nin;
            APP_CHECK(MPI_Sendrecv(&nout[side], 1, MPI_INT, sw->to, 100 + side, &nin, 1, MPI_INT, sw->from, 100 + side,
                               d->comm, MPI_STATUS_IGNORE));
            double *in = minimd_grow(NULL, sizeof(double) * 7 * (size_t)nin);
            APP_CHECK(MPI_Sendrecv(out[side], 7 * nout[side], MPI_DOUBLE, sw->to, 102 + side, in, 7 * nin, MPI_DOUBLE,
                               sw->from, 102 + side, d->comm, MPI_STATUS_IGNORE));
            atoms_grow(a, a->nlocal + nin);
            for (int m = 0; m < nin; m++) {
                const double *p = in + 7 * m;
                double xk = p[k] - d->len[k] * floor(p[k] / d->len[k]);
                if (xk < d->lo[k] || xk >= d->hi[k]) {
                    fprintf(stderr, "minimd: atom %lld moved further than a rank's box between reneighbourings\n",
                            (long long)p[6]);
                    MPI_Abort(d->comm, 1);
                }
                int i = a->nlocal++;
                memcpy(&a->x[3 * i], p, 3 * sizeof(double));
                a->x[3 * i + k] = xk;
                memcpy(&a->v[3 * i], p + 3, 3 * sizeof(double));
                a->id[i] = (int64_t)p[6];
            }
            free(in);
            free(out[side]);
        }
    }
}

/* RMA mode: a window big enough for every rank's slots, and the slots'
 * places exchanged with the neighbours that put into them */
static void layout_window(struct domain *d)
{
    MPI_Aint need = 0;
    for (int s = 0; s < 6; s++) {
        d->swap[s].fwd_slot = need;
        need += 3 * (MPI_Aint)d->swap[s].nrecv;
    }
    for (int s = 0; s < 6; s++) {
        d->swap[s].rev_slot = need;
        need += 3 * (MPI_Aint)d->swap[s].nsend;
    }
    MPI_Aint most;
    APP_CHECK(MPI_Allreduce(&need, &most, 1, MPI_AINT, MPI_MAX, d->comm));
    if (most > d->wincap) {
        if (d->wincap)
            APP_CHECK(MPI_Win_free(&d->win));
        /* an even number of doubles: MPICH 4.0.2 misplaces RMA data on
         * MPI_Win_allocate windows whose size is not a multiple of 16 bytes */
        d->wincap = (most + most / 2 + 64) & ~(MPI_Aint)1;
        APP_CHECK(MPI_Win_allocate(d->wincap * (MPI_Aint)sizeof(double), sizeof(double), MPI_INFO_NULL, d->comm,
                               &d->winbuf, &d->win));
    }
    MPI_Request req[24];
    int n = 0;
    for (int s = 0; s < 6; s++) {
        struct swap *sw = &d->swap[s];
        APP_CHECK(MPI_Irecv(&sw->peer_fwd, 1, MPI_AINT, sw->to, 200 + s, d->comm, &req[n++]));
        APP_CHECK(MPI_Irecv(&sw->peer_rev, 1, MPI_AINT, sw->from, 210 + s, d->comm, &req[n++]));
        APP_CHECK(MPI_Isend(&sw->fwd_slot, 1, MPI_AINT, sw->from, 200 + s, d->comm, &req[n++]));
        APP_CHECK(MPI_Isend(&sw->rev_slot, 1, MPI_AINT, sw->to, 210 + s, d->comm, &req[n++]));
    }
    MPI_Status st[24]; /* not MPI_STATUSES_IGNORE: gcc 12 takes MPICH's (MPI_Status *)1 for an array */
    APP_CHECK(MPI_Waitall(n, req, st));
}

static void pack_positions(const struct atoms *a, struct swap *sw, int k)
{
    for (int m = 0; m < sw->nsend; m++) {
        const double *x = &a->x[3 * sw->send[m]];
        sw->buf[3 * m] = x[0];
        sw->buf[3 * m + 1] = x[1];
        sw->buf[3 * m + 2] = x[2];
        sw->buf[3 * m + k] += sw->shift;
    }
}

void comm_borders(struct domain *d, struct atoms *a)
{
    a->nghost = 0;
    for (int k = 0; k < 3; k++) {
        const int nlast = a->nlocal + a->nghost; /* this dimension's ghosts are not sent on */
        for (int side = 0; side < 2; side++) {
            struct swap *sw = &d->swap[2 * k + side];
            sw->nsend = 0;
            for (int i = 0; i < nlast; i++) {
                double xk = a->x[3 * i + k];
                if (side == 0 ? xk < d->lo[k] + d->cutneigh : xk >= d->hi[k] - d->cutneigh) {
                    if (sw->nsend == sw->send_cap) {
                        sw->send_cap = 2 * sw->send_cap + 64;
                        sw->send = minimd_grow(sw->send, sizeof(int) * (size_t)sw->send_cap);
                        sw->buf = minimd_grow(sw->buf, sizeof(double) * 3 * (size_t)sw->send_cap);
                    }
                    sw->send[sw->nsend++] = i;
                }
            }
            APP_CHECK(MPI_Sendrecv(&sw->nsend, 1, MPI_INT, sw->to, 110, &sw->nrecv, 1, MPI_INT, sw->from, 110, d->comm,
                               MPI_STATUS_IGNORE));
            sw->first_recv = a->nlocal + a->nghost;
            atoms_grow(a, sw->first_recv + sw->nrecv);
            pack_positions(a, sw, k);
            APP_CHECK(MPI_Sendrecv(sw->buf, 3 * sw->nsend, MPI_DOUBLE, sw->to, 111, &a->x[3 * sw->first_recv],
                               3 * sw->nrecv, MPI_DOUBLE, sw->from, 111, d->comm, MPI_STATUS_IGNORE));
            a->nghost += sw->nrecv;
        }
    }
    if (d->mode == COMM_RMA)
        layout_window(d);
}

void comm_forward(struct domain *d, struct atoms *a)
{
    for (int k = 0; k < 3; k++) {
        struct swap *sw = &d->swap[2 * k];
        if (d->mode == COMM_TWOSIDED) {
            for (int side = 0; side < 2; side++) {
                pack_positions(a, &sw[side], k);
                APP_CHECK(MPI_Sendrecv(sw[side].buf, 3 * sw[side].nsend, MPI_DOUBLE, sw[side].to, 120 + side,
                                   &a->x[3 * sw[side].first_recv], 3 * sw[side].nrecv, MPI_DOUBLE, sw[side].from,
                                   120 + side, d->comm, MPI_STATUS_IGNORE));
            }
            continue;
        }
        APP_CHECK(MPI_Win_fence(MPI_MODE_NOPRECEDE, d->win));
        for (int side = 0; side < 2; side++) {
            pack_positions(a, &sw[side], k);
            APP_CHECK(MPI_Put(sw[side].buf, 3 * sw[side].nsend, MPI_DOUBLE, sw[side].to, sw[side].peer_fwd,
                          3 * sw[side].nsend, MPI_DOUBLE, d->win));
        }
        APP_CHECK(MPI_Win_fence(MPI_MODE_NOSUCCEED, d->win));
        for (int side = 0; side < 2; side++)
            memcpy(&a->x[3 * sw[side].first_recv], d->winbuf + sw[side].fwd_slot,
                   sizeof(double) * 3 * (size_t)sw[side].nrecv);
    }
}

static void add_forces(struct atoms *a, const struct swap *sw, const double *in)
{
    for (int m = 0; m < sw->nsend; m++) {
        double *f = &a->f[3 * sw->send[m]];
        f[0] += in[3 * m];
        f[1] += in[3 * m + 1];
        f[2] += in[3 * m + 2];
    }
}

/* In the reverse order of the swaps: a ghost's force reaches the atom it is
 * an image of, which may itself be a ghost of an earlier dimension. */
void comm_reverse(struct domain *d, struct atoms *a)
{
    double *in = NULL;
    for (int k = 2; k >= 0; k--) {
        struct swap *sw = &d->swap[2 * k];
        if (d->mode == COMM_TWOSIDED) {
            for (int side = 1; side >= 0; side--) {
                in = minimd_grow(in, sizeof(double) * 3 * (size_t)sw[side].nsend);
                APP_CHECK(MPI_Sendrecv(&a->f[3 * sw[side].first_recv], 3 * sw[side].nrecv, MPI_DOUBLE, sw[side].from,
                                   130 + side, in, 3 * sw[side].nsend, MPI_DOUBLE, sw[side].to, 130 + side, d->comm,
                                   MPI_STATUS_IGNORE));
                add_forces(a, &sw[side], in);
            }
            continue;
        }
        APP_CHECK(MPI_Win_fence(MPI_MODE_NOPRECEDE, d->win));
        for (int side = 1; side >= 0; side--)
            APP_CHECK(MPI_Put(&a->f[3 * sw[side].first_recv], 3 * sw[side].nrecv, MPI_DOUBLE, sw[side].from,
                          sw[side].peer_rev, 3 * sw[side].nrecv, MPI_DOUBLE, d->win));
        APP_CHECK(MPI_Win_fence(MPI_MODE_NOSUCCEED, d->win));
        for (int side = 1; side >= 0; side--)
            add_forces(a, &sw[side], d->winbuf + sw[side].rev_slot);
    }
    free(in);
}
