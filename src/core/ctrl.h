/* Atomics on the control words of a window's ranks (struct remora_ctrl),
 * through each rank's ctrl rmem: CPU atomics inline when the window lives on
 * one node, the network's when it spans nodes. */
#ifndef REMORA_CORE_CTRL_H
#define REMORA_CORE_CTRL_H

#include "core/win.h"
#include "transport/mapped.h"

/* Target's control block; NULL when its state cannot be made (no memory). */
static inline const struct remora_rmem *remora_ctrl_of(struct remora_win *w, int target)
{
    struct remora_rank_state *s = remora_rank(w, target);
    return s ? &s->reach.ctrl : NULL;
}

/* op on the 8-byte word at `off` of target's control block; waits for the old value. */
static inline remora_status_t remora_ctrl_amo(struct remora_win *w, int target, size_t off, enum remora_amo_op op,
                                  uint64_t x, uint64_t cmp, uint64_t *old)
{
    const struct remora_rmem *m = remora_ctrl_of(w, target);
    if (!m)
        return REMORA_ERR_NO_MEM;
    char *p = remora_mapped(m, off);
    if (p) {
        *old = remora_mapped_amo64(p, op, x, cmp);
        return REMORA_OK;
    }
    return remora_amo(m, off, 8, op, x, cmp, old);
}

/* The doorbell of target's control block, when the window lives on one node
 * (its control words then change by CPU atomics only, and remora_ctrl_signal
 * rings it); NULL across nodes, where network atomics ring nothing (and when
 * out of memory: the next atomic fails). */
static inline struct remora_doorbell *remora_ctrl_bell(struct remora_win *w, int target)
{
    const struct remora_rmem *m = w->spans_nodes ? NULL : remora_ctrl_of(w, target);
    return m ? (struct remora_doorbell *)remora_mapped(m, REMORA_CTRL_BELL) : NULL;
}

/* remora_ctrl_amo on a word that someone may be waiting for: rings target's doorbell after it. */
static inline remora_status_t remora_ctrl_signal(struct remora_win *w, int target, size_t off, enum remora_amo_op op,
                                     uint64_t x, uint64_t cmp, uint64_t *old)
{
    remora_status_t st = remora_ctrl_amo(w, target, off, op, x, cmp, old);
    struct remora_doorbell *bell = remora_ctrl_bell(w, target);
    if (bell)
        remora_doorbell_ring(bell);
    return st;
}

/* remora_ctrl_signal that may still be in flight when it returns: *old is
 * valid once remora_ctrl_complete(w, target) has returned.  Lets a protocol
 * step have atomics at two ranks in flight together (one round trip). */
static inline remora_status_t remora_ctrl_signal_nbi(struct remora_win *w, int target, size_t off, enum remora_amo_op op,
                                         uint64_t x, uint64_t cmp, uint64_t *old)
{
    const struct remora_rmem *m = remora_ctrl_of(w, target);
    if (!m || remora_mapped(m, off))
        return remora_ctrl_signal(w, target, off, op, x, cmp, old);
    return remora_amo_nbi(m, off, 8, op, x, cmp, old);
}

static inline remora_status_t remora_ctrl_complete(struct remora_win *w, int target)
{
    const struct remora_rmem *m = remora_ctrl_of(w, target);
    return !m ? REMORA_ERR_NO_MEM : remora_mapped(m, 0) ? REMORA_OK : remora_flush(m);
}

/* Add x to a control word and ring: a release, which nobody needs to see
 * complete, so over the network it is sent and not waited for. */
static inline remora_status_t remora_ctrl_release(struct remora_win *w, int target, size_t off, uint64_t x)
{
    const struct remora_rmem *m = remora_ctrl_of(w, target);
    if (!m)
        return REMORA_ERR_NO_MEM;
    char *p = remora_mapped(m, off);
    if (!p)
        return remora_amo_post(m, off, 8, REMORA_AMO_ADD, x);
    remora_mapped_amo64(p, REMORA_AMO_ADD, x, 0);
    struct remora_doorbell *bell = remora_ctrl_bell(w, target);
    if (bell)
        remora_doorbell_ring(bell);
    return REMORA_OK;
}

#endif
