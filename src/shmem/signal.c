/* Put with signal and the signal routines.  A signal is a uint64_t updated
 * atomically (in the atomicity domain of its word, as every atomic); the data
 * of put_signal is delivered before the signal changes: a mapped copy
 * precedes the sequentially consistent atomic, and a put through the
 * transport (only locally complete when it returns) is completed by a quiet
 * before the atomic, since the network may reorder a put and an atomic (so
 * put_signal_nbi is the blocking one: the transport has no cheaper way to
 * order a put before an atomic than completing it). */
#include "shmem/api.h"
#include "shmem/ctx.h"
#include "shmem/ops.h"

static int signal_op(const char *routine, int sig_op)
{
    if (sig_op == SHMEM_SIGNAL_SET)
        return REMORA_AMO_SWAP;
    if (sig_op == SHMEM_SIGNAL_ADD)
        return REMORA_AMO_ADD;
    remora_shmem_abort(routine, "%d is not a signal operation (SHMEM_SIGNAL_SET or SHMEM_SIGNAL_ADD)", sig_op);
}

void remora_shmem_put_signal(const char *routine, const struct remora_shmem_ctx *ctx, void *dest, const void *src,
                             size_t len, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)
{
    int op = signal_op(routine, sig_op);
    pe = remora_shmem_world_pe(routine, ctx, pe);
    remora_shmem_put(routine, &remora_shmem_ctx_default, dest, src, len, pe, 0);
    if (!remora_shmem_heap_view(dest, len, pe))
        remora_shmem_quiet_all();
    remora_shmem_amo(routine, &remora_shmem_ctx_default, sig_addr, sizeof *sig_addr, op, signal, 0, pe, 0);
}

/* A fetch first lets the network carry out what is due (a polling loop must
 * see signals, its own PE's included, without another call). */
uint64_t pshmem_signal_fetch(const uint64_t *sig_addr)
{
    if (remora_shmem.use_net) { /* what this thread gathered leaves (wait.c's test_progress) */
        remora_serve();
        remora_progress();
    }
    return __atomic_load_n(sig_addr, __ATOMIC_ACQUIRE);
}
REMORA_SHMEM_ALIAS(shmem_signal_fetch);

uint64_t pshmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value)
{
    remora_shmem_wait_until("shmem_signal_wait_until", sig_addr, sizeof *sig_addr, 0, cmp, &cmp_value);
    return __atomic_load_n(sig_addr, __ATOMIC_ACQUIRE);
}
REMORA_SHMEM_ALIAS(shmem_signal_wait_until);

#define SIGNAL_UPDATE(name, op)                                                                          \
    void pshmem_ctx_signal_##name(shmem_ctx_t ctx, uint64_t *sig_addr, uint64_t signal, int pe)           \
    {                                                                                                    \
        remora_shmem_amo("shmem_ctx_signal_" #name, remora_shmem_ctx_of("shmem_ctx_signal_" #name, ctx),  \
                         sig_addr, sizeof *sig_addr, op, signal, 0, pe, 0);                               \
    }                                                                                                    \
    REMORA_SHMEM_ALIAS(shmem_ctx_signal_##name);                                                         \
    void pshmem_signal_##name(uint64_t *sig_addr, uint64_t signal, int pe)                                \
    {                                                                                                    \
        remora_shmem_amo("shmem_signal_" #name, &remora_shmem_ctx_default, sig_addr, sizeof *sig_addr, op, \
                         signal, 0, pe, 0);                                                              \
    }                                                                                                    \
    REMORA_SHMEM_ALIAS(shmem_signal_##name);
SIGNAL_UPDATE(add, REMORA_AMO_ADD)
SIGNAL_UPDATE(set, REMORA_AMO_SWAP)
