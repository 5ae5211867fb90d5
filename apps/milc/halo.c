/* The exchange of the 8 faces of one Dslash (dslash.c packs and unpacks).
 *
 * Face d is what a rank needs for its hops in direction d; it is packed by
 * the neighbour in direction d into that neighbour's send buffer d, so every
 * rank sends its send buffer d to neighbour[opposite(d)] and receives face d
 * from neighbour[d].  With one rank in a dimension both come from myself; with
 * two, both faces of that dimension come from the same rank: the direction
 * (tag, flag, buffer) tells them apart.
 *
 * twosided: halo_begin posts an MPI_Irecv per direction (tag d), halo_post an
 *   MPI_Isend per direction, halo_wait an MPI_Waitall.  The send buffers are
 *   reused only after the Waitall, i.e. after their sends completed.
 *
 * rma (foMPI's scheme, after the UPC version of MILC): the send buffers live in
 *   a window (MPI_Win_allocate) that also holds one flag (an int64 counter) per
 *   direction; one MPI_Win_lock_all(MPI_MODE_NOCHECK) epoch covers the whole
 *   life of the halo.  Step s (the s-th Dslash, from 0):
 *   - halo_begin: the faces are packed into send buffers [s % 2] with local
 *     stores;
 *   - halo_post: MPI_Win_sync (the stores reach the window's public copy
 *     before any notification: needed in the separate model, a memory barrier
 *     in the unified one), then for each direction d MPI_Accumulate(+1,
 *     MPI_SUM) on flag d of neighbour[opposite(d)], and MPI_Win_flush_all;
 *   - halo_wait: polls the own 8 flags with one MPI_Get_accumulate(MPI_NO_OP)
 *     on myself and MPI_Win_flush (an atomic read, valid in both memory
 *     models; no load touches a flag; and it makes the MPI progress that
 *     MPICH 4.0's accumulates need at the target: polling with MPI_Win_sync
 *     and loads hung there, tried), and as soon as flag d >= s + 1 (the
 *     neighbour in direction d has packed step s) issues MPI_Get of that
 *     neighbour's send buffer d [s % 2] into private memory; MPI_Win_flush_all
 *     completes the gets.
 *   Why a buffer is never overwritten while a neighbour still reads it: P
 *   packs buffer [s % 2] again at step s + 2.  Before that, P's step s + 1
 *   waits for the step s + 1 notification of every neighbour R, and R sends it
 *   only after its step s ended, i.e. after its MPI_Win_flush_all completed
 *   its gets of P's step s buffers.  Meanwhile R's step s gets and P's step
 *   s + 1 stores touch different buffers (parity).  The flags are counters, so
 *   a neighbour one step ahead (flag s + 2) is no problem.  With two Dslashes
 *   per CG iteration and no synchronisation between them this is what needs
 *   the double buffer; the Allreduces of CG are not relied on. */
#include <sched.h>
#include <stdlib.h>

#include "check.h"
#include "milc.h"

struct halo {
    const struct lattice *lat;
    enum halo_mode mode;
    su3_vector *send[2][NDIR]; /* by step parity (rma, in the window); twosided uses [0] */
    su3_vector *recv[NDIR];    /* private memory */
    int64_t step;              /* exchanges begun */
    MPI_Request request[2 * NDIR];
    MPI_Win win;
    MPI_Aint send_disp[2][NDIR]; /* byte displacements of the send buffers in the window */
};

static int face_doubles(const struct lattice *lat, int d)
{
    return lat->face_sites[d] * 2 * NCOLOR;
}

static MPI_Aint flag_disp(int d)
{
    return d * (MPI_Aint)sizeof(int64_t);
}

static void create_window(struct halo *h)
{
    const struct lattice *lat = h->lat;
    MPI_Aint bytes = flag_disp(NDIR);
    for (int parity = 0; parity < 2; parity++)
        for (int d = 0; d < NDIR; d++) {
            bytes = (bytes + 15) / 16 * 16;
            h->send_disp[parity][d] = bytes;
            bytes += (MPI_Aint)sizeof(su3_vector) * lat->face_sites[d];
        }
    /* MPICH 4.0.2 misplaces RMA data on MPI_Win_allocate windows whose size
     * is not a multiple of 16 (apps/common/halo.c) */
    bytes = (bytes + 15) / 16 * 16;
    char *base;
    APP_CHECK(MPI_Win_allocate(bytes, 1, MPI_INFO_NULL, lat->comm, &base, &h->win));
    for (int parity = 0; parity < 2; parity++)
        for (int d = 0; d < NDIR; d++)
            h->send[parity][d] = (su3_vector *)(base + h->send_disp[parity][d]);
    APP_CHECK(MPI_Win_lock_all(MPI_MODE_NOCHECK, h->win));
    int64_t *flags = (int64_t *)base;
    for (int d = 0; d < NDIR; d++)
        flags[d] = 0;
    APP_CHECK(MPI_Win_sync(h->win));
    APP_CHECK(MPI_Barrier(lat->comm)); /* the flags are zero everywhere before anyone notifies */
}

struct halo *halo_create(const struct lattice *lat, enum halo_mode mode)
{
    struct halo *h = calloc(1, sizeof *h);
    h->lat = lat;
    h->mode = mode;
    for (int d = 0; d < NDIR; d++)
        h->recv[d] = malloc(sizeof(su3_vector) * (size_t)lat->face_sites[d]);
    if (mode == HALO_RMA)
        create_window(h);
    else
        for (int d = 0; d < NDIR; d++)
            h->send[0][d] = malloc(sizeof(su3_vector) * (size_t)lat->face_sites[d]);
    return h;
}

su3_vector *const *halo_begin(struct halo *h)
{
    const struct lattice *lat = h->lat;
    if (h->mode == HALO_RMA)
        return h->send[h->step % 2];
    for (int d = 0; d < NDIR; d++)
        APP_CHECK(MPI_Irecv(h->recv[d], face_doubles(lat, d), MPI_DOUBLE, lat->neighbour[d], d, lat->comm,
                            &h->request[d]));
    return h->send[0];
}

void halo_post(struct halo *h)
{
    const struct lattice *lat = h->lat;
    if (h->mode == HALO_TWOSIDED) {
        for (int d = 0; d < NDIR; d++)
            APP_CHECK(MPI_Isend(h->send[0][d], face_doubles(lat, d), MPI_DOUBLE, lat->neighbour[opposite(d)], d,
                                lat->comm, &h->request[NDIR + d]));
        return;
    }
    static const int64_t one = 1;
    APP_CHECK(MPI_Win_sync(h->win));
    for (int d = 0; d < NDIR; d++)
        APP_CHECK(MPI_Accumulate(&one, 1, MPI_INT64_T, lat->neighbour[opposite(d)], flag_disp(d), 1, MPI_INT64_T,
                                 MPI_SUM, h->win));
    APP_CHECK(MPI_Win_flush_all(h->win));
}

static void get_faces(struct halo *h)
{
    const struct lattice *lat = h->lat;
    const int parity = (int)(h->step % 2);
    const int64_t packed = h->step + 1; /* flag d once the neighbour in direction d packed this step */
    unsigned pending = (1u << NDIR) - 1;
    while (pending) {
        int64_t flags[NDIR];
        APP_CHECK(MPI_Get_accumulate(NULL, 0, MPI_INT64_T, flags, NDIR, MPI_INT64_T, lat->rank, flag_disp(0), NDIR,
                                     MPI_INT64_T, MPI_NO_OP, h->win));
        APP_CHECK(MPI_Win_flush(lat->rank, h->win));
        for (int d = 0; d < NDIR; d++)
            if ((pending >> d & 1) && flags[d] >= packed) {
                APP_CHECK(MPI_Get(h->recv[d], face_doubles(lat, d), MPI_DOUBLE, lat->neighbour[d],
                                  h->send_disp[parity][d], face_doubles(lat, d), MPI_DOUBLE, h->win));
                pending &= ~(1u << d);
            }
        if (pending)
            sched_yield(); /* ranks may outnumber the cores */
    }
    APP_CHECK(MPI_Win_flush_all(h->win));
}

su3_vector *const *halo_wait(struct halo *h)
{
    if (h->mode == HALO_RMA)
        get_faces(h);
    else {
        MPI_Status status[2 * NDIR]; /* not MPI_STATUSES_IGNORE: gcc 12 takes MPICH's (MPI_Status *)1 for an array */
        APP_CHECK(MPI_Waitall(2 * NDIR, h->request, status));
    }
    h->step++;
    return h->recv;
}

void halo_free(struct halo *h)
{
    if (h->mode == HALO_RMA) {
        APP_CHECK(MPI_Win_unlock_all(h->win));
        APP_CHECK(MPI_Win_free(&h->win));
    } else
        for (int d = 0; d < NDIR; d++)
            free(h->send[0][d]);
    for (int d = 0; d < NDIR; d++)
        free(h->recv[d]);
    free(h);
}
