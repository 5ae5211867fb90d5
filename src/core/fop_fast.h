/* The fast path of MPI_Fetch_and_op, inline for the front end to call as a
 * one-liner (as core/rma.h's for put and get): one aligned 4- or 8-byte
 * element of the type the window's last fetch-and-op used (its amo hint: no
 * table lookup), MPI_SUM on an integer, MPI_NO_OP or MPI_REPLACE on any such
 * type, to a target whose memory is mapped here and whose atomicity domain is
 * this node's CPU atomics, once lock-free calls go there (the conditions of
 * accumulate's one-atomic path: acc_fast.h).  Everything else goes to
 * remora_fetch_and_op (accumulate.c), which points the hint at the types it
 * could have served here. */
#ifndef REMORA_CORE_FOP_FAST_H
#define REMORA_CORE_FOP_FAST_H

#include <string.h>

#include "core/rma.h"

/* Would the fast path serve fetch-and-ops of e (for the amo hint)? */
static inline int remora_fop_fast_type(const struct remora_type_entry *e)
{
    return (e->size == 4 || e->size == 8) && e->size == e->extent;
}

#define REMORA_FOP_FAST(bits)                                                                                  \
    static inline int remora_fop_fast##bits(void *at, const void *oaddr, void *raddr, MPI_Op op, int integer)  \
    {                                                                                                          \
        uint##bits##_t x, old;                                                                                 \
        if (op == MPI_SUM && integer) {                                                                        \
            memcpy(&x, oaddr, sizeof x);                                                                       \
            old = __atomic_fetch_add((uint##bits##_t *)at, x, __ATOMIC_SEQ_CST);                              \
        } else if (op == MPI_NO_OP) {                                                                          \
            old = __atomic_load_n((uint##bits##_t *)at, __ATOMIC_SEQ_CST);                                     \
        } else if (op == MPI_REPLACE) {                                                                        \
            memcpy(&x, oaddr, sizeof x);                                                                       \
            old = __atomic_exchange_n((uint##bits##_t *)at, x, __ATOMIC_SEQ_CST);                             \
        } else {                                                                                               \
            return 0;                                                                                          \
        }                                                                                                      \
        memcpy(raddr, &old, sizeof old);                                                                       \
        return 1;                                                                                              \
    }
REMORA_FOP_FAST(32)
REMORA_FOP_FAST(64)
#undef REMORA_FOP_FAST

/* 1 when done; 0: take remora_fetch_and_op. */
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
    int integer = e->tclass == REMORA_TC_INT || e->tclass == REMORA_TC_BYTE;
    return e->size == 8 ? remora_fop_fast64(t, oaddr, raddr, op, integer)
                        : remora_fop_fast32(t, oaddr, raddr, op, integer);
}

#endif
