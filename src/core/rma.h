/* Put and get.  The fast path (contiguous predefined type to a mapped target,
 * inside an epoch, in range) is inline here: handle -> window, a table lookup
 * of the type, epoch and range checks, a copy.  Everything else (derived
 * types, CMA, errors) goes to the slow paths in rma.c. */
#ifndef REMORA_CORE_RMA_H
#define REMORA_CORE_RMA_H

#include <mpi.h>

#include "core/type_table.h"
#include "core/win.h"
#include "runtime/context.h"
#include "transport/shm.h"

/* Slow paths: every check, every datatype, every transport.  Return
 * MPI_SUCCESS or an error class (not raised).  They point the window's type
 * hint at a predefined type they moved, for the fast path's next call. */
int remora_put(struct remora_win *w, const void *oaddr, MPI_Count ocount, MPI_Datatype otype, int target,
               MPI_Aint tdisp, MPI_Count tcount, MPI_Datatype ttype);
int remora_get(struct remora_win *w, void *oaddr, MPI_Count ocount, MPI_Datatype otype, int target, MPI_Aint tdisp,
               MPI_Count tcount, MPI_Datatype ttype);

struct remora_dt;
/* Checks of the target side shared by every RMA call: an epoch is open toward
 * target, and count elements of tt at tdisp lie in its window (for dynamic
 * windows: in one attached region).  *view is the target as this access
 * reaches it (for dynamic windows the region decides: mapped or CMA, atomic or
 * locked accumulates); *offset is the byte offset of the target buffer from
 * view->base. */
int remora_rma_target(struct remora_win *w, int target, MPI_Aint tdisp, const struct remora_dt *tt, MPI_Count tcount,
                      struct remora_peer *view, uint64_t *offset);
int remora_rma_counts(MPI_Count ocount, MPI_Count tcount);

/* The target side of a fast path: n bytes at tdisp of a target whose memory
 * is mapped here, inside an epoch, in range.  Returns 1 with the target
 * address, or 0 for the slow path. */
static inline int remora_fast_span(const struct remora_win *w, uint64_t n, int target, MPI_Aint tdisp, char **addr)
{
    if ((unsigned)target >= (unsigned)w->comm_size)
        return 0;
    const struct remora_peer *p = &w->peers[target];
    if (!atomic_load_explicit(&w->access_all, memory_order_relaxed) &&
        !atomic_load_explicit(&p->access, memory_order_relaxed))
        return 0;
    /* a negative or overflowing displacement, or one that wraps with n, never
     * passes: off is then >= 2^63 (or the product overflowed) or off + n carries */
    int64_t off;
    uint64_t end;
    if (__builtin_mul_overflow(tdisp, (int64_t)p->disp_unit, &off) ||
        __builtin_add_overflow((uint64_t)off, n, &end) || end > p->fast_limit)
        return 0;
    *addr = p->base + off;
    return 1;
}

/* The fast path of MPI_Put/MPI_Get: a contiguous predefined type, the same on
 * both sides (call only when otype == ttype and ocount == tcount), the type
 * the window last moved (its hint: no table lookup).  Returns 1 with the
 * target address and byte count, or 0 for the slow path. */
static inline int remora_fast_target(const struct remora_win *w, int count, MPI_Datatype type, int target,
                                     MPI_Aint tdisp, char **addr, uint64_t *bytes)
{
    const struct remora_type_entry *e = atomic_load_explicit(&w->type_hint, memory_order_relaxed);
    if (e->handle != type)
        return 0;
    uint64_t n = (uint64_t)(int64_t)count * e->size;
    if (!remora_fast_span(w, n, target, tdisp, addr))
        return 0;
    *bytes = n;
    return 1;
}

#endif
