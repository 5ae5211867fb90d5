/* Accumulates and atomics (see accumulate.h for the atomicity modes). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "core/acc_call.h"
#include "core/accumulate.h"
#include "core/datatype.h"
#include "core/reduce.h"
#include "core/rma.h"
#include "core/spin.h"
#include "core/ctrl.h"
#include "core/engine.h"
#include "core/status.h"

/* ---- one element with atomics ------------------------------------------------ */

/* Element values as the transport's atomics take them: the low `size` bytes
 * of a 64-bit word (sized loads keep that right on either byte order). */
static uint64_t load_elem(const void *p, size_t size)
{
    uint8_t u8;
    uint16_t u16;
    uint32_t u32;
    uint64_t u64;
    switch (size) {
    case 1: memcpy(&u8, p, 1); return u8;
    case 2: memcpy(&u16, p, 2); return u16;
    case 4: memcpy(&u32, p, 4); return u32;
    default: memcpy(&u64, p, 8); return u64;
    }
}

static void store_elem(void *p, size_t size, uint64_t v)
{
    uint8_t u8 = (uint8_t)v;
    uint16_t u16 = (uint16_t)v;
    uint32_t u32 = (uint32_t)v;
    switch (size) {
    case 1: memcpy(p, &u8, 1); break;
    case 2: memcpy(p, &u16, 2); break;
    case 4: memcpy(p, &u32, 4); break;
    default: memcpy(p, &v, 8); break;
    }
}

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

/* One atomic on the element at off of m: inline CPU atomics when m is mapped here. */
static inline int elem_amo(const struct remora_rmem *m, uint64_t off, size_t size, enum remora_amo_op op, uint64_t x,
                           uint64_t cmp, uint64_t *old)
{
    char *p = remora_mapped(m, off);
    if (p) {
        uint64_t v = remora_mapped_amo(p, size, op, x, cmp);
        if (old)
            *old = v;
        return REMORA_OK;
    }
    return remora_amo(m, off, size, op, x, cmp, old);
}

/* The single atomic that does op on an element, or -1 (a compare-and-swap
 * loop around the reduction kernel does it). */
static int native_amo(enum remora_op op, int integer)
{
    switch (op) {
    case REMORA_OP_NO_OP: return REMORA_AMO_ADD; /* of 0, fetching */
    case REMORA_OP_REPLACE: return REMORA_AMO_SWAP;
    case REMORA_OP_SUM: return integer ? REMORA_AMO_ADD : -1;
    case REMORA_OP_BAND: return REMORA_AMO_AND;
    case REMORA_OP_BOR: return REMORA_AMO_OR;
    case REMORA_OP_BXOR: return REMORA_AMO_XOR;
    default: return -1;
    }
}

/* Apply op to the size-byte element at off of m with operand o (NULL for
 * NO_OP); its old value to r when r is set.  A result (or `wait`) makes the
 * atomic fetching, so it is complete on return; otherwise it completes at the
 * next flush. */
static int update_elem(const struct remora_rmem *m, uint64_t off, size_t size, enum remora_op op,
                       remora_reduce_fn kernel, int integer, const void *o, void *r, int wait)
{
    uint64_t x = o ? load_elem(o, size) : 0, old = 0;
    int amo = native_amo(op, integer), st;
    if (amo >= 0) {
        st = elem_amo(m, off, size, (enum remora_amo_op)amo, x, 0, r || wait || op == REMORA_OP_NO_OP ? &old : NULL);
    } else {
        st = elem_amo(m, off, size, REMORA_AMO_ADD, 0, 0, &old);
        while (st == REMORA_OK) {
            union { uint64_t u; long double align; unsigned char b[8]; } nv;
            store_elem(nv.b, size, old);
            kernel(nv.b, o, 1);
            uint64_t seen;
            if ((st = elem_amo(m, off, size, REMORA_AMO_CSWAP, load_elem(nv.b, size), old, &seen)) != REMORA_OK ||
                seen == old)
                break;
            old = seen;
        }
    }
    if (st == REMORA_OK && r)
        store_elem(r, size, old);
    return st;
}

static int integer_class(const struct remora_type_entry *e)
{
    return e->tclass == REMORA_TC_INT || e->tclass == REMORA_TC_BYTE;
}

/* ---- the stripe locks ------------------------------------------------------------- */

/* Bit k of a target's ctrl.acc_stripes locks the positions p with
 * p / STRIPE_BYTES % 64 == k: a call takes the bits of the bytes it touches
 * in one compare-and-swap, all or none, so calls on other bytes go on
 * (unless their stripes collide) and nothing deadlocks. */
enum { STRIPE_BYTES = 256 };

static uint64_t stripes_of(uint64_t lo, uint64_t hi)
{
    uint64_t first = lo / STRIPE_BYTES, last = (hi - 1) / STRIPE_BYTES, mask = 0;
    if (last - first >= 63)
        return ~(uint64_t)0;
    for (uint64_t k = first; k <= last; k++)
        mask |= (uint64_t)1 << (k % 64);
    return mask;
}

/* The control word at off of target's control block (an atomic add of 0). */
static int ctrl_read(struct remora_win *w, int target, size_t off, uint64_t *v)
{
    return remora_ctrl_amo(w, target, off, REMORA_AMO_ADD, 0, 0, v);
}

static int stripes_lock(struct remora_win *w, int target, uint64_t mask)
{
    struct remora_wait wt;
    remora_wait_init(&wt);
    uint64_t cur = 0, old;
    int st;
    for (;;) {
        if (cur & mask) { /* held: wait, then look again */
            remora_backoff(&wt);
            if ((st = ctrl_read(w, target, REMORA_CTRL_ACC_STRIPES, &cur)) != REMORA_OK)
                return st;
            continue;
        }
        if ((st = remora_ctrl_amo(w, target, REMORA_CTRL_ACC_STRIPES, REMORA_AMO_CSWAP, cur | mask, cur, &old)) !=
                REMORA_OK ||
            old == cur)
            break;
        cur = old;
    }
    atomic_thread_fence(memory_order_acquire);
    return st;
}

static int stripes_unlock(struct remora_win *w, int target, uint64_t mask)
{
    atomic_thread_fence(memory_order_release);
    uint64_t old;
    return remora_ctrl_amo(w, target, REMORA_CTRL_ACC_STRIPES, REMORA_AMO_AND, ~mask, 0, &old);
}

/* ---- when calls under the stripes may go without atomics ------------------------- */

/* A call under the stripes of its bytes still updates its words with atomics
 * because lock-free calls (one word, no stripes) may run beside it.  Until
 * the first lock-free call on a target's memory none can, and calls under the
 * stripes use plain loads and stores there (the rows of ARMCI-MPI's and
 * Global Arrays' accumulates).  The target's ctrl.acc_lock_free says which:
 *   0  no lock-free call yet: calls under the stripes may go plain;
 *   1  the first lock-free call has set it and waits for the calls that read
 *      0 to end: until every stripe held when it set 1 has been seen free;
 *   2  lock-free calls go.
 * A call under the stripes reads it after taking them: it reads 0 and still
 * holds a stripe when 1 is set (and is waited for), or it reads 1 or 2 and
 * uses atomics.  The target's peer.acc_lock_free keeps the most we have read.
 * (Every caller has reached the target first: its state is made.) */
static uint8_t lock_free_known(const struct remora_rank_state *s)
{
    return atomic_load_explicit(&s->peer.acc_lock_free, memory_order_acquire);
}

static int lock_free_read(struct remora_win *w, int target, uint64_t *v)
{
    int st = ctrl_read(w, target, REMORA_CTRL_ACC_LOCK_FREE, v);
    uint8_t known = 0;
    while (st == REMORA_OK && *v > known &&
           !atomic_compare_exchange_weak_explicit(&remora_rank_known(w, target)->peer.acc_lock_free, &known, (uint8_t)*v,
                                                  memory_order_release, memory_order_acquire))
        ;
    return st;
}

/* Before a lock-free call: until the state is 2, setting it first if no
 * call has. */
static int lock_free_begin(struct remora_win *w, int target)
{
    uint64_t v = 0, held, now;
    if (lock_free_known(remora_rank_known(w, target)) == 2)
        return REMORA_OK;
    struct remora_wait wt;
    remora_wait_init(&wt);
    int st = lock_free_read(w, target, &v);
    if (st == REMORA_OK && v == 0 &&
        (st = remora_ctrl_amo(w, target, REMORA_CTRL_ACC_LOCK_FREE, REMORA_AMO_CSWAP, 1, 0, &v)) == REMORA_OK &&
        v == 0) { /* ours to wait for the plain calls */
        st = ctrl_read(w, target, REMORA_CTRL_ACC_STRIPES, &held);
        while (st == REMORA_OK && held) {
            remora_backoff(&wt);
            st = ctrl_read(w, target, REMORA_CTRL_ACC_STRIPES, &now);
            held &= now; /* a stripe seen free: the call that held it has ended */
        }
        if (st == REMORA_OK)
            st = remora_ctrl_amo(w, target, REMORA_CTRL_ACC_LOCK_FREE, REMORA_AMO_SWAP, 2, 0, &v);
    }
    while (st == REMORA_OK && (st = lock_free_read(w, target, &v)) == REMORA_OK && v != 2)
        remora_backoff(&wt);
    return st;
}

/* ---- a call as pieces of target memory ------------------------------------------ */

/* Every field but t, which remora_rma_target fills: zeroing the whole
 * struct (its spans) costs more than a small call's work. */
static void acc_init(struct acc *a, struct remora_win *w, int target, enum remora_op op, MPI_Count tcount)
{
    a->w = w;
    a->target = target;
    a->op = op;
    a->kernel = NULL;
    a->bt = a->tt = NULL;
    a->type = NULL;
    a->esz = 0;
    a->holes = a->integer = 0;
    a->origin = a->compare = NULL;
    a->result = NULL;
    a->tcount = tcount;
    a->p = &a->one;
    a->np = 0;
    a->lo = a->hi = 0;
}

static int add_piece(struct acc *a, uint64_t pos, uint64_t len, size_t at, size_t *cap)
{
    if (a->np && a->p[a->np - 1].pos + a->p[a->np - 1].len == pos && a->p[a->np - 1].at + a->p[a->np - 1].len == at) {
        a->p[a->np - 1].len += len; /* continues the last one on both sides */
    } else {
        if (a->np == *cap) {
            size_t ncap = *cap * 2;
            struct piece *np = a->p == &a->one ? malloc(sizeof *np * ncap) : realloc(a->p, sizeof *np * ncap);
            if (!np)
                return REMORA_ERR_NO_MEM;
            if (a->p == &a->one)
                np[0] = a->one;
            a->p = np;
            *cap = ncap;
        }
        a->p[a->np++] = (struct piece){pos, len, at, 1, 0};
    }
    a->lo = pos < a->lo ? pos : a->lo;
    a->hi = pos + len > a->hi ? pos + len : a->hi;
    return REMORA_OK;
}

/* Elements of a layout made of one basic type, one by one: the displacement
 * of each element's start (for types whose elements have holes). */
struct elems {
    struct remora_dt_cursor c;
    MPI_Aint disp, left, dsz, first;
};

static void elems_init(struct elems *e, const struct remora_dt *t, MPI_Count count, const struct remora_dt *bt)
{
    remora_dt_cursor_init(&e->c, t, count);
    e->left = 0;
    e->dsz = bt->size;
    e->first = bt->nblocks ? bt->blocks[0].disp : 0;
}

static int elems_next(struct elems *e, MPI_Aint *disp)
{
    if (!e->left && !(e->left = remora_dt_cursor_next(&e->c, LONG_MAX, &e->disp)))
        return 0;
    *disp = e->disp - e->first;
    for (MPI_Aint need = e->dsz; need > 0;) {
        if (!e->left && !(e->left = remora_dt_cursor_next(&e->c, LONG_MAX, &e->disp)))
            return 0;
        MPI_Aint take = need < e->left ? need : e->left;
        e->disp += take;
        e->left -= take;
        need -= take;
    }
    return 1;
}

/* Copy one element's data (its blocks, not its holes) from src to dst. */
static void copy_element(char *dst, const char *src, const struct remora_dt *bt)
{
    for (size_t i = 0; i < bt->nblocks; i++)
        memcpy(dst + bt->blocks[i].disp, src + bt->blocks[i].disp, (size_t)bt->blocks[i].len);
}

/* A target layout of equal blocks at one stride (a strided datatype) as one
 * run, for the owner: a million 4-byte blocks are one piece, not a million. */
static int gather_run(struct acc *a)
{
    struct remora_dt_run r;
    if (a->holes || a->tt->contiguous || !a->tt->nblocks ||
        !remora_dt_as_run(a->tt, a->tcount, a->tt->size * (MPI_Aint)a->tcount, a->tt->blocks[0].len, &r) ||
        r.n < 2 || r.n > UINT32_MAX)
        return 0;
    uint64_t len = (uint64_t)a->tt->blocks[0].len, pos = a->t.off + (uint64_t)r.first,
             last = pos + (uint64_t)(r.stride * (r.n - 1));
    a->one = (struct piece){pos, len, 0, (uint32_t)r.n, r.stride};
    a->p = &a->one;
    a->np = 1;
    a->lo = pos < last ? pos : last;
    a->hi = (pos > last ? pos : last) + len;
    return 1;
}

/* The pieces of the target layout (a->p, a->np, a->lo, a->hi); runs: where
 * the owner carries the call out (pieces may be runs). */
static int gather(struct acc *a, int runs)
{
    size_t cap = 1;
    int st = REMORA_OK;
    if (runs && gather_run(a))
        return REMORA_OK;
    a->p = &a->one;
    a->np = 0;
    a->lo = UINT64_MAX;
    a->hi = 0;
    if (a->holes) {
        struct elems e;
        elems_init(&e, a->tt, a->tcount, a->bt);
        MPI_Aint d;
        uint64_t len = (uint64_t)(a->bt->true_lb + a->bt->true_extent); /* its data ends there: no trailing padding */
        for (size_t k = 0; st == REMORA_OK && elems_next(&e, &d); k++)
            st = add_piece(a, a->t.off + (uint64_t)d, len, k * a->esz, &cap);
    } else {
        struct remora_dt_cursor c;
        remora_dt_cursor_init(&c, a->tt, a->tcount);
        MPI_Aint d, len;
        size_t at = 0;
        while (st == REMORA_OK && (len = remora_dt_cursor_next(&c, LONG_MAX, &d)) > 0) {
            st = add_piece(a, a->t.off + (uint64_t)d, (uint64_t)len, at, &cap);
            at += (size_t)len;
        }
    }
    return st;
}

static void drop_pieces(struct acc *a)
{
    if (a->p != &a->one)
        free(a->p);
    a->p = &a->one;
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
static int plan(const struct acc *a, uint64_t round, struct image *im)
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

static int add_unit(struct image *im, const struct unit *u)
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
static int read_segment(const struct acc *a, struct image *im, size_t k)
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
                store_elem(im->cur + u.img, size, remora_mapped_load(u.mapped, size, __ATOMIC_RELAXED));
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
            int st = add_unit(im, &u);
            if (st != REMORA_OK)
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
                        int *again, int *st)
{
    struct remora_amo_req rq[64];
    size_t ib[64], nb = 0, j = i;
    const struct remora_span *s = im->u[i].s;
    for (; j < im->nu && nb < 64 && im->u[j].s == s && !im->u[j].mapped; j++) {
        struct unit *v = &im->u[j];
        if (first ? v->done || v->exact : !pending(im, v))
            continue;
        struct remora_amo_req r = {v->pos - s->lo + s->at, v->size, REMORA_AMO_CSWAP,
                                   load_elem(im->nxt + v->img, v->size), load_elem(im->cur + v->img, v->size), 0};
        if (first) {
            int replace = whole && memchr(whole + v->img, 0, v->size) == NULL;
            r.op = replace ? REMORA_AMO_SWAP : REMORA_AMO_ADD;
            r.operand = replace ? r.operand : 0;
        }
        rq[nb] = r;
        ib[nb++] = j;
    }
    if (nb && (*st = remora_amov(s->amo, rq, nb)) != REMORA_OK)
        return j;
    for (size_t b = 0; b < nb; b++) {
        struct unit *v = &im->u[ib[b]];
        int matched = rq[b].op == REMORA_AMO_SWAP || (rq[b].op == REMORA_AMO_CSWAP && rq[b].fetched == rq[b].compare);
        store_elem(im->cur + v->img, v->size, rq[b].fetched);
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
static int swap_units(const struct acc *a, struct image *im, const unsigned char *whole)
{
    int st = REMORA_OK, again = 0;
    for (size_t i = 0; i < im->nu && st == REMORA_OK;) /* the transport's units: first access */
        i = im->u[i].mapped ? i + 1 : net_batch(a, im, whole, i, 1, &again, &st);
    do {
        again = 0;
        for (size_t i = 0; i < im->nu && st == REMORA_OK;) {
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
                    store_word(u->mapped, u->size, load_elem(n, u->size));
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
                uint64_t cmp = load_elem(c, u->size);
                uint64_t old = remora_mapped_amo(u->mapped, u->size, REMORA_AMO_CSWAP, load_elem(n, u->size), cmp);
                ok = old == cmp;
                store_elem(c, u->size, old);
            }
            u->exact = 1;
            u->done = ok;
            if (!ok)
                again = 1, compute(a, im, u->seg);
            i++;
        }
    } while (again && st == REMORA_OK);
    return st;
}

/* Whether every unit still holds its value in cur (read again: an atomic
 * load here, a fetching add of 0 through the transport). */
static int units_unchanged(const struct image *im, int *same)
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
                store_elem(now, u->size, remora_mapped_load(u->mapped, u->size, __ATOMIC_RELAXED));
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
        int st = remora_amov(s->amo, rq, nb);
        if (st != REMORA_OK)
            return st;
        for (size_t b = 0; b < nb; b++)
            *same &= rq[b].fetched == load_elem(im->cur + im->u[i + b].img, im->u[i + b].size);
        i = j;
    }
    return REMORA_OK;
}

/* The call's bytes in spans without atomics (under the stripes): read into
 * cur (put == 0) or written from nxt; complete at flush_plain. */
static int move_plain(const struct acc *a, struct image *im, int put)
{
    for (size_t i = 0; i < a->np; i++) {
        const struct piece *p = &a->p[i];
        const struct seg *g = &im->seg[seg_of(im, p->pos)];
        for (uint64_t pos = p->pos, end = p->pos + p->len; pos < end;) {
            const struct remora_span *s = remora_target_span_at(&a->t, pos);
            uint64_t stop = s->hi < end ? s->hi : end;
            if (!s->atomic) {
                uint64_t off = pos - s->lo + s->at, img = g->img + (pos - g->lo);
                int st = put ? remora_put(s->data, off, im->nxt + img, stop - pos)
                             : remora_get(s->data, off, im->cur + img, stop - pos);
                if (st != REMORA_OK)
                    return st;
            }
            pos = stop;
        }
    }
    return REMORA_OK;
}

/* Completion of the transfers to spans without atomics. */
static int flush_plain(const struct acc *a)
{
    const struct remora_span *s = remora_target_spans(&a->t);
    int st = REMORA_OK;
    for (int i = 0; i < a->t.n && st == REMORA_OK; i++)
        if (!s[i].atomic)
            st = remora_flush(s[i].data);
    return st;
}

/* ---- the same on the node, without a unit list -------------------------------- */

/* The address of the first position of the call's span when it has one, in
 * the atomicity domain, mapped here; else NULL. */
static char *mapped_span(const struct acc *a)
{
    const struct remora_span *s = &a->t.few[0];
    return a->t.n == 1 && s->atomic ? remora_mapped(s->amo, s->at) : NULL;
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

/* Simpler still, for one contiguous piece of such words whose elements do
 * not straddle them: the call word by word between the origin, the result
 * and the target, without an image (ARMCI-MPI's rows). */
static char *direct16_at(const struct acc *a)
{
    if (a->np != 1 || a->holes || a->compare || a->esz > 16 || 16 % a->esz || a->p[0].len % 16 ||
        !remora_mapped_load16_ok() || !remora_mapped_cas16_ok())
        return NULL;
    char *to = mapped_span(a);
    if (!to)
        return NULL;
    to += a->p[0].pos - a->t.few[0].lo;
    return (uintptr_t)to % 16 ? NULL : to;
}

static void direct16(const struct acc *a, char *to)
{
    const char *o = a->origin;
    char *r = a->result;
    uint64_t len = a->p[0].len;
    if (a->op == REMORA_OP_REPLACE && !r) {
        for (uint64_t off = 0; off < len; off += 16) {
            uint64_t v[2];
            memcpy(v, o + off, 16);
            remora_mapped_store16(to + off, v);
        }
    } else if (a->op == REMORA_OP_NO_OP) { /* several words: read until two reads agree (run_image) */
        for (uint64_t changed = 1; changed;) {
            for (uint64_t off = 0; off < len; off += 16) {
                uint64_t v[2];
                remora_mapped_load16(to + off, v);
                memcpy(r + off, v, 16);
            }
            changed = 0;
            for (uint64_t off = 0; len > 16 && off < len; off += 16) {
                uint64_t v[2], was[2];
                remora_mapped_load16(to + off, v);
                memcpy(was, r + off, 16);
                changed |= (v[0] ^ was[0]) | (v[1] ^ was[1]);
            }
        }
    } else {
        for (uint64_t off = 0; off < len; off += 16) {
            uint64_t e[2], n[2];
            remora_mapped_load16(to + off, e);
            do {
                memcpy(n, a->op == REMORA_OP_REPLACE ? o + off : (const char *)e, 16);
                if (a->op != REMORA_OP_REPLACE)
                    a->kernel(n, o + off, 16 / a->esz);
            } while (!remora_mapped_cas16(to + off, e, n));
            if (r)
                memcpy(r + off, e, 16);
        }
    }
}

/* Under the stripes while no lock-free call runs (state 0), on one span
 * mapped here, elements without holes: the call with plain loads and stores
 * (base: the address of the span's first position). */
static char *plain_base(const struct acc *a)
{
    return !a->holes && !a->compare ? mapped_span(a) : NULL;
}

/* The call on len bytes at t of whole elements of esz bytes, plainly: their
 * old value to r (unless NULL), then op with the elements at o. */
static void plain_bytes(char *t, const char *o, char *r, uint64_t len, enum remora_op op, remora_reduce_fn kernel,
                        size_t esz)
{
    if (r)
        memcpy(r, t, len);
    if (op == REMORA_OP_REPLACE)
        memmove(t, o, len); /* the origin may be window memory */
    else if (op != REMORA_OP_NO_OP)
        kernel(t, o, len / esz);
}

static void plain(const struct acc *a, char *base)
{
    for (size_t i = 0; i < a->np; i++) {
        const struct piece *p = &a->p[i];
        plain_bytes(base + (p->pos - a->t.few[0].lo), a->origin ? a->origin + p->at : NULL,
                    a->result ? a->result + p->at : NULL, p->len, a->op, a->kernel, a->esz);
    }
}

/* The call on its image, with units of at most `round` bytes. */
static int run_image(const struct acc *a, uint64_t round)
{
    struct image im;
    image_init(&im);
    int fetch = a->result != NULL, writes = a->op != REMORA_OP_NO_OP || a->compare;
    int read_plain = fetch || a->compare || (a->op != REMORA_OP_REPLACE && a->op != REMORA_OP_NO_OP);
    int st, same = 1;
    do { /* once, or until a read of several units reads them all unchanged twice */
        image_free(&im);
        same = 1;
        st = plan(a, round, &im);
        char *base = st == REMORA_OK && round == 16 ? mapped16_base(a, &im) : NULL;
        if (base)
            mapped16_read(&im, base, a->t.few[0].lo, 0, &same);
        for (size_t k = 0; !base && st == REMORA_OK && k < im.nseg; k++)
            st = read_segment(a, &im, k);
        if (st == REMORA_OK && read_plain) /* the plain bytes read */
            st = move_plain(a, &im, 0);
        if (st == REMORA_OK && read_plain)
            st = flush_plain(a);
        unsigned char *whole = NULL; /* REPLACE: which image bytes it writes (units it writes whole are stored, not swapped) */
        if (st == REMORA_OK && a->op == REMORA_OP_REPLACE && !a->compare && !fetch) {
            whole = im.whole;
            memset(whole, 0, (size_t)(im.nxt - im.cur));
            for (size_t i = 0; i < a->np; i++) {
                const struct seg *g = &im.seg[seg_of(&im, a->p[i].pos)];
                memset(whole + g->img + (a->p[i].pos - g->lo), 1, a->p[i].len);
            }
        }
        if (st == REMORA_OK)
            compute(a, &im, SIZE_MAX);
        if (base && writes) {
            mapped16_write(a, &im, base, whole);
        } else if (base) { /* a read: of several words, validated */
            if (im.nseg > 1 || im.seg[0].hi - im.seg[0].lo > 16)
                mapped16_read(&im, base, a->t.few[0].lo, 1, &same);
        } else {
            if (st == REMORA_OK)
                st = swap_units(a, &im, whole);
            if (st == REMORA_OK && !writes && im.nu > 1)
                st = units_unchanged(&im, &same);
        }
    } while (st == REMORA_OK && !same);
    if (st == REMORA_OK && writes)
        st = move_plain(a, &im, 1);
    if (st == REMORA_OK && writes)
        st = flush_plain(a);
    for (size_t i = 0; st == REMORA_OK && fetch && i < a->np; i++) {
        const struct seg *g = &im.seg[seg_of(&im, a->p[i].pos)];
        memcpy(a->result + a->p[i].at, im.cur + g->img + (a->p[i].pos - g->lo), a->p[i].len);
    }
    image_free(&im);
    return st;
}

/* The one word of a lock-free call: the smallest aligned word of a size the
 * span's atomics do as one operation (16 bytes: a 16-byte compare-and-swap
 * here) holding [lo, hi) inside the span, or 0 when there is none. */
static size_t lock_free_word(const struct acc *a)
{
    if (a->t.n != 1 || !a->t.few[0].atomic)
        return 0;
    const struct remora_span *s = &a->t.few[0];
    uint64_t base = s->amo->base + s->at - s->lo; /* address of position 0 as the transport sees it */
    for (size_t size = 1; size <= 16; size *= 2) {
        uint64_t lo = a->lo / size * size;
        if (a->hi - lo > size || (base + lo) % size || lo < s->lo || lo + size > s->hi)
            continue;
        if (size == 16 ? remora_mapped(s->amo, s->at) && remora_mapped_cas16_ok() : remora_amo_size_native(s->amo, size))
            return size;
    }
    return 0;
}

/* The call, after every check: one atomic when it can be, else under the
 * stripes of its bytes. */
static int run(struct acc *a)
{
    int st = gather(a, a->t.n == 1 && a->type && remora_applies(a->t.few[0].amo));
    if (st != REMORA_OK)
        return st;
    if (remora_acc_owner_applies(a)) {
        const struct remora_span *s = &a->t.few[0];
        uint64_t off = a->lo - s->lo + s->at;
        /* one fetched element that one network atomic updates: the
         * transport's atomic, which its owner does under the same lock as
         * the calls (and whose reply is leaner than a message's) */
        if (a->result && a->np == 1 && a->p[0].count == 1 && a->p[0].len == a->esz && (a->esz == 4 || a->esz == 8) &&
            a->t.n == 1 && (a->compare || native_amo(a->op, a->integer) >= 0) && remora_amo_size_native(s->amo, a->esz) &&
            (s->amo->base + off) % a->esz == 0) {
            if (a->compare) {
                uint64_t old;
                st = remora_amo(s->amo, off, a->esz, REMORA_AMO_CSWAP, load_elem(a->origin, a->esz),
                                load_elem(a->compare, a->esz), &old);
                if (st == REMORA_OK)
                    store_elem(a->result, a->esz, old);
            } else {
                st = update_elem(s->amo, off, a->esz, a->op, a->kernel, a->integer, a->origin, a->result, 0);
            }
        } else {
            st = remora_acc_owner_run(a);
        }
        drop_pieces(a);
        return st;
    }
    size_t word = lock_free_word(a);
    const struct remora_span *s = &a->t.few[0];
    if (word && (st = lock_free_begin(a->w, a->target)) != REMORA_OK) {
        drop_pieces(a);
        return st;
    }
    if (word && a->np == 1 && a->p[0].len == a->esz && word == a->esz && word <= 8) {
        /* one element, one atomic */
        uint64_t off = a->lo - s->lo + s->at;
        if (a->compare) {
            uint64_t old;
            st = elem_amo(s->amo, off, word, REMORA_AMO_CSWAP, load_elem(a->origin, word), load_elem(a->compare, word),
                          &old);
            if (st == REMORA_OK)
                store_elem(a->result, word, old);
        } else {
            st = update_elem(s->amo, off, word, a->op, a->kernel, a->integer, a->origin, a->result,
                             a->w->acc_ordered);
        }
    } else if (word) {
        st = run_image(a, word);
    } else {
        uint64_t mask = stripes_of(a->lo, a->hi);
        if ((st = stripes_lock(a->w, a->target, mask)) == REMORA_OK) {
            uint64_t lock_free = lock_free_known(remora_rank_known(a->w, a->target));
            char *base = lock_free ? NULL : plain_base(a), *to;
            if (base)
                st = lock_free_read(a->w, a->target, &lock_free);
            if (st == REMORA_OK && base && !lock_free)
                plain(a, base);
            else if (st == REMORA_OK && (to = direct16_at(a)))
                direct16(a, to);
            else if (st == REMORA_OK)
                st = run_image(a, 16);
            int st2 = stripes_unlock(a->w, a->target, mask);
            st = st != REMORA_OK ? st : st2;
        }
    }
    drop_pieces(a);
    return st;
}

/* Elements of (buf, count, t) as an array of elements (stride a->esz) in
 * typemap order: for holes-free types the bytes packed, otherwise element by
 * element.  to_buf copies the other way (results). */
static void convey(const struct acc *a, char *buf, MPI_Count count, const struct remora_dt *t, char *array,
                   int to_buf)
{
    if (a->holes) {
        struct elems e;
        elems_init(&e, t, count, a->bt);
        MPI_Aint d;
        for (size_t k = 0; elems_next(&e, &d); k++)
            to_buf ? copy_element(remora_buf_at(buf, d), array + k * a->esz, a->bt)
                   : copy_element(array + k * a->esz, remora_buf_at(buf, d), a->bt);
        return;
    }
    struct remora_dt_cursor c;
    remora_dt_cursor_init(&c, t, count);
    MPI_Aint d, len;
    size_t pos = 0;
    while ((len = remora_dt_cursor_next(&c, LONG_MAX, &d)) > 0) {
        to_buf ? memcpy(remora_buf_at(buf, d), array + pos, (size_t)len)
               : memcpy(array + pos, remora_buf_at(buf, d), (size_t)len);
        pos += (size_t)len;
    }
}

/* The element array of (buf, count, t): the buffer itself when it already is
 * one, else a copy in *tmp (filled from buf when fill is set). */
static char *element_array(const struct acc *a, const void *buf, MPI_Count count, const struct remora_dt *t,
                           size_t nelem, int fill, char **tmp)
{
    *tmp = NULL;
    if (t->contiguous && !a->holes)
        return remora_buf_at(buf, t->true_lb);
    if (!(*tmp = malloc(nelem * a->esz + 1)))
        return NULL;
    if (fill)
        convey(a, (char *)buf, count, t, *tmp, 0);
    return *tmp;
}

/* The predefined type a layout is made of, for an accumulate. */
static int basic_of(const struct remora_dt *t, const struct remora_type_entry **e)
{
    *e = t->basic == MPI_DATATYPE_NULL ? NULL : remora_type_lookup(&remora_core.types, t->basic);
    if (!*e)
        return remora_err(MPI_ERR_TYPE, "accumulate datatypes must be made of one predefined type");
    return MPI_SUCCESS;
}

/* The fast paths, for count elements of one predefined type without holes,
 * the same type and count on every side, to a target mapped here whose
 * memory every origin reaches with atomics, inside an epoch, in range: no
 * layouts, no pieces.  One element of 1, 2, 4 or 8 bytes, aligned, once
 * lock-free calls go: one CPU atomic.  Any other call while no lock-free call
 * is known: under its stripes, plainly if the state read under them is still
 * 0 (the rows of Global Arrays' and ARMCI-MPI's accumulates).  Returns
 * MPI_SUCCESS or an error class, or -1 for the general case. */
static int accumulate_fast(struct remora_win *w, const void *oaddr, MPI_Count ocount, MPI_Datatype otype,
                           const struct remora_acc_result *res, int target, MPI_Aint tdisp, MPI_Count tcount,
                           MPI_Datatype ttype, enum remora_op op)
{
    if (tcount < 1 || tcount > INT_MAX || (op != REMORA_OP_NO_OP && (otype != ttype || ocount != tcount)) ||
        (res && (res->type != ttype || res->count != tcount || !res->addr)))
        return -1;
    const struct remora_type_entry *e = remora_type_lookup(&remora_core.types, ttype);
    char *t;
    uint64_t n = e ? (uint64_t)tcount * e->size : 0; /* bytes */
    const struct remora_rank_state *s;
    if (!e || e->size != e->extent || !(s = remora_fast_span(w, n, target, tdisp, &t)) || !s->peer.acc_atomic)
        return -1;
    uint8_t lock_free = lock_free_known(s);
    const struct remora_reach *x = &s->reach;
    if (remora_applies(&x->amo)) /* the owner carries accumulates out (run) */
        return -1;
    uint64_t off = (uint64_t)(t - s->peer.base);
    int one_atomic = tcount == 1 && remora_amo_size_valid(e->size) && remora_mapped(&x->amo, 0) &&
                     (x->amo.base + off) % e->size == 0;
    if (one_atomic ? lock_free != 2 : lock_free != 0)
        return -1;
    if (!remora_op_allowed(op, e))
        return remora_err(MPI_ERR_OP, "the operation is not defined on this datatype");
    remora_reduce_fn kernel = remora_reduce_kernel(op, e);
    const void *o = op == REMORA_OP_NO_OP ? NULL : oaddr;
    void *r = res ? res->addr : NULL;
    if (one_atomic) {
        update_elem(&x->amo, off, e->size, op, kernel, integer_class(e), o, r, 0);
        return MPI_SUCCESS;
    }
    uint64_t mask = stripes_of(off, off + n), state = 0;
    int st = stripes_lock(w, target, mask);
    if (st == REMORA_OK) {
        if ((st = lock_free_read(w, target, &state)) == REMORA_OK && state == 0)
            plain_bytes(t, o, r, n, op, kernel, e->size);
        int st2 = stripes_unlock(w, target, mask);
        st = st != REMORA_OK ? st : st2;
    }
    if (st != REMORA_OK)
        return remora_status_err(st, "accumulate at target %d", target);
    return state == 0 ? MPI_SUCCESS : -1;
}

int remora_accumulate(struct remora_win *w, const void *oaddr, MPI_Count ocount, MPI_Datatype otype,
                      const struct remora_acc_result *res, int target, MPI_Aint tdisp, MPI_Count tcount,
                      MPI_Datatype ttype, MPI_Op op)
{
    int opid = remora_op_of(op);
    if (opid < 0 || (opid == REMORA_OP_NO_OP && !res))
        return remora_err(MPI_ERR_OP, "operation %#llx: not a predefined operation allowed here",
                          (unsigned long long)(uintptr_t)op);
    int fast = accumulate_fast(w, oaddr, ocount, otype, res, target, tdisp, tcount, ttype, (enum remora_op)opid);
    if (fast >= 0)
        return fast;
    if (target == MPI_PROC_NULL)
        return MPI_SUCCESS;
    int rc = remora_check_target(w, target);
    if (rc == MPI_SUCCESS)
        rc = remora_rma_counts(opid == REMORA_OP_NO_OP ? 0 : ocount, tcount);
    void *raddr = res ? res->addr : NULL;
    MPI_Count rcount = res ? res->count : 0;
    if (rc == MPI_SUCCESS && res && rcount < 0)
        rc = remora_err(MPI_ERR_COUNT, "negative result count");
    if (rc != MPI_SUCCESS)
        return rc;

    struct acc a;
    acc_init(&a, w, target, (enum remora_op)opid, tcount);
    const struct remora_dt *ot = NULL, *rt = NULL;
    const struct remora_type_entry *tb, *b;
    if ((rc = remora_dt_get(ttype, &a.tt)) != MPI_SUCCESS)
        return remora_err(rc, "target datatype");
    if (opid != REMORA_OP_NO_OP && (rc = remora_dt_get(otype, &ot)) != MPI_SUCCESS)
        return remora_err(rc, "origin datatype");
    if (res && (rc = remora_dt_get(res->type, &rt)) != MPI_SUCCESS)
        return remora_err(rc, "result datatype");
    MPI_Aint bytes = (MPI_Aint)(tcount * a.tt->size);
    if ((ot && ocount * ot->size != bytes) || (rt && rcount * rt->size != bytes))
        return remora_err(MPI_ERR_TYPE, "origin, result and target hold different amounts of data");
    if (bytes == 0) { /* nothing to move: a no-op inside an epoch */
#if defined(OPEN_MPI)
        /* if the types agree: Open MPI's osc/sm refuses zero elements of
         * different basic types (MPI_ERR_ARG); MPICH takes them as a no-op */
        MPI_Datatype bt = a.tt->basic;
        if (bt != MPI_DATATYPE_NULL && ((ot && ot->basic != MPI_DATATYPE_NULL && ot->basic != bt) ||
                                        (rt && rt->basic != MPI_DATATYPE_NULL && rt->basic != bt)))
            return remora_err(MPI_ERR_TYPE, "origin, result and target differ in basic type");
#endif
        if ((rc = remora_rma_target(w, target, tdisp, a.tt, 0, &a.t)) == MPI_SUCCESS)
            remora_target_release(&a.t);
        return rc;
    }
    if ((rc = basic_of(a.tt, &tb)) != MPI_SUCCESS)
        return remora_err(rc, "target datatype");
    if (ot && ((rc = basic_of(ot, &b)) != MPI_SUCCESS || b->handle != tb->handle))
        return remora_err(rc ? rc : MPI_ERR_TYPE, "origin and target differ in basic type");
    if (rt && ((rc = basic_of(rt, &b)) != MPI_SUCCESS || b->handle != tb->handle))
        return remora_err(rc ? rc : MPI_ERR_TYPE, "result and target differ in basic type");
    a.type = tb;
    a.esz = tb->extent;
    a.holes = tb->size != tb->extent;
    a.integer = integer_class(tb);
    if ((rc = remora_dt_get(tb->handle, &a.bt)) != MPI_SUCCESS)
        return remora_err(rc, "basic datatype");
    if (!remora_op_allowed(a.op, tb))
        return remora_err(MPI_ERR_OP, "the operation is not defined on this datatype");
    a.kernel = remora_reduce_kernel(a.op, tb);
    if ((rc = remora_rma_target(w, target, tdisp, a.tt, tcount, &a.t)) != MPI_SUCCESS)
        return rc;

    size_t nelem = (size_t)(bytes / tb->size);
    char *otmp = NULL, *rtmp = NULL;
    if ((ot && !(a.origin = element_array(&a, oaddr, ocount, ot, nelem, 1, &otmp))) ||
        (rt && !(a.result = element_array(&a, raddr, rcount, rt, nelem, 0, &rtmp)))) {
        free(otmp);
        remora_target_release(&a.t);
        return remora_err(MPI_ERR_NO_MEM, "%zu elements", nelem);
    }
    int st = run(&a);
    if (st == REMORA_OK && rtmp)
        convey(&a, raddr, rcount, rt, rtmp, 1);
    free(otmp);
    free(rtmp);
    remora_target_release(&a.t);
    return remora_status_err(st, "accumulate at target %d", target);
}

/* The fast path of MPI_Fetch_and_op and MPI_Compare_and_swap: one aligned
 * 4- or 8-byte element, whose op is one CPU atomic, of a target mapped here
 * once lock-free calls go there (the conditions of accumulate_fast's one
 * atomic, without its general checks).  MPI_SUCCESS, or -1 for the general
 * path. */
static int atomic_fast(struct remora_win *w, const struct remora_type_entry *e, int amo, const void *oaddr,
                       const void *caddr, void *raddr, int target, MPI_Aint tdisp)
{
    char *t;
    const struct remora_rank_state *s;
    if (amo < 0 || (e->size != 4 && e->size != 8) || !(s = remora_fast_span(w, e->size, target, tdisp, &t)) ||
        !s->peer.acc_atomic || lock_free_known(s) != 2)
        return -1;
    char *p = remora_mapped(&s->reach.amo, (uint64_t)(t - s->peer.base));
    if (!p || (uintptr_t)p % e->size)
        return -1;
    uint64_t x = oaddr ? load_elem(oaddr, e->size) : 0, c = caddr ? load_elem(caddr, e->size) : 0;
    store_elem(raddr, e->size, remora_mapped_amo(p, e->size, (enum remora_amo_op)amo, x, c));
    return MPI_SUCCESS;
}

int remora_fetch_and_op(struct remora_win *w, const void *oaddr, void *raddr, MPI_Datatype type, int target,
                        MPI_Aint tdisp, MPI_Op op)
{
    const struct remora_type_entry *e = remora_type_lookup(&remora_core.types, type);
    if (!e)
        return remora_err(MPI_ERR_TYPE, "MPI_Fetch_and_op needs a predefined datatype");
    int opid = remora_op_of(op);
    if (opid >= 0 && raddr && atomic_fast(w, e, native_amo((enum remora_op)opid, integer_class(e)),
                                          opid == REMORA_OP_NO_OP ? NULL : oaddr, NULL, raddr, target, tdisp) == 0)
        return MPI_SUCCESS;
    struct remora_acc_result res = {raddr, 1, type};
    return remora_accumulate(w, oaddr, 1, type, &res, target, tdisp, 1, type, op);
}

int remora_compare_and_swap(struct remora_win *w, const void *oaddr, const void *caddr, void *raddr,
                            MPI_Datatype type, int target, MPI_Aint tdisp)
{
    const struct remora_type_entry *e = remora_type_lookup(&remora_core.types, type);
#if defined(OPEN_MPI)
    /* Open MPI compares and swaps any predefined type bitwise (beyond the
     * standard's integer, logical and byte types); so does Remora over it,
     * on elements without holes */
    if (!e || e->size != e->extent)
        return remora_err(MPI_ERR_TYPE, "MPI_Compare_and_swap needs a predefined type without holes");
#else
    if (!e || (e->tclass != REMORA_TC_INT && e->tclass != REMORA_TC_LOGICAL && e->tclass != REMORA_TC_BYTE))
        return remora_err(MPI_ERR_TYPE, "MPI_Compare_and_swap needs an integer, logical or byte type");
#endif
    if (target == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if (atomic_fast(w, e, REMORA_AMO_CSWAP, oaddr, caddr, raddr, target, tdisp) == 0)
        return MPI_SUCCESS;
    struct acc a;
    acc_init(&a, w, target, REMORA_OP_REPLACE, 1);
    a.type = e;
    a.esz = e->extent;
    a.origin = oaddr;
    a.compare = caddr;
    a.result = raddr;
    int rc = remora_check_target(w, target);
    if (rc == MPI_SUCCESS && (rc = remora_dt_get(type, &a.tt)) == MPI_SUCCESS)
        rc = remora_rma_target(w, target, tdisp, a.tt, 1, &a.t);
    if (rc != MPI_SUCCESS)
        return rc;
    int st = run(&a);
    remora_target_release(&a.t);
    return remora_status_err(st, "compare-and-swap at target %d", target);
}
