/* Distributed locks: shmem_set_lock, shmem_test_lock, shmem_clear_lock.
 *
 * The lock is the symmetric long at PE 0 (its copies at other PEs are not
 * used), a ticket lock in one 64-bit word: the high half hands out tickets,
 * the low half is the ticket being served.  Acquire takes a ticket with one
 * fetch-and-add and waits until it is served; release is quiet (what the
 * holder wrote is complete, as the spec asks) and one add to the low half.
 * Tickets are served in order, so no PE starves.  Every access is an atomic
 * in the word's atomicity domain.  Waiting polls the word with backoff.
 *
 * Invariants: served <= tickets (mod 2^32); the lock is free iff they are
 * equal; only the holder adds to `served`. */
#include "core/spin.h"
#include "shmem/api.h"
#include "shmem/ctx.h"
#include "shmem/ops.h"

#define TICKET (UINT64_C(1) << 32)
#define SERVED(w) ((uint32_t)(w))
#define NEXT(w) ((uint32_t)((w) >> 32))

static uint64_t lock_amo(const char *routine, long *lock, int op, uint64_t operand, uint64_t compare)
{
    return remora_shmem_amo(routine, &remora_shmem_ctx_default, lock, sizeof *lock, op, operand, compare, 0, 1);
}

void pshmem_set_lock(long *lock)
{
    uint64_t w = lock_amo("shmem_set_lock", lock, REMORA_AMO_ADD, TICKET, 0);
    uint32_t mine = NEXT(w);
    struct remora_wait wt;
    remora_wait_init(&wt);
    while (SERVED(w) != mine) {
        remora_backoff(&wt); /* the engine's bounded, jittered backoff, as its MPI locks use */
        w = lock_amo("shmem_set_lock", lock, REMORA_AMO_ADD, 0, 0);
    }
}
REMORA_SHMEM_ALIAS(shmem_set_lock);

int pshmem_test_lock(long *lock)
{
    uint64_t w = lock_amo("shmem_test_lock", lock, REMORA_AMO_ADD, 0, 0);
    if (SERVED(w) != NEXT(w))
        return 1;
    /* free: take the next ticket only if nobody else did meanwhile */
    uint64_t old = lock_amo("shmem_test_lock", lock, REMORA_AMO_CSWAP, w + TICKET, w);
    return old == w ? 0 : 1;
}
REMORA_SHMEM_ALIAS(shmem_test_lock);

void pshmem_clear_lock(long *lock)
{
    remora_shmem_quiet_all();
    /* served + 1 within the low half: a carry into the tickets would break the invariant */
    uint64_t w = lock_amo("shmem_clear_lock", lock, REMORA_AMO_ADD, 0, 0);
    for (;;) {
        uint64_t next = (w & ~UINT64_C(0xffffffff)) | (uint32_t)(SERVED(w) + 1);
        uint64_t old = lock_amo("shmem_clear_lock", lock, REMORA_AMO_CSWAP, next, w);
        if (old == w)
            break;
        w = old; /* another PE took a ticket meanwhile */
    }
}
REMORA_SHMEM_ALIAS(shmem_clear_lock);
