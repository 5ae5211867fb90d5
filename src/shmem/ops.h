/* The operations every typed OpenSHMEM routine is made of (the generated
 * code calls these; gen/shmem_gen.py).  The on-node heap cases are inline:
 * shmem_putmem to a PE whose heap is mapped here is the PE translation, a
 * range check and a copy into the view; everything else goes to the slow
 * paths in rma.c and amo.c, which reach the PE through the transport. */
#ifndef REMORA_SHMEM_OPS_H
#define REMORA_SHMEM_OPS_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "shmem/ctx.h"
#include "shmem/state.h"
#include "runtime/doorbell.h"
#include "transport/mapped.h"

/* The fast paths must be inlined whole into each generated routine (GCC
 * declines on size otherwise: shmem_putmem went from 43 to 56 instructions). */
#define REMORA_SHMEM_INLINE static inline __attribute__((always_inline))

/* The world PE of PE `pe` of the context's team (the default context and
 * contexts of SHMEM_TEAM_WORLD: pe itself). */
REMORA_SHMEM_INLINE int remora_shmem_world_pe(const char *routine, const struct remora_shmem_ctx *ctx, int pe)
{
    /* the default context is a constant in the routines without ctx: this folds away */
    const struct remora_shmem_team *t = ctx == &remora_shmem_ctx_default ? NULL : ctx->team;
    if (__builtin_expect(t == NULL, 1)) {
        remora_shmem_check_pe(routine, pe);
        return pe;
    }
    return remora_shmem_team_world_pe(routine, t, pe);
}

/* Wakes PE pe's waiters after a change of its memory made through its view
 * (the doorbell is the first bytes of each heap; see wait.c). */
REMORA_SHMEM_INLINE void remora_shmem_ring(int pe)
{
    remora_doorbell_ring((struct remora_doorbell *)remora_shmem.view[pe]);
}

/* Where byte `dest` of PE pe's heap is mapped here, or NULL (not mapped, not heap). */
REMORA_SHMEM_INLINE char *remora_shmem_heap_view(const void *dest, size_t len, int pe)
{
    uintptr_t off = (uintptr_t)dest - remora_shmem.heap.base;
    size_t committed = atomic_load_explicit(&remora_shmem.heap.committed, memory_order_relaxed);
    char *view = remora_shmem.view[pe];
    if (__builtin_expect(view != NULL && off < committed && len <= committed - off, 1))
        return view + off;
    return NULL;
}

void remora_shmem_put_slow(const char *routine, void *dest, const void *src, size_t len, int pe, int nbi);
void remora_shmem_get_slow(const char *routine, void *dest, const void *src, size_t len, int pe, int nbi);

/* A put of len bytes, remotely complete at the next quiet; the source may be
 * reused when it returns (nbi: after the next quiet). */
REMORA_SHMEM_INLINE void remora_shmem_put(const char *routine, const struct remora_shmem_ctx *ctx, void *dest,
                                    const void *src, size_t len, int pe, int nbi)
{
    pe = remora_shmem_world_pe(routine, ctx, pe);
    char *to = remora_shmem_heap_view(dest, len, pe);
    if (__builtin_expect(to != NULL, 1)) {
        remora_mapped_put(to, src, len);
        remora_shmem_ring(pe);
    } else
        remora_shmem_put_slow(routine, dest, src, len, pe, nbi);
}

/* A get: the data is in dest when it returns (nbi: at the next quiet). */
REMORA_SHMEM_INLINE void remora_shmem_get(const char *routine, const struct remora_shmem_ctx *ctx, void *dest,
                                    const void *src, size_t len, int pe, int nbi)
{
    pe = remora_shmem_world_pe(routine, ctx, pe);
    const char *from = remora_shmem_heap_view(src, len, pe);
    if (__builtin_expect(from != NULL, 1))
        remora_mapped_copy(dest, from, len);
    else
        remora_shmem_get_slow(routine, dest, src, len, pe, nbi);
}

/* Strided: nelems elements of elem bytes, in blocks of bsize elements (iput/iget:
 * 1), block i at dest + i*dst*elem and src + i*sst*elem. */
void remora_shmem_iput(const char *routine, const struct remora_shmem_ctx *ctx, void *dest, const void *src,
                       ptrdiff_t dst, ptrdiff_t sst, size_t elem, size_t bsize, size_t nblocks, int pe);
void remora_shmem_iget(const char *routine, const struct remora_shmem_ctx *ctx, void *dest, const void *src,
                       ptrdiff_t dst, ptrdiff_t sst, size_t elem, size_t bsize, size_t nblocks, int pe);

/* Atomics: the size-byte word at dest of PE pe (its bits in a uint64_t).
 * Returns the old value (fetching ops) or 0; op is enum remora_amo_op. */
uint64_t remora_shmem_amo_slow(const char *routine, void *dest, size_t size, int op, uint64_t operand,
                               uint64_t compare, int pe, int fetch);

REMORA_SHMEM_INLINE uint64_t remora_shmem_amo(const char *routine, const struct remora_shmem_ctx *ctx, void *dest,
                                        size_t size, int op, uint64_t operand, uint64_t compare, int pe, int fetch)
{
    pe = remora_shmem_world_pe(routine, ctx, pe);
    if (__builtin_expect(remora_shmem.cpu_atomics && ((uintptr_t)dest & (size - 1)) == 0, 1)) {
        char *w = remora_shmem_heap_view(dest, size, pe);
        if (w) {
            uint64_t old = remora_mapped_amo(w, size, (enum remora_amo_op)op, operand, compare);
            remora_shmem_ring(pe);
            return old;
        }
    }
    return remora_shmem_amo_slow(routine, dest, size, op, operand, compare, pe, fetch);
}

/* A fetching atomic whose old value is in *fetched (size bytes) at the next
 * quiet: over the network it does not wait for the reply. */
void remora_shmem_amo_nbi_slow(const char *routine, void *dest, size_t size, int op, uint64_t operand,
                               uint64_t compare, int pe, void *fetched);

REMORA_SHMEM_INLINE void remora_shmem_amo_nbi(const char *routine, const struct remora_shmem_ctx *ctx, void *dest,
                                              size_t size, int op, uint64_t operand, uint64_t compare, int pe,
                                              void *fetched)
{
    pe = remora_shmem_world_pe(routine, ctx, pe);
    if (__builtin_expect(remora_shmem.cpu_atomics, 1))
        remora_amo_store(fetched,
                         remora_shmem_amo(routine, &remora_shmem_ctx_default, dest, size, op, operand, compare, pe, 1),
                         size);
    else
        remora_shmem_amo_nbi_slow(routine, dest, size, op, operand, compare, pe, fetched);
}

/* Point-to-point synchronization on local symmetric words of size bytes
 * (sync.c).  cmp: SHMEM_CMP_*; is_signed: how the words compare. */
int remora_shmem_compare(const void *ivar, size_t size, int is_signed, int cmp, const void *value);
void remora_shmem_wait_until(const char *routine, const void *ivar, size_t size, int is_signed, int cmp,
                             const void *value);
enum remora_shmem_wait_kind { REMORA_WAIT_ALL, REMORA_WAIT_ANY, REMORA_WAIT_SOME };
/* The _all/_any/_some (and _vector: values has nelems entries) forms; test: do
 * not block.  Returns what the routine returns (any: an index or SIZE_MAX; some:
 * the count written to indices; all: 0, or for test 1/0). */
size_t remora_shmem_wait_set(const char *routine, enum remora_shmem_wait_kind kind, int test, const void *ivars,
                             size_t size, int is_signed, size_t nelems, const int *status, size_t *indices, int cmp,
                             const void *values, int vector);

/* put with signal (signal.c): the data is delivered before the signal update. */
void remora_shmem_put_signal(const char *routine, const struct remora_shmem_ctx *ctx, void *dest, const void *src,
                             size_t len, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);

#endif
