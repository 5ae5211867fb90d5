/* Put and get.  The fast path (a contiguous predefined type to a target whose
 * memory is mapped here, inside an epoch, in range) is inline here, for every
 * front end to call as a one-liner: handle -> window, the type hint, epoch and
 * range checks, a copy.  Everything else (derived types, other transports,
 * errors) goes to the slow paths in rma.c. */
#ifndef REMORA_CORE_RMA_H
#define REMORA_CORE_RMA_H

#include <mpi.h>

#include "core/type_table.h"
#include "core/win.h"
#include "transport/mapped.h"

#if defined(__SANITIZE_THREAD__) /* gcc */
#define REMORA_TSAN 1
#elif defined(__has_feature)    /* clang */
#define REMORA_TSAN __has_feature(thread_sanitizer)
#else
#define REMORA_TSAN 0
#endif

/* Slow paths: every check, every datatype, every transport.  Return
 * MPI_SUCCESS or an error class (not raised).  They point the window's type
 * hint at a predefined type they moved, for the fast path's next call. */
int remora_rma_put(struct remora_win *w, const void *oaddr, MPI_Count ocount, MPI_Datatype otype, int target,
               MPI_Aint tdisp, MPI_Count tcount, MPI_Datatype ttype);
int remora_rma_get(struct remora_win *w, void *oaddr, MPI_Count ocount, MPI_Datatype otype, int target, MPI_Aint tdisp,
               MPI_Count tcount, MPI_Datatype ttype);

/* A stretch [lo, hi) of a target's memory (positions: byte offsets in its
 * window; in dynamic windows, addresses) that one registration covers: its
 * bytes through data (transfers) and amo (atomics, in the window's atomicity
 * domain), position lo at offset `at` of both; whether accumulates may use
 * atomics on it (every origin can). */
struct remora_span {
    uint64_t lo, hi;
    const struct remora_rmem *data, *amo;
    uint64_t at;
    int atomic;
};

enum { REMORA_TARGET_SPANS = 4 };

/* A target as one access reaches it: the target buffer at position off, the
 * spans covering every byte the access touches, in address order, adjacent
 * (one for every window but a dynamic one, where an access may cross regions
 * attached back to back).  Release with remora_target_release. */
struct remora_target {
    uint64_t off;
    int n;
    struct remora_span few[REMORA_TARGET_SPANS];
    struct remora_span *many; /* n > REMORA_TARGET_SPANS: all of them, allocated */
};

static inline const struct remora_span *remora_target_spans(const struct remora_target *t)
{
    return t->n > REMORA_TARGET_SPANS ? t->many : t->few;
}

/* The span holding position pos (the first one if none does). */
static inline const struct remora_span *remora_target_span_at(const struct remora_target *t, uint64_t pos)
{
    const struct remora_span *s = remora_target_spans(t);
    for (int i = t->n - 1; i > 0; i--)
        if (pos >= s[i].lo)
            return &s[i];
    return s;
}

/* Add a span (in address order); REMORA_ERR_NO_MEM when it cannot. */
remora_status_t remora_target_add(struct remora_target *t, const struct remora_span *s);
void remora_target_release(struct remora_target *t);

struct remora_dt;
/* Checks of the target side shared by every RMA call: an epoch is open toward
 * target, and count elements of tt at tdisp lie in its window (for dynamic
 * windows: every byte they touch in attached regions).  Fills *t; release it
 * after the access. */
int remora_rma_target(struct remora_win *w, int target, MPI_Aint tdisp, const struct remora_dt *tt, MPI_Count tcount,
                      struct remora_target *t);
int remora_rma_counts(MPI_Count ocount, MPI_Count tcount);

/* Whether a byte that other threads store to atomically is nonzero now (a
 * relaxed load).  On x86-64 one compare with the byte in memory: the
 * compilers do not fold an atomic load into a compare, and the put/get fast
 * path is counted in instructions (a plain byte load is atomic there).
 * ThreadSanitizer builds take the atomic load it can see. */
static inline int remora_byte_set(const _Atomic uint8_t *b)
{
#if defined(__x86_64__) && defined(__GCC_ASM_FLAG_OUTPUTS__) && !REMORA_TSAN
    int zero;
    __asm__ __volatile__("cmpb $0, %1" : "=@ccz"(zero) : "m"(*(const uint8_t *)b)); /* volatile: read each call */
    return !zero;
#else
    return atomic_load_explicit(b, memory_order_relaxed) != 0;
#endif
}

/* The target side of a fast path: n bytes at tdisp of a target whose memory
 * is mapped here, inside an epoch, in range.  Returns the target's state with
 * the target address, or NULL for the slow path. */
static inline const struct remora_rank_state *remora_fast_span(const struct remora_win *w, uint64_t n, int target,
                                                               MPI_Aint tdisp, char **addr)
{
    if ((unsigned)target >= (unsigned)w->comm_size)
        return NULL;
    /* a rank not used yet has no access bits and an empty window: the slow path makes it */
    const struct remora_rank_state *s = remora_rank_or_unmade(w, target);
    const struct remora_peer *p = &s->peer;
    /* the target's own bits first: lock, PSCW and a lock_all on the node set them */
    if (!remora_byte_set(&p->access) &&
        !(atomic_load_explicit(&w->access_all, memory_order_relaxed) & REMORA_ALL_REACH))
        return NULL;
    /* A negative displacement is a huge unsigned one and fails the first
     * test; after it off <= fast_limit < 2^48 and n < 2^40 (callers' counts
     * are below 2^31, predefined types smaller than 2^9): nothing wraps. */
    if ((uint64_t)tdisp > p->fast_disps)
        return NULL;
    uint64_t off = (uint64_t)tdisp * p->disp_unit;
    if (off + n > p->fast_limit)
        return NULL;
    *addr = p->base + off;
    return s;
}

/* The fast path of put and get: count elements of a contiguous predefined
 * type, the same on both sides (call only when the origin's and the target's
 * type and count are equal), the type the window last moved (its hint: no
 * table lookup).  1 when done; 0: take the slow path. */
static inline __attribute__((always_inline)) int remora_fast_rma(const struct remora_win *w, void *origin, int count,
                                                                 MPI_Datatype type, int target, MPI_Aint tdisp,
                                                                 int put)
{
    if (__builtin_expect(!w, 0))
        return 0;
    const struct remora_type_entry *e = atomic_load_explicit(&w->type_hint, memory_order_relaxed);
    if (e->handle != type)
        return 0;
    uint64_t n = (uint64_t)(int64_t)count * e->size;
    char *addr;
    if (!remora_fast_span(w, n, target, tdisp, &addr))
        return 0;
    if (put)
        remora_mapped_put(addr, origin, n);
    else
        remora_mapped_copy(origin, addr, n);
    return 1;
}

#endif
