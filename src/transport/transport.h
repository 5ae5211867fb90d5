/* The transport interface: how an origin reaches a target's memory and its
 * control words.  Three transports: mapped (myself, or a segment shared on the
 * node: load/store and CPU atomics), cma (same node, memory we cannot map:
 * process_vm_readv/writev) and ucx (other nodes).  The synchronisation
 * protocols are written once in core/ over put/get, a 64-bit remote atomic
 * and flush; a transport never knows what an epoch is.
 *
 * Atomicity domain: all atomics on one window's words go through one domain
 * (remora_win.amo_domain): CPU atomics when the window lives on one node,
 * otherwise the network's, for on-node peers too. */
#ifndef REMORA_TRANSPORT_TRANSPORT_H
#define REMORA_TRANSPORT_TRANSPORT_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct remora_ctrl;

enum remora_peer_kind {
    REMORA_PEER_MAPPED = 0, /* load/store: myself, or a node-shared segment */
    REMORA_PEER_CMA,        /* same node, memory we cannot map              */
    REMORA_PEER_UCX,        /* other node (or REMORA_TRANSPORT=ucx)         */
};

/* Bits of remora_peer.access: which access epoch lets us reach this target.
 * Kept here so that the fast path reads kind and access from one struct. */
enum {
    REMORA_ACCESS_LOCK_SHARED = 1,
    REMORA_ACCESS_LOCK_EXCL = 2,
    REMORA_ACCESS_PSCW = 4,
};

/* What an origin knows of one target of one window. */
struct remora_peer {
    /* the fast path's fields first */
    char *base;             /* MAPPED: its window memory in my address space; CMA/UCX: in its own */
    uint64_t fast_limit;    /* MAPPED: its window size, else 0: load/store reaches [0, fast_limit) */
    uint32_t disp_unit;
    _Atomic uint8_t access; /* REMORA_ACCESS_* bits open toward it (core's business)             */
    uint8_t kind;           /* enum remora_peer_kind                                             */
    uint8_t acc_locked;     /* accumulates on its memory take its accumulate lock: some origin
                               cannot use atomics on it (CMA), so none may                       */
    struct remora_ctrl *ctrl; /* its control block, mapped (MAPPED/CMA peers)                    */
    pid_t pid;              /* CMA                                                               */
    void *net;              /* UCX: endpoint and remote keys                                     */
    uint64_t size;          /* its window size in bytes                                         */
} __attribute__((aligned(64))); /* one cache line: the fast path indexes peers by a shift */

/* Byte `off` of the peer's memory.  Integer arithmetic: for dynamic windows
 * base is 0 and offsets are addresses. */
static inline char *remora_addr(const struct remora_peer *p, uint64_t off)
{
    return (char *)((uintptr_t)p->base + off);
}

/* A copy of what reaches a peer, without its epoch state. */
static inline void remora_peer_copy(struct remora_peer *dst, const struct remora_peer *src)
{
    dst->base = src->base;
    dst->fast_limit = src->fast_limit;
    dst->size = src->size;
    dst->disp_unit = src->disp_unit;
    dst->kind = src->kind;
    atomic_init(&dst->access, 0);
    dst->acc_locked = src->acc_locked;
    dst->ctrl = src->ctrl;
    dst->pid = src->pid;
    dst->net = src->net;
}

enum remora_amo_op {
    REMORA_AMO_FADD, REMORA_AMO_CSWAP, REMORA_AMO_SWAP, REMORA_AMO_LOAD,
    REMORA_AMO_AND, REMORA_AMO_OR, REMORA_AMO_XOR, /* window data only (accumulates) */
};

#endif
