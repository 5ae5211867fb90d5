/* Halo exchange of a ghosted vector with the up to 26 neighbours.
 *
 * two-sided: Irecv from every neighbour, pack and Isend to every neighbour,
 *   Waitall, unpack (one thread, as in the original apps).
 * RMA: one window per halo holding, per direction, a notification counter and
 *   a receive slot; one thread per neighbour (or threads taking neighbours
 *   round-robin) packs and MPI_Puts into the neighbour's slot for the
 *   opposite direction.
 *   lock_all: a lock_all epoch (MPI_MODE_NOCHECK) is open for the whole run.
 *     After the put: MPI_Win_flush (the data is there), MPI_Accumulate +1 on
 *     the neighbour's counter, flush; then the thread waits until the
 *     neighbour's notification of this exchange is in the own window
 *     (MPI_Fetch_and_op MPI_NO_OP on itself) and unpacks.  No barrier: a slot
 *     is not overwritten before it is unpacked because CG's next exchange
 *     comes after an MPI_Allreduce that every rank enters only after its
 *     SpMV, i.e. after its unpacks.
 *   fence: MPI_Win_fence, the threads put, MPI_Win_fence, unpack.  A put of
 *     the next exchange reaches a window only after its owner's next fence,
 *     i.e. after its unpacks (MPI-3.1 11.5.1). */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

#include "app.h"

struct halo {
    const struct grid *gr;
    enum halo_mode mode;
    int threads;
    double *send[NDIR], *recv[NDIR]; /* two-sided receive buffers; RMA: slots in the window */
    MPI_Aint slot[NDIR];             /* RMA: byte displacement of each slot */
    MPI_Win win;
    int64_t *counter;                /* RMA: [NDIR] at the window's start */
    int64_t exchanges;
};


struct halo *halo_create(const struct grid *gr, enum halo_mode mode, int threads)
{
    struct halo *h = calloc(1, sizeof *h);
    h->gr = gr;
    h->mode = mode;
    h->threads = halo_threads(gr, mode, threads);
    MPI_Aint bytes = NDIR * (MPI_Aint)sizeof(int64_t);
    for (int d = 0; d < NDIR; d++) {
        h->send[d] = malloc(sizeof(double) * (size_t)(gr->count[d] ? gr->count[d] : 1));
        h->slot[d] = bytes;
        bytes += (MPI_Aint)sizeof(double) * gr->count[d];
    }
    if (mode == HALO_TWOSIDED) {
        for (int d = 0; d < NDIR; d++)
            h->recv[d] = malloc(sizeof(double) * (size_t)(gr->count[d] ? gr->count[d] : 1));
        return h;
    }
    char *base;
    /* MPICH 4.0.2 misplaces RMA data on MPI_Win_allocate windows whose size
     * is not a multiple of 16 (found by tests/mpi: MPICH host runs) */
    bytes = (bytes + 15) / 16 * 16;
    APP_CHECK(MPI_Win_allocate(bytes, 1, MPI_INFO_NULL, gr->comm, &base, &h->win));
    h->counter = (int64_t *)base;
    for (int d = 0; d < NDIR; d++) {
        h->counter[d] = 0;
        h->recv[d] = (double *)(base + h->slot[d]);
    }
    MPI_Barrier(gr->comm); /* counters are zero everywhere before anyone notifies */
    if (mode == HALO_RMA_LOCKALL)
        APP_CHECK(MPI_Win_lock_all(MPI_MODE_NOCHECK, h->win));
    return h;
}

static void exchange_twosided(struct halo *h, double *v)
{
    const struct grid *gr = h->gr;
    MPI_Request req[2 * NDIR];
    int nreq = 0;
    for (int i = 0; i < gr->ndir; i++) {
        int d = gr->dirs[i];
        /* what the neighbour in direction d sends me, it sends in its direction 26-d */
        APP_CHECK(MPI_Irecv(h->recv[d], gr->count[d], MPI_DOUBLE, gr->neighbour[d], NDIR - 1 - d, gr->comm,
                        &req[nreq++]));
    }
    for (int i = 0; i < gr->ndir; i++) {
        int d = gr->dirs[i];
        grid_pack(gr, d, v, h->send[d]);
        APP_CHECK(MPI_Isend(h->send[d], gr->count[d], MPI_DOUBLE, gr->neighbour[d], d, gr->comm, &req[nreq++]));
    }
    MPI_Status st[2 * NDIR]; /* not MPI_STATUSES_IGNORE: gcc 12 takes MPICH's (MPI_Status *)1 for an array */
    APP_CHECK(MPI_Waitall(nreq, req, st));
    for (int i = 0; i < gr->ndir; i++)
        grid_unpack(gr, gr->dirs[i], h->recv[gr->dirs[i]], v);
}

static void put_to(struct halo *h, int d, const double *v)
{
    const struct grid *gr = h->gr;
    grid_pack(gr, d, v, h->send[d]);
    APP_CHECK(MPI_Put(h->send[d], gr->count[d], MPI_DOUBLE, gr->neighbour[d], h->slot[NDIR - 1 - d], gr->count[d],
                  MPI_DOUBLE, h->win));
}

static void lockall_one(struct halo *h, int d, double *v, int64_t expected)
{
    const struct grid *gr = h->gr;
    const int peer = gr->neighbour[d];
    const int64_t one = 1;
    int64_t seen;
    put_to(h, d, v);
    APP_CHECK(MPI_Win_flush(peer, h->win));
    APP_CHECK(MPI_Accumulate(&one, 1, MPI_INT64_T, peer, (NDIR - 1 - d) * (MPI_Aint)sizeof(int64_t), 1, MPI_INT64_T,
                         MPI_SUM, h->win));
    APP_CHECK(MPI_Win_flush(peer, h->win));
    do {
        APP_CHECK(MPI_Fetch_and_op(NULL, &seen, MPI_INT64_T, gr->rank, d * (MPI_Aint)sizeof(int64_t), MPI_NO_OP, h->win));
        APP_CHECK(MPI_Win_flush(gr->rank, h->win));
        if (seen < expected)
            sched_yield(); /* ranks and threads may outnumber the cores */
    } while (seen < expected);
    APP_CHECK(MPI_Win_sync(h->win)); /* the slot's data as the neighbour's flush left it */
    grid_unpack(gr, d, h->recv[d], v);
}

static void exchange_lockall(struct halo *h, double *v)
{
    const struct grid *gr = h->gr;
    const int64_t expected = ++h->exchanges;
#pragma omp parallel for num_threads(h->threads) schedule(static, 1)
    for (int i = 0; i < gr->ndir; i++)
        lockall_one(h, gr->dirs[i], v, expected);
}

static void exchange_fence(struct halo *h, double *v)
{
    const struct grid *gr = h->gr;
    APP_CHECK(MPI_Win_fence(MPI_MODE_NOPRECEDE, h->win));
#pragma omp parallel for num_threads(h->threads) schedule(static, 1)
    for (int i = 0; i < gr->ndir; i++)
        put_to(h, gr->dirs[i], v);
    APP_CHECK(MPI_Win_fence(MPI_MODE_NOSUCCEED, h->win));
    for (int i = 0; i < gr->ndir; i++)
        grid_unpack(gr, gr->dirs[i], h->recv[gr->dirs[i]], v);
}

void halo_exchange(struct halo *h, double *v)
{
    switch (h->mode) {
    case HALO_TWOSIDED: exchange_twosided(h, v); break;
    case HALO_RMA_LOCKALL: exchange_lockall(h, v); break;
    case HALO_RMA_FENCE: exchange_fence(h, v); break;
    }
}

void halo_free(struct halo *h)
{
    if (h->mode != HALO_TWOSIDED) {
        if (h->mode == HALO_RMA_LOCKALL)
            APP_CHECK(MPI_Win_unlock_all(h->win));
        APP_CHECK(MPI_Win_free(&h->win));
    } else {
        for (int d = 0; d < NDIR; d++)
            free(h->recv[d]);
    }
    for (int d = 0; d < NDIR; d++)
        free(h->send[d]);
    free(h);
}
