/* The shared-memory transport: targets whose memory is mapped here (myself,
 * or a node-shared segment) are reached with load/store and CPU atomics;
 * on-node memory we could not map goes through process_vm_readv/writev
 * (shm_cma.c).  Stores are remotely complete once a fence orders them. */
#ifndef REMORA_TRANSPORT_SHM_H
#define REMORA_TRANSPORT_SHM_H

#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>
#include <sys/uio.h>

#include "transport/transport.h"

/* memcpy with the word-sized cases inline: the fast path's 8-byte put must
 * not pay a call into libc. */
static inline void remora_shm_copy(void *dst, const void *src, size_t n)
{
    if (__builtin_expect(n == 8, 1)) {
        uint64_t v;
        memcpy(&v, src, 8);
        memcpy(dst, &v, 8);
    } else if (n == 4) {
        uint32_t v;
        memcpy(&v, src, 4);
        memcpy(dst, &v, 4);
    } else {
        memmove(dst, src, n); /* a window may be the origin of a put to itself */
    }
}

static inline uint64_t remora_shm_amo(_Atomic uint64_t *word, enum remora_amo_op op, uint64_t operand, uint64_t compare)
{
    switch (op) {
    case REMORA_AMO_FADD:
        return atomic_fetch_add(word, operand);
    case REMORA_AMO_SWAP:
        return atomic_exchange(word, operand);
    case REMORA_AMO_CSWAP:
        atomic_compare_exchange_strong(word, &compare, operand);
        return compare; /* the old value, whether or not it matched */
    case REMORA_AMO_LOAD:
    default:
        return atomic_load(word);
    }
}

/* Completion of everything issued so far by this thread, to every shm target. */
static inline void remora_shm_flush(void) { atomic_thread_fence(memory_order_seq_cst); }

/* process_vm_writev/readv of whole iovec lists (loops over partial transfers and
 * IOV_MAX).  Return 0 or an errno. */
int remora_cma_writev(pid_t pid, const struct iovec *local, size_t nlocal, const struct iovec *remote, size_t nremote);
int remora_cma_readv(pid_t pid, const struct iovec *local, size_t nlocal, const struct iovec *remote, size_t nremote);

static inline int remora_cma_put(pid_t pid, char *remote, const void *src, size_t len)
{
    struct iovec l = {(void *)src, len}, r = {remote, len};
    return remora_cma_writev(pid, &l, 1, &r, 1);
}

static inline int remora_cma_get(pid_t pid, const char *remote, void *dst, size_t len)
{
    struct iovec l = {dst, len}, r = {(void *)remote, len};
    return remora_cma_readv(pid, &l, 1, &r, 1);
}

#endif
