/* One element with atomics: the lock-free protocol of a call that is one
 * element (1, 2, 4 or 8 bytes, aligned) of memory with atomics for every
 * origin.  Chosen by the dispatcher (accumulate.c: run, and the on-node fast
 * paths of acc_fast.h) once lock-free calls go at the target
 * (acc_stripes.h), and by the owner's protocol for one fetched element that
 * one network atomic updates: the element's own atomic (add, and, or, xor,
 * swap, compare-and-swap) or a compare-and-swap loop around the reduction
 * kernel.  Also the element helpers the other protocols share.  Core-internal
 * (only the accumulate protocols include it); static inline so that the fast
 * paths stay as they were, one function each. */
#ifndef REMORA_CORE_ACC_ELEM_H
#define REMORA_CORE_ACC_ELEM_H

#include <stdint.h>
#include <string.h>

#include "core/reduce.h"
#include "transport/mapped.h"
#include "transport/transport.h"

/* ---- one element with atomics ------------------------------------------------ */

/* One atomic on the element at off of m: inline CPU atomics when m is mapped here. */
static inline remora_status_t elem_amo(const struct remora_rmem *m, uint64_t off, size_t size, enum remora_amo_op op, uint64_t x,
                           uint64_t cmp, uint64_t *old)
{
    char *p = remora_mapped(m, off);
    if (p) {
        uint64_t v = remora_mapped_amo(p, size, op, x, cmp);
        if (old)
            *old = v;
        return REMORA_OK;
    }
    return remora_amo(m, off, size, op, x, cmp, old);
}

/* The single atomic that does op on an element, or -1 (a compare-and-swap
 * loop around the reduction kernel does it). */
static inline int native_amo(enum remora_op op, int integer)
{
    switch (op) {
    case REMORA_OP_NO_OP: return REMORA_AMO_ADD; /* of 0, fetching */
    case REMORA_OP_REPLACE: return REMORA_AMO_SWAP;
    case REMORA_OP_SUM: return integer ? REMORA_AMO_ADD : -1;
    case REMORA_OP_BAND: return REMORA_AMO_AND;
    case REMORA_OP_BOR: return REMORA_AMO_OR;
    case REMORA_OP_BXOR: return REMORA_AMO_XOR;
    default: return -1;
    }
}

/* Apply op to the size-byte element at off of m with operand o (NULL for
 * NO_OP); its old value to r when r is set.  A result (or `wait`) makes the
 * atomic fetching, so it is complete on return; otherwise it completes at the
 * next flush. */
static inline remora_status_t update_elem(const struct remora_rmem *m, uint64_t off, size_t size, enum remora_op op,
                       remora_reduce_fn kernel, int integer, const void *o, void *r, int wait)
{
    uint64_t x = o ? remora_elem_load(o, size) : 0, old = 0;
    int amo = native_amo(op, integer);
    remora_status_t st;
    if (amo >= 0) {
        st = elem_amo(m, off, size, (enum remora_amo_op)amo, x, 0, r || wait || op == REMORA_OP_NO_OP ? &old : NULL);
    } else {
        st = elem_amo(m, off, size, REMORA_AMO_ADD, 0, 0, &old);
        while (remora_ok(st)) {
            union { uint64_t u; long double align; unsigned char b[8]; } nv;
            remora_elem_store(nv.b, size, old);
            kernel(nv.b, o, 1);
            uint64_t seen;
            if (!remora_ok((st = elem_amo(m, off, size, REMORA_AMO_CSWAP, remora_elem_load(nv.b, size), old, &seen))) ||
                seen == old)
                break;
            old = seen;
        }
    }
    if (remora_ok(st) && r)
        remora_elem_store(r, size, old);
    return st;
}

/* The call on len bytes at t of whole elements of esz bytes, plainly: their
 * old value to r (unless NULL), then op with the elements at o. */
static inline void plain_bytes(char *t, const char *o, char *r, uint64_t len, enum remora_op op, remora_reduce_fn kernel,
                        size_t esz)
{
    if (r)
        memcpy(r, t, len);
    if (op == REMORA_OP_REPLACE)
        memmove(t, o, len); /* the origin may be window memory */
    else if (op != REMORA_OP_NO_OP)
        kernel(t, o, len / esz);
}

#endif
