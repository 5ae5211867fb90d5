/* Remote memory access beyond the inline cases of ops.h: PEs whose heap is
 * not mapped here (other nodes: the network; this node without a view:
 * CMA), static data, and the strided routines. */
#include <stdlib.h>

#include "shmem/ctx.h"
#include "shmem/ops.h"

static void fail(const char *routine, remora_status_t st, int pe)
{
    remora_shmem_abort(routine, "the transfer to or from PE %d failed: %s", pe, remora_status_str(st));
}

/* Strided transfers through the transport are vectors of puts or gets, which
 * the transport completes only at a flush: then the source is free again
 * (put) or the data is here (get). */
static void complete_locally(const char *routine, const struct remora_rmem *m, int pe)
{
    remora_status_t st = remora_flush(m);
    if (!remora_ok(st))
        fail(routine, st, pe);
}

static void mark_written(int pe)
{
    if (remora_shmem.view[pe])
        remora_shmem_ring(pe);
}

/* The heap's extents are separate registrations: a transfer through the
 * transport goes extent by extent.  The piece of [addr, addr + len) that lies
 * in one region, from its start (aborts naming the routine when addr is not
 * symmetric, or the range runs past the end of symmetric memory). */
static const struct remora_shmem_region *piece(const char *routine, const void *addr, size_t len, uint64_t *off,
                                               size_t *n)
{
    const struct remora_shmem_region *r = remora_shmem_locate(routine, addr, 1, off);
    *n = len < r->len - *off ? len : (size_t)(r->len - *off);
    if (*n < len && !remora_shmem_find((const char *)addr + *n, 1, &(uint64_t){0}))
        remora_shmem_locate(routine, addr, len, off); /* runs past symmetric memory: aborts */
    return r;
}

void remora_shmem_put_slow(const char *routine, void *dest, const void *src, size_t len, int pe, int nbi)
{
    for (size_t done = 0, n; done < len; done += n) {
        uint64_t off;
        const struct remora_shmem_region *r = piece(routine, (char *)dest + done, len - done, &off, &n);
        const struct remora_rmem *m = &r->fast[pe];
        char *to = remora_mapped(m, off);
        if (to) {
            remora_mapped_put(to, (const char *)src + done, n);
            continue;
        }
        /* the source of a blocking put may be reused at return (local completion) */
        const char *from = (const char *)src + done;
        remora_status_t st = nbi ? remora_put(m, off, from, n) : remora_write(m, off, from, n);
        if (!remora_ok(st))
            fail(routine, st, pe);
        if (nbi || remora_write_pending(m))
            atomic_store_explicit(&remora_shmem.net_pending, 1, memory_order_relaxed);
    }
    mark_written(pe);
}

void remora_shmem_get_slow(const char *routine, void *dest, const void *src, size_t len, int pe, int nbi)
{
    for (size_t done = 0, n; done < len; done += n) {
        uint64_t off;
        const struct remora_shmem_region *r = piece(routine, (const char *)src + done, len - done, &off, &n);
        const struct remora_rmem *m = &r->fast[pe];
        const char *from = remora_mapped(m, off);
        if (from) {
            remora_mapped_copy((char *)dest + done, from, n);
            continue;
        }
        remora_status_t st;
        if (nbi) {
            st = remora_get(m, off, (char *)dest + done, n);
            atomic_store_explicit(&remora_shmem.net_pending, 1, memory_order_relaxed);
        } else {
            st = remora_read(m, off, (char *)dest + done, n);
        }
        if (!remora_ok(st))
            fail(routine, st, pe);
    }
}

/* ---- strided ---------------------------------------------------------------------- */

#define BATCH 64 /* blocks per vectored transfer */

/* nblocks blocks of bsize elements of elem bytes at `remote` (stride rstride
 * elements) and `local` (stride lstride): checks that all of them lie in one
 * symmetric region and moves them, BATCH blocks per transport call. */
static void strided(const char *routine, void *remote, ptrdiff_t rstride, void *local, ptrdiff_t lstride,
                    size_t elem, size_t bsize, size_t nblocks, int pe, int put)
{
    if (nblocks == 0 || bsize == 0)
        return;
    size_t block = bsize * elem;
    ptrdiff_t rstep = rstride * (ptrdiff_t)elem, lstep = lstride * (ptrdiff_t)elem;
    char *first = remote, *last = (char *)remote + (ptrdiff_t)(nblocks - 1) * rstep;
    char *lo = first < last ? first : last, *hi = first < last ? last : first;
    uint64_t off;
    const struct remora_shmem_region *r = remora_shmem_find(lo, (size_t)(hi - lo) + block, &off);
    if (!r) { /* across extents (or not symmetric: the block calls say so) */
        for (size_t i = 0; i < nblocks; i++) {
            char *rp = (char *)remote + (ptrdiff_t)i * rstep, *lp = (char *)local + (ptrdiff_t)i * lstep;
            if (put)
                remora_shmem_put_slow(routine, rp, lp, block, pe, 0);
            else
                remora_shmem_get_slow(routine, lp, rp, block, pe, 0);
        }
        return;
    }
    const struct remora_rmem *m = &r->fast[pe];
    uint64_t first_off = off + (uint64_t)(first - lo);
    char *mapped = remora_mapped(m, first_off);
    if (mapped) {
        for (size_t i = 0; i < nblocks; i++) {
            char *rp = mapped + (ptrdiff_t)i * rstep, *lp = (char *)local + (ptrdiff_t)i * lstep;
            remora_mapped_copy(put ? rp : lp, put ? lp : rp, block);
        }
    } else {
        struct remora_iov v[BATCH];
        for (size_t i = 0; i < nblocks;) {
            size_t n = 0;
            for (; n < BATCH && i < nblocks; n++, i++)
                v[n] = (struct remora_iov){(char *)local + (ptrdiff_t)i * lstep,
                                           first_off + (uint64_t)((ptrdiff_t)i * rstep), block};
            remora_status_t st = put ? remora_putv(m, v, n) : remora_getv(m, v, n);
            if (!remora_ok(st))
                fail(routine, st, pe);
        }
        complete_locally(routine, m, pe); /* put: the source is free; get: the data is here */
    }
    if (put)
        mark_written(pe);
}

void remora_shmem_iput(const char *routine, const struct remora_shmem_ctx *ctx, void *dest, const void *src,
                       ptrdiff_t dst, ptrdiff_t sst, size_t elem, size_t bsize, size_t nblocks, int pe)
{
    pe = remora_shmem_world_pe(routine, ctx, pe);
    strided(routine, dest, dst, (void *)src, sst, elem, bsize, nblocks, pe, 1);
}

void remora_shmem_iget(const char *routine, const struct remora_shmem_ctx *ctx, void *dest, const void *src,
                       ptrdiff_t dst, ptrdiff_t sst, size_t elem, size_t bsize, size_t nblocks, int pe)
{
    pe = remora_shmem_world_pe(routine, ctx, pe);
    strided(routine, (void *)src, sst, dest, dst, elem, bsize, nblocks, pe, 0);
}
