/* Accumulates and atomics: MPI_Accumulate, MPI_Get_accumulate,
 * MPI_Fetch_and_op, MPI_Compare_and_swap.
 *
 * Element-wise atomicity.  Each target element is updated in one of two modes,
 * chosen by properties every origin sees alike, so one element is never
 * updated in both:
 *   atomic  the transport's atomics on the target's `amo` memory (CPU atomics
 *           inline when it is mapped here, network atomics across nodes):
 *           single-operation atomics (add, and, or, xor, swap) or a
 *           compare-and-swap loop around the reduction kernel, for elements
 *           whose size the transport does in one operation, aligned to it,
 *           on memory where every origin has atomics;
 *   locked  under the target's accumulate lock (ctrl.acc_lock): everything
 *           else, read-modify-write through the `data` memory, in place when
 *           it is mapped here, else get, flush, put, flush.
 * Fetching calls (results) and accumulate_ordering other than "none" wait for
 * each atomic; otherwise network atomics complete at the next flush. */
#ifndef REMORA_CORE_ACCUMULATE_H
#define REMORA_CORE_ACCUMULATE_H

#include <mpi.h>

#include "core/win.h"

/* result == NULL: MPI_Accumulate; otherwise MPI_Get_accumulate. */
int remora_accumulate(struct remora_win *w, const void *oaddr, MPI_Count ocount, MPI_Datatype otype, void *raddr,
                      MPI_Count rcount, MPI_Datatype rtype, int target, MPI_Aint tdisp, MPI_Count tcount,
                      MPI_Datatype ttype, MPI_Op op);
int remora_fetch_and_op(struct remora_win *w, const void *oaddr, void *raddr, MPI_Datatype type, int target,
                        MPI_Aint tdisp, MPI_Op op);
int remora_compare_and_swap(struct remora_win *w, const void *oaddr, const void *caddr, void *raddr,
                            MPI_Datatype type, int target, MPI_Aint tdisp);

#endif
