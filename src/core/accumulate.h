/* Accumulates and atomics: MPI_Accumulate, MPI_Get_accumulate,
 * MPI_Fetch_and_op, MPI_Compare_and_swap.
 *
 * Each call is atomic as a whole with respect to every other call of these
 * on overlapping bytes of the window, whatever their types (more than the
 * standard's per-element atomicity: programs rely on it):
 *   lock-free  a call whose bytes fit in one aligned word that the target
 *              memory's atomics update at once (1-8 bytes, 16 on memory
 *              mapped here with a 16-byte compare-and-swap) is one atomic:
 *              the element's own (add, and, or, xor, swap, compare-and-swap)
 *              or a compare-and-swap of the word;
 *   striped    every other call holds the stripe locks of its bytes
 *              (ctrl.acc_stripes) while it compare-and-swaps each unit it
 *              changes (memory with atomics) or gets and puts the bytes
 *              (memory some origin reaches without atomics).
 * See accumulate.c for why the two kinds never see each other half done.
 * Lock-free non-fetching calls complete at the next flush when
 * accumulate_ordering is "none", else at once; striped calls are complete
 * when they return. */
#ifndef REMORA_CORE_ACCUMULATE_H
#define REMORA_CORE_ACCUMULATE_H

#include <mpi.h>

#include "core/win.h"

/* The result side of a fetching accumulate; addr may be MPI_BOTTOM with a
 * datatype of absolute addresses. */
struct remora_acc_result {
    void *addr;
    MPI_Count count;
    MPI_Datatype type;
};

/* res == NULL: MPI_Accumulate; otherwise MPI_Get_accumulate. */
int remora_accumulate(struct remora_win *w, const void *oaddr, MPI_Count ocount, MPI_Datatype otype,
                      const struct remora_acc_result *res, int target, MPI_Aint tdisp, MPI_Count tcount,
                      MPI_Datatype ttype, MPI_Op op);
int remora_fetch_and_op(struct remora_win *w, const void *oaddr, void *raddr, MPI_Datatype type, int target,
                        MPI_Aint tdisp, MPI_Op op);
int remora_compare_and_swap(struct remora_win *w, const void *oaddr, const void *caddr, void *raddr,
                            MPI_Datatype type, int target, MPI_Aint tdisp);

#endif
