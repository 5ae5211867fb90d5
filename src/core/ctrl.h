/* Atomics on the control words of a window's ranks (struct remora_ctrl),
 * through each rank's ctrl rmem: CPU atomics inline when the window lives on
 * one node, the network's when it spans nodes. */
#ifndef REMORA_CORE_CTRL_H
#define REMORA_CORE_CTRL_H

#include "core/win.h"
#include "transport/mapped.h"

/* op on the 8-byte word at `off` of target's control block; waits for the old value. */
static inline int remora_ctrl_amo(const struct remora_win *w, int target, size_t off, enum remora_amo_op op,
                                  uint64_t x, uint64_t cmp, uint64_t *old)
{
    const struct remora_rmem *m = &w->reach[target].ctrl;
    char *p = remora_mapped(m, off);
    if (p) {
        *old = remora_mapped_amo64(p, op, x, cmp);
        return REMORA_OK;
    }
    return remora_amo(m, off, 8, op, x, cmp, old);
}

/* The doorbell of target's control block, when the window lives on one node
 * (its control words then change by CPU atomics only, and remora_ctrl_signal
 * rings it); NULL across nodes, where network atomics ring nothing. */
static inline struct remora_doorbell *remora_ctrl_bell(const struct remora_win *w, int target)
{
    return w->spans_nodes ? NULL : (struct remora_doorbell *)remora_mapped(&w->reach[target].ctrl, REMORA_CTRL_BELL);
}

/* remora_ctrl_amo on a word that someone may be waiting for: rings target's doorbell after it. */
static inline int remora_ctrl_signal(const struct remora_win *w, int target, size_t off, enum remora_amo_op op,
                                     uint64_t x, uint64_t cmp, uint64_t *old)
{
    int st = remora_ctrl_amo(w, target, off, op, x, cmp, old);
    struct remora_doorbell *bell = remora_ctrl_bell(w, target);
    if (bell)
        remora_doorbell_ring(bell);
    return st;
}

#endif
