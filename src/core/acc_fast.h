/* The on-node fast paths of the entry points (accumulate.c): count elements
 * of one predefined type to a target mapped here whose memory every origin
 * reaches with CPU atomics, inside an epoch, in range, with no layout and no
 * pieces.  Chosen first by remora_accumulate, remora_fetch_and_op and
 * remora_compare_and_swap; anything else (-1) takes the general path
 * (accumulate.c: run).  Included by accumulate.c alone: static inline, so
 * that each entry point is one function as before (bench/instructions counts
 * MPI_Accumulate of a row and MPI_Fetch_and_op). */
#ifndef REMORA_CORE_ACC_FAST_H
#define REMORA_CORE_ACC_FAST_H

#include <limits.h>

#include "core/acc_elem.h"
#include "core/acc_stripes.h"
#include "core/accumulate.h"
#include "core/engine.h"
#include "core/fop_fast.h"
#include "core/rma.h"
#include "core/status.h"

/* The fast paths, for count elements of one predefined type without holes,
 * the same type and count on every side, to a target mapped here whose
 * memory every origin reaches with atomics, inside an epoch, in range: no
 * layouts, no pieces.  One element of 1, 2, 4 or 8 bytes, aligned, once
 * lock-free calls go: one CPU atomic.  Any other call while no lock-free call
 * is known: under its stripes, plainly if the state read under them is still
 * 0 (the rows of Global Arrays' and ARMCI-MPI's accumulates).  Returns
 * MPI_SUCCESS or an error class, or -1 for the general case. */
static inline int accumulate_fast(struct remora_win *w, const void *oaddr, MPI_Count ocount, MPI_Datatype otype,
                           const struct remora_acc_result *res, int target, MPI_Aint tdisp, MPI_Count tcount,
                           MPI_Datatype ttype, enum remora_op op)
{
    if (tcount < 1 || tcount > INT_MAX || (op != REMORA_OP_NO_OP && (otype != ttype || ocount != tcount)) ||
        (res && (res->type != ttype || res->count != tcount || !res->addr)))
        return -1;
    const struct remora_type_entry *e = remora_type_lookup(&remora_core.types, ttype);
    char *t;
    uint64_t n = e ? (uint64_t)tcount * e->size : 0; /* bytes */
    if (tcount == 1 && e)
        remora_fop_hint(w, e);
    const struct remora_rank_state *s;
    if (!e || e->size != e->extent || !(s = remora_fast_span(w, n, target, tdisp, &t)) || !s->peer.acc_atomic)
        return -1;
    uint8_t lock_free = lock_free_known(s);
    const struct remora_reach *x = &s->reach;
    if (remora_applies(&x->amo)) /* the owner carries accumulates out (run) */
        return -1;
    uint64_t off = (uint64_t)(t - s->peer.base);
    int one_atomic = tcount == 1 && remora_amo_size_valid(e->size) && remora_mapped(&x->amo, 0) &&
                     (x->amo.base + off) % e->size == 0;
    if (one_atomic ? lock_free != 2 : lock_free != 0)
        return -1;
    remora_reduce_fn kernel = remora_reduce_kernel(op, e); /* remora_op_allowed, without a second lookup */
    if (!kernel && op != REMORA_OP_REPLACE && op != REMORA_OP_NO_OP)
        return remora_err(MPI_ERR_OP, "the operation is not defined on this datatype");
    const void *o = op == REMORA_OP_NO_OP ? NULL : oaddr;
    void *r = res ? res->addr : NULL;
    if (one_atomic) {
        update_elem(&x->amo, off, e->size, op, kernel, remora_type_integer(e), o, r, 0);
        return MPI_SUCCESS;
    }
    uint64_t mask = stripes_of(off, off + n), state = 0;
    remora_status_t st = stripes_lock(w, target, mask);
    if (remora_ok(st)) {
        if (remora_ok((st = lock_free_read(w, target, &state))) && state == 0)
            plain_bytes(t, o, r, n, op, kernel, e->size);
        remora_status_t st2 = stripes_unlock(w, target, mask);
        st = !remora_ok(st) ? st : st2;
    }
    if (!remora_ok(st))
        return remora_status_err(st, "accumulate at target %d", target);
    return state == 0 ? MPI_SUCCESS : -1;
}

/* The fast path of MPI_Fetch_and_op and MPI_Compare_and_swap: one aligned
 * 4- or 8-byte element, whose op is one CPU atomic, of a target mapped here
 * once lock-free calls go there (the conditions of accumulate_fast's one
 * atomic, without its general checks).  MPI_SUCCESS, or -1 for the general
 * path. */
static inline int atomic_fast(struct remora_win *w, const struct remora_type_entry *e, int amo, const void *oaddr,
                       const void *caddr, void *raddr, int target, MPI_Aint tdisp)
{
    char *t;
    const struct remora_rank_state *s;
    if (amo < 0 || (e->size != 4 && e->size != 8) || !(s = remora_fast_span(w, e->size, target, tdisp, &t)) ||
        !s->peer.acc_atomic || lock_free_known(s) != 2)
        return -1;
    char *p = remora_mapped(&s->reach.amo, (uint64_t)(t - s->peer.base));
    if (!p || (uintptr_t)p % e->size)
        return -1;
    uint64_t x = oaddr ? remora_elem_load(oaddr, e->size) : 0, c = caddr ? remora_elem_load(caddr, e->size) : 0;
    remora_elem_store(raddr, e->size, remora_mapped_amo(p, e->size, (enum remora_amo_op)amo, x, c));
    return MPI_SUCCESS;
}

#endif
