/* The image protocol: a call on an image of the bytes it touches, swapped
 * into target memory unit by unit with compare-and-swaps (16-byte words on
 * memory mapped here with a 16-byte compare-and-swap, else 8), and the plain
 * bytes (spans some origin reaches without atomics) moved by get and put.
 * Chosen by the dispatcher (accumulate.c: run) for a lock-free call of several
 * elements in one word (units of that word), and under the stripes
 * (acc_stripes.h) for every call that neither the plain path nor direct16
 * (acc_plain.c) can do: holes, compare-and-swap, several spans, memory not
 * mapped here, or lock-free calls already going at the target. */
#include <stdlib.h>
#include <string.h>

#include "core/acc_call.h"
#include "core/acc_elem.h"
#include "transport/mapped.h"

/* An atomic store of v to the size-byte word at p (aligned). */
static void store_word(void *p, size_t size, uint64_t v)
{
    switch (size) {
    case 1: __atomic_store_n((uint8_t *)p, (uint8_t)v, __ATOMIC_RELAXED); break;
    case 2: __atomic_store_n((uint16_t *)p, (uint16_t)v, __ATOMIC_RELAXED); break;
    case 4: __atomic_store_n((uint32_t *)p, (uint32_t)v, __ATOMIC_RELAXED); break;
    default: __atomic_store_n((uint64_t *)p, v, __ATOMIC_RELAXED); break;
    }
}

/* Whether the size bytes (1, 2, 4, 8 or 16) at x and y are equal. */
static inline int same_word(const void *x, const void *y, size_t size)
{
    switch (size) {
    case 1: return memcmp(x, y, 1) == 0;
    case 2: return memcmp(x, y, 2) == 0;
    case 4: return memcmp(x, y, 4) == 0;
    case 8: return memcmp(x, y, 8) == 0;
    default: return memcmp(x, y, 16) == 0;
    }
}

/* t = t op o over the whole elements of a piece of len bytes (c: the compare
 * element).  A piece of an element with holes ends with its data. */
static void combine(const struct acc *a, char *t, const char *o, const char *c, size_t len)
{
    if (a->compare) {
        if (memcmp(t, c, len) == 0)
            memcpy(t, o, len);
    } else if (a->op == REMORA_OP_REPLACE) {
        memcpy(t, o, len);
    } else if (a->op != REMORA_OP_NO_OP) {
        a->kernel(t, o, (len + a->esz - 1) / a->esz);
    }
}

/* ---- a call on an image of the bytes it touches ------------------------------------
 *
 * Whole-call atomicity.  Every update of target memory by a call that has
 * atomics there (span->atomic) is made by compare-and-swaps of aligned units
 * (16 bytes on memory mapped here when the CPU has a 16-byte
 * compare-and-swap, else 8), or by a single atomic on an element.  A call
 * whose bytes fit in one such unit (one element, or a few small ones) is that
 * one atomic and takes no lock; every other call holds the stripes of its
 * bytes for its whole duration.  So two calls on overlapping bytes are either
 * serialised by the stripes, or one of them is a single atomic on a unit that
 * the other reads and writes only as a whole: each sees the other's effect on
 * its bytes entirely or not at all.  Memory without atomics for every origin
 * has no lock-free calls: there the stripes alone serialise, and the bytes
 * move by plain transfers.
 *
 * The call reads the units it touches into `cur` (a guess, unless read by one
 * atomic load), applies itself to a copy `nxt`, and swaps each changed unit
 * from cur to nxt; a unit that changed meanwhile (a lock-free call) comes back
 * with its value, its segment is recomputed and swapped again.  Results are
 * the values swapped out.
 *
 * A call that only reads several units (MPI_NO_OP) reads them one after the
 * other, and lock-free calls may change some in between: it then reads them
 * all once more, and starts again if any changed.  Unchanged, each held its
 * value from its first read to its second, so all held them together at the
 * last first read: the call reads one state of its bytes.  (A word that
 * lock-free calls change and change back between the two reads passes for
 * unchanged.)  A call that writes several units is not so protected: a
 * thread that makes two lock-free calls on two of its units, one after the
 * other, may see the first after the call's write and the second before it
 * (see the README). */

/* Consecutive unit-rounded bytes [lo, hi) of the call, at byte img of the images. */
struct seg {
    uint64_t lo, hi;
    size_t img;
};

/* One aligned word of 1, 2, 4, 8 or 16 bytes, swapped as one. */
struct unit {
    uint64_t pos;
    size_t size, img, seg;
    const struct remora_span *s;
    char *mapped;  /* its address here, or NULL: through the transport */
    int exact;     /* cur holds a value the word really had (read atomically) */
    int done;
};

/* The image of a call, in the image's own arrays while they are big enough
 * (a call of up to about 1 KiB, as ARMCI-MPI's rows are, allocates nothing). */
enum { INLINE_SEGS = 4, INLINE_UNITS = 64, INLINE_IMAGE = 1024 + 64 };
struct image {
    struct seg *seg;
    size_t nseg;
    struct unit *u;
    size_t nu, capu;
    unsigned char *cur, *nxt, *whole; /* whole: see swap_units */
    struct seg seg_inline[INLINE_SEGS];
    struct unit u_inline[INLINE_UNITS];
    _Alignas(16) unsigned char img_inline[3 * INLINE_IMAGE];
};

static void image_init(struct image *im)
{
    im->seg = NULL;
    im->u = im->u_inline;
    im->nseg = im->nu = 0;
    im->capu = INLINE_UNITS;
    im->cur = im->nxt = im->whole = NULL;
}

static void image_free(struct image *im)
{
    if (im->seg != im->seg_inline)
        free(im->seg);
    if (im->u != im->u_inline)
        free(im->u);
    if (im->cur != im->img_inline)
        free(im->cur);
    image_init(im);
}

static int seg_cmp(const void *x, const void *y)
{
    const struct seg *a = x, *b = y;
    return a->lo < b->lo ? -1 : a->lo > b->lo;
}

/* The segment holding pos. */
static size_t seg_of(const struct image *im, uint64_t pos)
{
    size_t lo = 0, hi = im->nseg;
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (im->seg[mid].lo <= pos)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* The unit size of a span's atomics. */
static size_t unit_of(const struct remora_span *s)
{
    return remora_mapped(s->amo, s->at) && remora_mapped_cas16_ok() ? 16 : 8;
}

/* Segments: every piece rounded out to `round`-aligned addresses (so that a
 * lock-free call's word overlapping the piece lies inside), within the
 * spans, merged. */
static remora_status_t plan(const struct acc *a, uint64_t round, struct image *im)
{
    const struct remora_span *sp = remora_target_spans(&a->t);
    uint64_t first = sp[0].lo, last = sp[a->t.n - 1].hi;
    uint64_t skew16 = (sp[0].amo->base + sp[0].at - sp[0].lo) % 16; /* address - position, mod 16 */
    uint64_t skew = skew16 % round;
    im->seg = a->np <= INLINE_SEGS ? im->seg_inline : malloc(sizeof *im->seg * a->np);
    if (!im->seg)
        return REMORA_ERR_NO_MEM;
    for (size_t i = 0; i < a->np; i++) {
        uint64_t al = (a->p[i].pos + skew) / round * round;
        uint64_t lo = al < first + skew ? first : al - skew;
        uint64_t hi = (a->p[i].pos + a->p[i].len + skew + round - 1) / round * round - skew;
        im->seg[i] = (struct seg){lo < first ? first : lo, hi > last ? last : hi, 0};
    }
    if (a->np > 1)
        qsort(im->seg, a->np, sizeof *im->seg, seg_cmp);
    size_t n = 0, img = 0;
    for (size_t i = 0; i < a->np; i++) {
        if (n && im->seg[i].lo <= im->seg[n - 1].hi) {
            if (im->seg[i].hi > im->seg[n - 1].hi)
                im->seg[n - 1].hi = im->seg[i].hi;
        } else {
            im->seg[n++] = im->seg[i];
        }
    }
    for (size_t i = 0; i < n; i++) { /* image bytes aligned as the target's (kernels may need it) */
        img = (img + 15) / 16 * 16 + (im->seg[i].lo + skew16) % 16;
        im->seg[i].img = img;
        img += im->seg[i].hi - im->seg[i].lo;
    }
    im->nseg = n;
    img = (img + 15) / 16 * 16;
    im->cur = img <= INLINE_IMAGE ? im->img_inline : malloc(3 * img + 1);
    if (!im->cur)
        return REMORA_ERR_NO_MEM;
    im->nxt = im->cur + img;
    im->whole = im->nxt + img;
    return REMORA_OK;
}

static remora_status_t add_unit(struct image *im, const struct unit *u)
{
    if (im->nu == im->capu) {
        size_t cap = 2 * im->capu;
        struct unit *n = realloc(im->u == im->u_inline ? NULL : im->u, sizeof *n * cap);
        if (!n)
            return REMORA_ERR_NO_MEM;
        if (im->u == im->u_inline)
            memcpy(n, im->u_inline, sizeof im->u_inline);
        im->u = n;
        im->capu = cap;
    }
    im->u[im->nu++] = *u;
    return REMORA_OK;
}

/* The units of segment k where its spans have atomics (each unit-aligned
 * stretch as its largest aligned words), read into cur.  Plain bytes (spans
 * without atomics) are read by move_plain, only those the call touches:
 * their neighbours in the segment may be another origin's put. */
static remora_status_t read_segment(const struct acc *a, struct image *im, size_t k)
{
    const struct seg *g = &im->seg[k];
    for (uint64_t pos = g->lo; pos < g->hi;) {
        const struct remora_span *s = remora_target_span_at(&a->t, pos);
        uint64_t end = s->hi < g->hi ? s->hi : g->hi;
        if (!s->atomic) {
            pos = end;
            continue;
        }
        size_t umax = unit_of(s);
        for (uint64_t q = pos; q < end;) {
            uint64_t off = q - s->lo + s->at;
            size_t size = umax;
            while (size > 1 && (((s->amo->base + off) & (size - 1)) || q + size > end))
                size /= 2;
            struct unit u = {q, size, g->img + (q - g->lo), k, s, remora_mapped(s->amo, off), 0, 0};
            if (u.mapped && size <= 8) { /* one atomic load: exact */
                remora_elem_store(im->cur + u.img, size, remora_mapped_load(u.mapped, size, __ATOMIC_RELAXED));
                u.exact = 1;
            } else if (u.mapped && remora_mapped_load16_ok()) {
                uint64_t v[2];
                remora_mapped_load16(u.mapped, v);
                memcpy(im->cur + u.img, v, 16);
                u.exact = 1;
            } else if (u.mapped) {       /* a guess, checked by the swap */
                uint64_t v[2] = {remora_mapped_load(u.mapped, 8, __ATOMIC_RELAXED),
                                 remora_mapped_load(u.mapped + 8, 8, __ATOMIC_RELAXED)};
                memcpy(im->cur + u.img, v, 16);
            }                            /* through the transport: read by the first batch */
            remora_status_t st = add_unit(im, &u);
            if (!remora_ok(st))
                return st;
            q += size;
        }
        pos = end;
    }
    return REMORA_OK;
}

/* nxt = cur with the call applied, for segment k (or every segment: k == SIZE_MAX). */
static void compute(const struct acc *a, struct image *im, size_t k)
{
    if (k == SIZE_MAX)
        memcpy(im->nxt, im->cur, (size_t)(im->nxt - im->cur));
    else
        memcpy(im->nxt + im->seg[k].img, im->cur + im->seg[k].img, im->seg[k].hi - im->seg[k].lo);
    for (size_t i = 0; i < a->np; i++) {
        const struct piece *p = &a->p[i];
        size_t g = seg_of(im, p->pos);
        if (k != SIZE_MAX && g != k)
            continue;
        combine(a, (char *)im->nxt + im->seg[g].img + (p->pos - im->seg[g].lo), a->origin ? a->origin + p->at : NULL,
                a->compare ? a->compare + p->at : NULL, p->len);
    }
}

/* Whether unit u must still be swapped: its value is a guess, or must change. */
static int pending(const struct image *im, const struct unit *u)
{
    return !u->done && !(u->exact && same_word(im->cur + u->img, im->nxt + u->img, u->size));
}

/* Units reached through the transport, from i on, in batches of one span's
 * units in flight together: with `first`, the first access to each unit (a
 * swap of the new value into a unit the call replaces whole, else an atomic
 * read); otherwise a compare-and-swap from cur to nxt.  Returns the index
 * after the batch; sets *again when units came back changed. */
static size_t net_batch(const struct acc *a, struct image *im, const unsigned char *whole, size_t i, int first,
                        int *again, remora_status_t *st)
{
    struct remora_amo_req rq[64];
    size_t ib[64], nb = 0, j = i;
    const struct remora_span *s = im->u[i].s;
    for (; j < im->nu && nb < 64 && im->u[j].s == s && !im->u[j].mapped; j++) {
        struct unit *v = &im->u[j];
        if (first ? v->done || v->exact : !pending(im, v))
            continue;
        struct remora_amo_req r = {v->pos - s->lo + s->at, v->size, REMORA_AMO_CSWAP,
                                   remora_elem_load(im->nxt + v->img, v->size), remora_elem_load(im->cur + v->img, v->size), 0};
        if (first) {
            int replace = whole && memchr(whole + v->img, 0, v->size) == NULL;
            r.op = replace ? REMORA_AMO_SWAP : REMORA_AMO_ADD;
            r.operand = replace ? r.operand : 0;
        }
        rq[nb] = r;
        ib[nb++] = j;
    }
    if (nb && !remora_ok((*st = remora_amov(s->amo, rq, nb))))
        return j;
    for (size_t b = 0; b < nb; b++) {
        struct unit *v = &im->u[ib[b]];
        int matched = rq[b].op == REMORA_AMO_SWAP || (rq[b].op == REMORA_AMO_CSWAP && rq[b].fetched == rq[b].compare);
        remora_elem_store(im->cur + v->img, v->size, rq[b].fetched);
        v->exact = 1;
        v->done = matched;
        if (!matched && rq[b].op == REMORA_AMO_CSWAP)
            *again = 1;
        if (!matched)
            compute(a, im, v->seg);
    }
    return j;
}

/* Swap every unit that must change (or whose value is only a guess) from
 * cur to nxt, recomputing segments whose units changed meanwhile, until all
 * are swapped.  whole: image bytes the call replaces (REPLACE), or NULL. */
static remora_status_t swap_units(const struct acc *a, struct image *im, const unsigned char *whole)
{
    remora_status_t st = REMORA_OK;
    int again = 0;
    for (size_t i = 0; i < im->nu && remora_ok(st);) /* the transport's units: first access */
        i = im->u[i].mapped ? i + 1 : net_batch(a, im, whole, i, 1, &again, &st);
    do {
        again = 0;
        for (size_t i = 0; i < im->nu && remora_ok(st);) {
            struct unit *u = &im->u[i];
            if (!pending(im, u)) {
                u->done = 1;
                i++;
                continue;
            }
            if (!u->mapped) {
                i = net_batch(a, im, NULL, i, 0, &again, &st);
                continue;
            }
            unsigned char *c = im->cur + u->img, *n = im->nxt + u->img;
            int ok;
            if (whole && memchr(whole + u->img, 0, u->size) == NULL &&
                (u->size <= 8 || remora_mapped_load16_ok())) {
                /* REPLACE of the whole unit: one atomic store orders it
                 * against any lock-free call on the unit as a swap would */
                if (u->size == 16) {
                    uint64_t v[2];
                    memcpy(v, n, 16);
                    remora_mapped_store16(u->mapped, v);
                } else {
                    store_word(u->mapped, u->size, remora_elem_load(n, u->size));
                }
                memcpy(c, n, u->size);
                ok = 1;
            } else if (u->size == 16) {
                uint64_t e[2], want[2];
                memcpy(e, c, 16);
                memcpy(want, n, 16);
                ok = remora_mapped_cas16(u->mapped, e, want);
                memcpy(c, e, 16);
            } else {
                uint64_t cmp = remora_elem_load(c, u->size);
                uint64_t old = remora_mapped_amo(u->mapped, u->size, REMORA_AMO_CSWAP, remora_elem_load(n, u->size), cmp);
                ok = old == cmp;
                remora_elem_store(c, u->size, old);
            }
            u->exact = 1;
            u->done = ok;
            if (!ok)
                again = 1, compute(a, im, u->seg);
            i++;
        }
    } while (again && remora_ok(st));
    return st;
}

/* Whether every unit still holds its value in cur (read again: an atomic
 * load here, a fetching add of 0 through the transport). */
static remora_status_t units_unchanged(const struct image *im, int *same)
{
    *same = 1;
    for (size_t i = 0; i < im->nu;) {
        const struct unit *u = &im->u[i];
        if (u->mapped) {
            unsigned char now[16];
            if (u->size == 16) {
                uint64_t e[2];
                memcpy(e, im->cur + u->img, 16);
                if (remora_mapped_load16_ok())
                    remora_mapped_load16(u->mapped, e);
                else
                    remora_mapped_cas16(u->mapped, e, e); /* e: the value now */
                memcpy(now, e, 16);
            } else {
                remora_elem_store(now, u->size, remora_mapped_load(u->mapped, u->size, __ATOMIC_RELAXED));
            }
            *same &= same_word(now, im->cur + u->img, u->size);
            i++;
            continue;
        }
        struct remora_amo_req rq[64];
        size_t nb = 0, j = i;
        const struct remora_span *s = u->s;
        for (; j < im->nu && nb < 64 && im->u[j].s == s && !im->u[j].mapped; j++)
            rq[nb++] = (struct remora_amo_req){im->u[j].pos - s->lo + s->at, im->u[j].size, REMORA_AMO_ADD, 0, 0, 0};
        remora_status_t st = remora_amov(s->amo, rq, nb);
        if (!remora_ok(st))
            return st;
        for (size_t b = 0; b < nb; b++)
            *same &= rq[b].fetched == remora_elem_load(im->cur + im->u[i + b].img, im->u[i + b].size);
        i = j;
    }
    return REMORA_OK;
}

/* The call's bytes in spans without atomics (under the stripes): read into
 * cur (put == 0) or written from nxt; complete at flush_plain. */
static remora_status_t move_plain(const struct acc *a, struct image *im, int put)
{
    for (size_t i = 0; i < a->np; i++) {
        const struct piece *p = &a->p[i];
        const struct seg *g = &im->seg[seg_of(im, p->pos)];
        for (uint64_t pos = p->pos, end = p->pos + p->len; pos < end;) {
            const struct remora_span *s = remora_target_span_at(&a->t, pos);
            uint64_t stop = s->hi < end ? s->hi : end;
            if (!s->atomic) {
                uint64_t off = pos - s->lo + s->at, img = g->img + (pos - g->lo);
                remora_status_t st = put ? remora_put(s->data, off, im->nxt + img, stop - pos)
                             : remora_get(s->data, off, im->cur + img, stop - pos);
                if (!remora_ok(st))
                    return st;
            }
            pos = stop;
        }
    }
    return REMORA_OK;
}

/* Completion of the transfers to spans without atomics. */
static remora_status_t flush_plain(const struct acc *a)
{
    const struct remora_span *s = remora_target_spans(&a->t);
    remora_status_t st = REMORA_OK;
    for (int i = 0; i < a->t.n && remora_ok(st); i++)
        if (!s[i].atomic)
            st = remora_flush(s[i].data);
    return st;
}

/* The common case on the node: one span, mapped here, whose segments are
 * whole 16-byte words, with 16-byte atomic loads and stores (base: the
 * address of the span's first position).  mapped16_read and _write then do
 * what read_segment, swap_units and units_unchanged do, word by
 * word in place: ARMCI-MPI's puts and gets are such accumulates, a row each. */
static char *mapped16_base(const struct acc *a, const struct image *im)
{
    char *base = remora_mapped_load16_ok() && remora_mapped_cas16_ok() ? mapped_span(a) : NULL;
    if (!base)
        return NULL;
    for (size_t k = 0; k < im->nseg; k++)
        if ((uintptr_t)(base + (im->seg[k].lo - a->t.few[0].lo)) % 16 || (im->seg[k].hi - im->seg[k].lo) % 16)
            return NULL;
    return base;
}

static int all_set(const unsigned char *whole)
{
    uint64_t w[2];
    memcpy(w, whole, 16);
    return w[0] == 0x0101010101010101u && w[1] == 0x0101010101010101u;
}

/* Reads every word into cur (pass 0), or reads them again and sets *same to
 * whether they all still hold cur (pass 1). */
static void mapped16_read(const struct image *im, char *base, uint64_t lo, int pass, int *same)
{
    for (size_t k = 0; k < im->nseg; k++) {
        const char *from = base + (im->seg[k].lo - lo);
        unsigned char *cur = im->cur + im->seg[k].img;
        uint64_t len = im->seg[k].hi - im->seg[k].lo, changed = 0;
        for (uint64_t off = 0; off < len; off += 16) {
            uint64_t v[2], c[2];
            remora_mapped_load16(from + off, v);
            if (pass == 0) {
                memcpy(cur + off, v, 16);
            } else {
                memcpy(c, cur + off, 16);
                changed |= (v[0] ^ c[0]) | (v[1] ^ c[1]);
            }
        }
        if (changed)
            *same = 0;
    }
}

/* Every word from cur to nxt: stored where the call replaces it whole,
 * else compare-and-swapped, recomputing the segment when a word changed. */
static void mapped16_write(const struct acc *a, struct image *im, char *base, const unsigned char *whole)
{
    for (size_t k = 0; k < im->nseg; k++) {
        char *to = base + (im->seg[k].lo - a->t.few[0].lo);
        unsigned char *cur = im->cur + im->seg[k].img, *nxt = im->nxt + im->seg[k].img;
        const unsigned char *all = whole ? whole + im->seg[k].img : NULL;
        uint64_t len = im->seg[k].hi - im->seg[k].lo;
        for (uint64_t off = 0; off < len; off += 16) {
            uint64_t want[2];
            memcpy(want, nxt + off, 16);
            if (all && all_set(all + off)) {
                remora_mapped_store16(to + off, want);
                continue;
            }
            for (;;) {
                uint64_t e[2];
                memcpy(e, cur + off, 16);
                if ((e[0] == want[0] && e[1] == want[1]) || remora_mapped_cas16(to + off, e, want))
                    break;
                memcpy(cur + off, e, 16); /* changed meanwhile: the call on what is there now */
                compute(a, im, k);
                memcpy(want, nxt + off, 16);
            }
        }
    }
}

/* The call on its image, with units of at most `round` bytes. */
remora_status_t remora_acc_run_image(const struct acc *a, uint64_t round)
{
    struct image im;
    image_init(&im);
    int fetch = a->result != NULL, writes = a->op != REMORA_OP_NO_OP || a->compare;
    int read_plain = fetch || a->compare || (a->op != REMORA_OP_REPLACE && a->op != REMORA_OP_NO_OP);
    remora_status_t st;
    int same = 1;
    do { /* once, or until a read of several units reads them all unchanged twice */
        image_free(&im);
        same = 1;
        st = plan(a, round, &im);
        char *base = remora_ok(st) && round == 16 ? mapped16_base(a, &im) : NULL;
        if (base)
            mapped16_read(&im, base, a->t.few[0].lo, 0, &same);
        for (size_t k = 0; !base && remora_ok(st) && k < im.nseg; k++)
            st = read_segment(a, &im, k);
        if (remora_ok(st) && read_plain) /* the plain bytes read */
            st = move_plain(a, &im, 0);
        if (remora_ok(st) && read_plain)
            st = flush_plain(a);
        unsigned char *whole = NULL; /* REPLACE: which image bytes it writes (units it writes whole are stored, not swapped) */
        if (remora_ok(st) && a->op == REMORA_OP_REPLACE && !a->compare && !fetch) {
            whole = im.whole;
            memset(whole, 0, (size_t)(im.nxt - im.cur));
            for (size_t i = 0; i < a->np; i++) {
                const struct seg *g = &im.seg[seg_of(&im, a->p[i].pos)];
                memset(whole + g->img + (a->p[i].pos - g->lo), 1, a->p[i].len);
            }
        }
        if (remora_ok(st))
            compute(a, &im, SIZE_MAX);
        if (base && writes) {
            mapped16_write(a, &im, base, whole);
        } else if (base) { /* a read: of several words, validated */
            if (im.nseg > 1 || im.seg[0].hi - im.seg[0].lo > 16)
                mapped16_read(&im, base, a->t.few[0].lo, 1, &same);
        } else {
            if (remora_ok(st))
                st = swap_units(a, &im, whole);
            if (remora_ok(st) && !writes && im.nu > 1)
                st = units_unchanged(&im, &same);
        }
    } while (remora_ok(st) && !same);
    if (remora_ok(st) && writes)
        st = move_plain(a, &im, 1);
    if (remora_ok(st) && writes)
        st = flush_plain(a);
    for (size_t i = 0; remora_ok(st) && fetch && i < a->np; i++) {
        const struct seg *g = &im.seg[seg_of(&im, a->p[i].pos)];
        memcpy(a->result + a->p[i].at, im.cur + g->img + (a->p[i].pos - g->lo), a->p[i].len);
    }
    image_free(&im);
    return st;
}
