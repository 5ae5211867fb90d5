/* Atomics beyond the inline case of ops.h (a heap word of a mapped PE while
 * every heap is mapped): the network, which is then the atomicity domain of
 * every word, or CPU atomics on this PE's own memory when it is alone.
 * Non-blocking fetching atomics over the network leave their reply to the
 * next quiet's flush. */
#include "shmem/ctx.h"
#include "shmem/ops.h"

/* The region of the word at dest (aborting on a misaligned or non-symmetric one). */
static const struct remora_shmem_region *word(const char *routine, void *dest, size_t size, uint64_t *off)
{
    if (((uintptr_t)dest & (size - 1)) != 0)
        remora_shmem_abort(routine, "%p is not aligned to the %zu bytes of the atomic's type", dest, size);
    return remora_shmem_locate(routine, dest, size, off);
}

/* A waiter may sleep on its doorbell when every PE is on its node (wait.c):
 * then an atomic rings it after the update is there. */
static int must_ring(int pe) { return remora_shmem.view[pe] != NULL && remora_shmem.nlocal == remora_shmem.n_pes; }

uint64_t remora_shmem_amo_slow(const char *routine, void *dest, size_t size, int op, uint64_t operand,
                               uint64_t compare, int pe, int fetch)
{
    uint64_t off;
    const struct remora_shmem_region *r = word(routine, dest, size, &off);
    if (!remora_shmem.use_net) /* one PE: its own memory */
        return remora_mapped_amo((char *)r->base + off, size, (enum remora_amo_op)op, operand, compare);
    int ring = must_ring(pe);
    uint64_t old = 0;
    remora_status_t st = remora_amo(&r->atom[pe], off, size, (enum remora_amo_op)op, operand, compare,
                        fetch || ring ? &old : NULL);
    if (!remora_ok(st))
        remora_shmem_abort(routine, "the atomic on PE %d failed: %s", pe, remora_status_str(st));
    if (ring)
        remora_shmem_ring(pe);
    else if (!fetch)
        atomic_store_explicit(&remora_shmem.net_pending, 1, memory_order_relaxed);
    return old;
}

void remora_shmem_amo_nbi_slow(const char *routine, void *dest, size_t size, int op, uint64_t operand,
                               uint64_t compare, int pe, void *fetched)
{
    uint64_t off;
    const struct remora_shmem_region *r = word(routine, dest, size, &off);
    if (!remora_shmem.use_net || must_ring(pe)) { /* done at once: the ring follows the update */
        remora_amo_store(fetched, remora_shmem_amo_slow(routine, dest, size, op, operand, compare, pe, 1), size);
        return;
    }
    remora_status_t st = remora_amo_nbi(&r->atom[pe], off, size, (enum remora_amo_op)op, operand, compare, fetched);
    if (!remora_ok(st))
        remora_shmem_abort(routine, "the atomic on PE %d failed: %s", pe, remora_status_str(st));
    atomic_store_explicit(&remora_shmem.net_pending, 1, memory_order_relaxed);
}
