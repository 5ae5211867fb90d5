/* Atomics beyond the inline case of ops.h (a heap word of a mapped PE while
 * every heap is mapped): the network, which is then the atomicity domain of
 * every word, or CPU atomics on this PE's own memory when it is alone. */
#include "shmem/ctx.h"
#include "shmem/ops.h"

uint64_t remora_shmem_amo_slow(const char *routine, void *dest, size_t size, int op, uint64_t operand,
                               uint64_t compare, int pe, int fetch)
{
    if (((uintptr_t)dest & (size - 1)) != 0)
        remora_shmem_abort(routine, "%p is not aligned to the %zu bytes of the atomic's type", dest, size);
    uint64_t off;
    const struct remora_shmem_region *r = remora_shmem_locate(routine, dest, size, &off);
    if (!remora_shmem.use_net) /* one PE: its own memory */
        return remora_mapped_amo((char *)r->base + off, size, (enum remora_amo_op)op, operand, compare);
    /* a waiter may sleep on its doorbell when every PE is on its node (wait.c):
     * ring after the update is there */
    int ring = remora_shmem.view[pe] != NULL && remora_shmem.nlocal == remora_shmem.n_pes;
    uint64_t old = 0;
    int st = remora_amo(&r->atom[pe], off, size, (enum remora_amo_op)op, operand, compare,
                        fetch || ring ? &old : NULL);
    if (st != REMORA_OK)
        remora_shmem_abort(routine, "the atomic on PE %d failed: %s", pe, remora_status_str(st));
    if (ring)
        remora_shmem_ring(pe);
    else if (!fetch)
        atomic_store_explicit(&remora_shmem.net_pending, 1, memory_order_relaxed);
    return old;
}
