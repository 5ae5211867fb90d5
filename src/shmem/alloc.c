/* Symmetric heap allocation: shmem_malloc, calloc, align, realloc, free and
 * malloc_with_hints, and the deprecated shmalloc family.
 *
 * Every PE makes the same calls in the same order (they are collective), so
 * a deterministic allocator gives every PE the same offsets: first fit over
 * a free list kept by offset, coalesced on free.  The bookkeeping lives
 * outside the heap, so remote writes cannot corrupt it.  When nothing fits,
 * the heap grows (heap.c) by at least its size, and the same on every PE.
 *
 * The calls check that every PE asked for the same size (a mismatch is an
 * error the spec leaves undefined; here it is a message and an abort) and
 * end with a barrier, so no PE uses the memory before all have it. */
#include <stdlib.h>
#include <string.h>

#include "runtime/log.h"
#include "shmem/api.h"
#include "shmem/ctx.h"
#include "shmem/heap.h"
#include "shmem/state.h"

#define MIN_ALIGN 64

struct span { uint64_t off, len; };
struct spans { struct span *v; int n, cap; };

static struct {
    struct spans free, live; /* both by offset */
    uint64_t end;            /* the allocator's view of the committed heap */
} A;

static int spans_insert(struct spans *s, int at, struct span x)
{
    if (s->n == s->cap) {
        int cap = s->cap ? 2 * s->cap : 64;
        struct span *v = realloc(s->v, (size_t)cap * sizeof *v);
        if (!v)
            return -1;
        s->v = v, s->cap = cap;
    }
    memmove(s->v + at + 1, s->v + at, (size_t)(s->n - at) * sizeof *s->v);
    s->v[at] = x;
    s->n++;
    return 0;
}

static void spans_remove(struct spans *s, int at)
{
    memmove(s->v + at, s->v + at + 1, (size_t)(s->n - at - 1) * sizeof *s->v);
    s->n--;
}

/* The first index whose offset is >= off. */
static int spans_find(const struct spans *s, uint64_t off)
{
    int lo = 0, hi = s->n;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (s->v[mid].off < off)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Return [off, off+len) to the free list, merged with its neighbours. */
static int release(uint64_t off, uint64_t len)
{
    int i = spans_find(&A.free, off);
    struct span *v = A.free.v;
    int left = i > 0 && v[i - 1].off + v[i - 1].len == off;
    int right = i < A.free.n && off + len == v[i].off;
    if (left && right) {
        v[i - 1].len += len + v[i].len;
        spans_remove(&A.free, i);
    } else if (left) {
        v[i - 1].len += len;
    } else if (right) {
        v[i].off = off, v[i].len += len;
    } else {
        return spans_insert(&A.free, i, (struct span){off, len});
    }
    return 0;
}

static uint64_t align_up(uint64_t x, uint64_t a) { return (x + a - 1) / a * a; }

/* The first offset >= off whose address is aligned (the alignment is that of
 * the address, which the program sees; allocate() made sure that every PE's
 * base is the same modulo the alignment, so the offset is the same on all). */
static uint64_t align_off(uint64_t off, uint64_t a)
{
    uint64_t base = remora_shmem.heap.base;
    return align_up(base + off, a) - base;
}

/* First fit; UINT64_MAX when nothing fits. */
static uint64_t carve(uint64_t size, uint64_t alignment)
{
    for (int i = 0; i < A.free.n; i++) {
        struct span s = A.free.v[i];
        uint64_t at = align_off(s.off, alignment);
        if (at + size > s.off + s.len)
            continue;
        spans_remove(&A.free, i);
        if (s.off + s.len > at + size)
            release(at + size, s.off + s.len - (at + size));
        if (at > s.off)
            release(s.off, at - s.off);
        if (spans_insert(&A.live, spans_find(&A.live, at), (struct span){at, size}) != 0)
            return UINT64_MAX;
        return at;
    }
    return UINT64_MAX;
}

static void sync_with_committed(void)
{
    uint64_t committed = atomic_load(&remora_shmem.heap.committed);
    if (A.end == 0)
        A.end = REMORA_SHMEM_HEAP_FIRST;
    if (committed > A.end) {
        release(A.end, committed - A.end);
        A.end = committed;
    }
}

/* Collective: every PE passed the same (size, alignment); aborts otherwise.
 * Returns whether every PE's heap base is the same modulo the alignment (a
 * power of two), which an aligned symmetric offset needs. */
static int check_same(const char *routine, uint64_t size, uint64_t alignment)
{
    uint64_t rem = alignment && !(alignment & (alignment - 1)) ? remora_shmem.heap.base & (alignment - 1) : 0;
    uint64_t mine[6] = {size, alignment, ~size, ~alignment, rem, ~rem}, all[6];
    PMPI_Allreduce(mine, all, 6, MPI_UINT64_T, MPI_MAX, remora_shmem.comm);
    if (all[0] != size || all[1] != alignment || ~all[2] != size || ~all[3] != alignment)
        remora_shmem_abort(routine, "the PEs asked for different sizes or alignments (this PE: %llu bytes, "
                           "alignment %llu); every PE must make the same call", (unsigned long long)size,
                           (unsigned long long)alignment);
    return all[4] == ~all[5];
}

static void *allocate(const char *routine, size_t size, size_t alignment)
{
    remora_shmem_check_init(routine);
    int symmetric = check_same(routine, size, alignment);
    if (size == 0)
        return NULL;
    if (!symmetric) { /* alike on every PE: the check is collective */
        remora_log(REMORA_LOG_ERROR, "%s: alignment %zu cannot be had: the PEs' heaps start at addresses that "
                   "differ modulo it (alignments up to %zu always can)", routine, alignment,
                   (size_t)REMORA_SHMEM_BASE_ALIGN);
        PMPI_Barrier(remora_shmem.comm);
        return NULL;
    }
    if (alignment < MIN_ALIGN)
        alignment = MIN_ALIGN;
    sync_with_committed();
    uint64_t off = carve(size, alignment);
    if (off == UINT64_MAX) {
        size_t want = (size_t)(align_off(A.end, alignment) + size);
        if (remora_shmem_heap_grow(want) != 0) {
            remora_log(REMORA_LOG_ERROR, "%s: %zu bytes cannot be had from the symmetric heap", routine, size);
            PMPI_Barrier(remora_shmem.comm);
            return NULL;
        }
        sync_with_committed();
        off = carve(size, alignment);
    }
    PMPI_Barrier(remora_shmem.comm);
    return off == UINT64_MAX ? NULL : (void *)(remora_shmem.heap.base + off);
}

/* The live allocation at p, or -1 (aborting naming the routine when p is not one). */
static int live_index(const char *routine, const void *p)
{
    uint64_t off = (uintptr_t)p - remora_shmem.heap.base;
    int i = spans_find(&A.live, off);
    if (i == A.live.n || A.live.v[i].off != off)
        remora_shmem_abort(routine, "%p is not memory that shmem_malloc returned (or it was freed)", p);
    return i;
}

void *pshmem_malloc(size_t size) { return allocate("shmem_malloc", size, MIN_ALIGN); }
REMORA_SHMEM_ALIAS(shmem_malloc);

void *pshmem_malloc_with_hints(size_t size, long hints)
{
    /* the hints (remote atomics, signals) change nothing: every heap word is reached the same way */
    if (hints & ~(SHMEM_MALLOC_ATOMICS_REMOTE | SHMEM_MALLOC_SIGNAL_REMOTE))
        remora_log(REMORA_LOG_WARN, "shmem_malloc_with_hints: unknown hints 0x%lx ignored", hints);
    return allocate("shmem_malloc_with_hints", size, MIN_ALIGN);
}
REMORA_SHMEM_ALIAS(shmem_malloc_with_hints);

void *pshmem_calloc(size_t count, size_t size)
{
    size_t bytes;
    if (__builtin_mul_overflow(count, size, &bytes)) {
        check_same("shmem_calloc", SIZE_MAX, MIN_ALIGN);
        return NULL;
    }
    void *p = allocate("shmem_calloc", bytes, MIN_ALIGN);
    if (p)
        memset(p, 0, bytes); /* reused memory is not zero; nobody else touches it before the barrier */
    if (p)
        PMPI_Barrier(remora_shmem.comm);
    return p;
}
REMORA_SHMEM_ALIAS(shmem_calloc);

void *pshmem_align(size_t alignment, size_t size)
{
    if (alignment == 0 || (alignment & (alignment - 1)) != 0) {
        check_same("shmem_align", size, alignment);
        remora_log(REMORA_LOG_ERROR, "shmem_align: alignment %zu is not a power of two", alignment);
        return NULL;
    }
    return allocate("shmem_align", size, alignment);
}
REMORA_SHMEM_ALIAS(shmem_align);

void pshmem_free(void *ptr)
{
    remora_shmem_check_init("shmem_free");
    remora_shmem_quiet_all();
    PMPI_Barrier(remora_shmem.comm); /* nobody still reaches it */
    if (!ptr)
        return;
    int i = live_index("shmem_free", ptr);
    struct span s = A.live.v[i];
    spans_remove(&A.live, i);
    release(s.off, s.len);
}
REMORA_SHMEM_ALIAS(shmem_free);

void *pshmem_realloc(void *ptr, size_t size)
{
    if (!ptr)
        return pshmem_malloc(size);
    if (size == 0) {
        pshmem_free(ptr);
        return NULL;
    }
    remora_shmem_check_init("shmem_realloc");
    check_same("shmem_realloc", size, MIN_ALIGN);
    remora_shmem_quiet_all();
    PMPI_Barrier(remora_shmem.comm);
    int i = live_index("shmem_realloc", ptr);
    struct span s = A.live.v[i];
    if (size <= s.len) { /* shrink in place */
        uint64_t keep = align_up(size, MIN_ALIGN);
        if (keep < s.len) {
            A.live.v[i].len = keep;
            release(s.off + keep, s.len - keep);
        }
        PMPI_Barrier(remora_shmem.comm);
        return ptr;
    }
    /* grow in place when the free span right after it is large enough */
    int f = spans_find(&A.free, s.off + s.len);
    if (f < A.free.n && A.free.v[f].off == s.off + s.len && s.len + A.free.v[f].len >= size) {
        uint64_t more = size - s.len;
        A.free.v[f].off += more, A.free.v[f].len -= more;
        if (A.free.v[f].len == 0)
            spans_remove(&A.free, f);
        A.live.v[i].len = size;
        PMPI_Barrier(remora_shmem.comm);
        return ptr;
    }
    spans_remove(&A.live, i);
    sync_with_committed();
    uint64_t off = carve(size, MIN_ALIGN);
    if (off == UINT64_MAX) {
        if (remora_shmem_heap_grow((size_t)(A.end + size)) == 0) {
            sync_with_committed();
            off = carve(size, MIN_ALIGN);
        }
    }
    if (off == UINT64_MAX) { /* the old block stays as it was */
        spans_insert(&A.live, spans_find(&A.live, s.off), s);
        remora_log(REMORA_LOG_ERROR, "shmem_realloc: %zu bytes cannot be had from the symmetric heap", size);
        PMPI_Barrier(remora_shmem.comm);
        return NULL;
    }
    void *p = (void *)(remora_shmem.heap.base + off);
    memmove(p, ptr, s.len); /* the freed block may overlap the new one */
    release(s.off, s.len);
    PMPI_Barrier(remora_shmem.comm);
    return p;
}
REMORA_SHMEM_ALIAS(shmem_realloc);

/* ---- deprecated names ------------------------------------------------------------ */
REMORA_SHMEM_VISIBLE void *shmalloc(size_t size) { return pshmem_malloc(size); }
REMORA_SHMEM_VISIBLE void shfree(void *ptr) { pshmem_free(ptr); }
REMORA_SHMEM_VISIBLE void *shrealloc(void *ptr, size_t size) { return pshmem_realloc(ptr, size); }
REMORA_SHMEM_VISIBLE void *shmemalign(size_t alignment, size_t size) { return pshmem_align(alignment, size); }

/* shmem_finalize: forget every allocation. */
void remora_shmem_alloc_finalize(void)
{
    free(A.free.v);
    free(A.live.v);
    memset(&A, 0, sizeof A);
}
