/* hashtable's RMA mode (main.c describes the protocol): every insert by
 * MPI-3 atomics on the owner's volume in one passive-target epoch. */
#include <stdio.h>

#include "check.h"
#include "hashtable.h"

/* Every word that two ranks may touch at once (a slot's key, a chain's head,
 * the next free cell) is only accessed with MPI atomics of one datatype,
 * MPI_UINT64_T; a cell is written by Put while only its claimer knows it. */
static void insert_remote(MPI_Win win, const struct volume *v, int owner, uint64_t slot, uint64_t key)
{
    const uint64_t empty = 0, one = 1;
    uint64_t previous;
    APP_CHECK(MPI_Compare_and_swap(&key, &empty, &previous, MPI_UINT64_T, owner, volume_key_at(v, slot), win));
    APP_CHECK(MPI_Win_flush(owner, win));
    if (previous == empty)
        return;
    /* collision: claim a cell of the overflow heap and read the chain's head */
    uint64_t cell, head;
    APP_CHECK(MPI_Fetch_and_op(&one, &cell, MPI_UINT64_T, owner, NEXT_FREE, MPI_SUM, win));
    APP_CHECK(MPI_Fetch_and_op(NULL, &head, MPI_UINT64_T, owner, volume_head_at(v, slot), MPI_NO_OP, win));
    APP_CHECK(MPI_Win_flush(owner, win));
    if (cell >= v->capacity) {
        fprintf(stderr, "hashtable: rank %d's overflow heap of %llu cells is full\n", owner,
                (unsigned long long)v->capacity);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    /* push the cell at the chain's front: the cell, pointing at the head, is
     * complete at the owner before the head's CAS publishes it, so a reader
     * following the chain never sees a cell half written or loses the rest */
    const uint64_t element[CELL_WORDS] = {[CELL_KEY] = key, [CELL_NEXT] = head}, link = cell + 1;
    APP_CHECK(MPI_Put(element, CELL_WORDS, MPI_UINT64_T, owner, volume_cell_at(v, cell), CELL_WORDS, MPI_UINT64_T,
                      win));
    for (;;) {
        APP_CHECK(MPI_Win_flush(owner, win));
        APP_CHECK(MPI_Compare_and_swap(&link, &head, &previous, MPI_UINT64_T, owner, volume_head_at(v, slot), win));
        APP_CHECK(MPI_Win_flush(owner, win));
        if (previous == head)
            return;
        /* another insert pushed first: point behind it and try again */
        head = previous;
        APP_CHECK(MPI_Put(&head, 1, MPI_UINT64_T, owner, volume_cell_at(v, cell) + CELL_NEXT, 1, MPI_UINT64_T, win));
    }
}

void rma_insert(MPI_Win win, const struct volume *layout, const struct problem *pb, MPI_Comm comm,
                struct motif_times *t)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    double t0 = MPI_Wtime();
    APP_CHECK(MPI_Win_lock_all(MPI_MODE_NOCHECK, win));
    for (uint64_t i = 0; i < pb->inserts; i++) {
        uint64_t key = key_of(pb, rank, i);
        insert_remote(win, layout, owner_of(pb, key), slot_of(pb, key), key);
    }
    double t1 = MPI_Wtime();
    motif_phase(t, "insert", t1 - t0);
    APP_CHECK(MPI_Win_unlock_all(win));
    APP_CHECK(MPI_Barrier(comm));
    motif_phase(t, "sync", MPI_Wtime() - t1);
}
