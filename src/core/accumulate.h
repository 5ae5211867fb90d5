/* Accumulates and atomics: MPI_Accumulate, MPI_Get_accumulate,
 * MPI_Fetch_and_op, MPI_Compare_and_swap.
 *
 * Element-wise atomicity.  Each target element is updated in one of two modes,
 * chosen by properties every origin sees alike, so one element is never
 * updated in both:
 *   atomic  CPU atomics (fetch-add, fetch-and/or/xor, exchange, or a CAS loop
 *           around the reduction kernel): mapped target, element of 1, 2, 4
 *           or 8 bytes at an address aligned to its size;
 *   locked  under the target's accumulate lock (ctrl.acc_lock): everything
 *           else - elements of other sizes or misaligned, and every element of
 *           a target some origin can reach only by CMA (peer.acc_locked).
 * All operations complete before returning, so any accumulate_ordering holds. */
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
