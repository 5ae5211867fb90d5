/* The fast path of MPI_Fetch_and_op and of MPI_Accumulate of one element,
 * inline for the front end to call as a one-liner (as core/rma.h's for put
 * and get): one aligned 4- or 8-byte element of the type the window's last
 * such call used (its amo hint: no table lookup), MPI_SUM on an integer,
 * MPI_NO_OP (fetching only) or MPI_REPLACE on any such type, to a target
 * whose memory is mapped here and whose atomicity domain is this node's CPU
 * atomics, once lock-free calls go there (the conditions of accumulate's
 * one-atomic path: acc_fast.h).  Everything else goes to remora_fetch_and_op
 * and remora_accumulate (accumulate.c), which point the hint at the types
 * they could have served here. */
#ifndef REMORA_CORE_FOP_FAST_H
#define REMORA_CORE_FOP_FAST_H

#include "core/rma.h"

/* Would the fast path serve fetch-and-ops of e (for the amo hint)? */
static inline int remora_fop_fast_type(const struct remora_type_entry *e)
{
    return (e->size == 4 || e->size == 8) && e->size == e->extent;
}

/* Points w's amo hint at e when the fast path would serve e: the next call
 * of that type needs no table lookup. */
static inline void remora_fop_hint(struct remora_win *w, const struct remora_type_entry *e)
{
    if (remora_fop_fast_type(e) && atomic_load_explicit(&w->amo_hint, memory_order_relaxed) != e)
        atomic_store_explicit(&w->amo_hint, e, memory_order_relaxed);
}

/* One element; its old value to raddr unless NULL (an MPI_Accumulate of
 * one element the same on both sides).  1 when done; 0: take
 * remora_fetch_and_op (remora_accumulate's general path). */
static inline __attribute__((always_inline)) int remora_fast_fetch_and_op(const struct remora_win *w,
                                                                           const void *oaddr, void *raddr,
                                                                           MPI_Datatype type, int target,
                                                                           MPI_Aint tdisp, MPI_Op op)
{
    if (__builtin_expect(!w, 0))
        return 0;
    const struct remora_type_entry *e = atomic_load_explicit(&w->amo_hint, memory_order_relaxed);
    if (e->handle != type)
        return 0;
    char *t;
    const struct remora_rank_state *s = remora_fast_span(w, e->size, target, tdisp, &t);
    if (!s || !s->peer.amo_here || atomic_load_explicit(&s->peer.acc_lock_free, memory_order_acquire) != 2 ||
        (uintptr_t)t % e->size)
        return 0;
    enum remora_amo_op amo;
    uint64_t x = 0;
    if (op == MPI_SUM && remora_type_integer(e))
        amo = REMORA_AMO_ADD;
    else if (op == MPI_REPLACE)
        amo = REMORA_AMO_SWAP;
    else if (op == MPI_NO_OP && raddr) /* an add of 0, fetching (as accumulate's native atomics) */
        amo = REMORA_AMO_ADD;
    else
        return 0;
    if (op != MPI_NO_OP) {
        if (__builtin_expect(!oaddr, 0))
            return 0; /* erroneous: the slow path says so */
        x = remora_elem_load(oaddr, e->size);
    }
    uint64_t old = remora_mapped_amo(t, e->size, amo, x, 0);
    if (raddr)
        remora_elem_store(raddr, e->size, old);
    return 1;
}

#endif
