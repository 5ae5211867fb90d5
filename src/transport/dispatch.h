/* One entry point per transport operation, dispatching on the peer's kind
 * (data) or the window's atomicity domain (control words). */
#ifndef REMORA_TRANSPORT_DISPATCH_H
#define REMORA_TRANSPORT_DISPATCH_H

#include <errno.h>

#include "transport/shm.h"
#include "transport/transport.h"
#include "transport/ucx.h"

/* Put `len` bytes at byte offset `off` of the target's window memory.  0 or an errno. */
static inline int remora_tp_put(const struct remora_peer *p, uint64_t off, const void *src, size_t len)
{
    switch (p->kind) {
    case REMORA_PEER_MAPPED:
        remora_shm_copy(remora_addr(p, off), src, len);
        return 0;
    case REMORA_PEER_CMA:
        return remora_cma_put(p->pid, remora_addr(p, off), src, len);
    default:
        return remora_ucx_put(p, off, src, len);
    }
}

static inline int remora_tp_get(const struct remora_peer *p, uint64_t off, void *dst, size_t len)
{
    switch (p->kind) {
    case REMORA_PEER_MAPPED:
        remora_shm_copy(dst, remora_addr(p, off), len);
        return 0;
    case REMORA_PEER_CMA:
        return remora_cma_get(p->pid, remora_addr(p, off), dst, len);
    default:
        return remora_ucx_get(p, off, dst, len);
    }
}

/* A 64-bit atomic on the word at `ctrl_off` of the target's control block, in
 * the window's atomicity domain. */
static inline uint64_t remora_tp_amo(int domain, const struct remora_peer *p, size_t ctrl_off,
                                     enum remora_amo_op op, uint64_t operand, uint64_t compare)
{
    if (domain == REMORA_PEER_UCX)
        return remora_ucx_amo_ctrl(p, ctrl_off, op, operand, compare);
    return remora_shm_amo((_Atomic uint64_t *)((char *)p->ctrl + ctrl_off), op, operand, compare);
}

/* Remote completion of what this process issued to p (all targets when p is
 * NULL); in the network domain, atomics on mapped peers' words too. */
static inline int remora_tp_flush(int domain, const struct remora_peer *p)
{
    remora_shm_flush();
    if (domain == REMORA_PEER_UCX || (p && p->kind == REMORA_PEER_UCX))
        return remora_ucx_flush(p);
    return 0;
}

/* Let the transports move what waits on us (a spinning caller calls this). */
static inline void remora_tp_progress(int domain)
{
    if (domain == REMORA_PEER_UCX)
        remora_ucx_progress();
}

#endif
