/* Accumulates and atomics (see accumulate.h for the atomicity modes). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

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

/* ---- the accumulate lock ----------------------------------------------------- */

static int acc_lock(struct remora_win *w, int target)
{
    struct remora_wait wt;
    remora_wait_init(&wt);
    uint64_t old;
    int st;
    while ((st = remora_ctrl_amo(w, target, REMORA_CTRL_ACC_LOCK, REMORA_AMO_CSWAP, 1, 0, &old)) == REMORA_OK && old)
        remora_backoff(&wt);
    atomic_thread_fence(memory_order_acquire);
    return st;
}

static int acc_unlock(struct remora_win *w, int target)
{
    atomic_thread_fence(memory_order_release);
    uint64_t old;
    return remora_ctrl_amo(w, target, REMORA_CTRL_ACC_LOCK, REMORA_AMO_SWAP, 0, 0, &old);
}

/* ---- the general case ---------------------------------------------------------- */

struct acc {
    struct remora_win *w;
    int target;
    struct remora_target t;     /* the target as this operation reaches it */
    enum remora_op op;
    remora_reduce_fn kernel;
    const struct remora_type_entry *basic;
    const struct remora_dt *bt; /* the basic type's own layout                          */
    size_t esz;                 /* bytes of one element in memory (its extent)           */
    int holes;                  /* elements have padding (MPI_DOUBLE_INT, ...): walk them
                                   one by one instead of as byte runs                    */
    const char *origin;       /* origin elements, packed in typemap order (NULL for NO_OP) */
    char *result;             /* result elements, packed (NULL for MPI_Accumulate)         */
    const struct remora_dt *tt;
    MPI_Count tcount;
};

/* t = t op o over len bytes of whole elements (under the accumulate lock). */
static void combine(const struct acc *a, char *t, const char *o, size_t len)
{
    if (a->op == REMORA_OP_REPLACE)
        memcpy(t, o, len);
    else if (a->op != REMORA_OP_NO_OP)
        a->kernel(t, o, len / a->esz);
}

/* Under the accumulate lock: in place when the memory is mapped here; else
 * read, modify, write, each completed by a flush before the data is used and
 * before the lock is released. */
static int locked_piece(const struct acc *a, uint64_t off, const char *o, char *r, size_t len)
{
    const struct remora_rmem *m = a->t.data;
    char *t = remora_mapped(m, off);
    if (t) {
        if (r)
            memcpy(r, t, len);
        combine(a, t, o, len);
        return REMORA_OK;
    }
    char *tmp = malloc(len);
    if (!tmp)
        return REMORA_ERR_NO_MEM;
    int st = remora_get(m, off, tmp, len);
    if (st == REMORA_OK)
        st = remora_flush(m);
    if (st == REMORA_OK) {
        if (r)
            memcpy(r, tmp, len);
        if (a->op != REMORA_OP_NO_OP) {
            combine(a, tmp, o, len);
            st = remora_put(m, off, tmp, len);
            if (st == REMORA_OK)
                st = remora_flush(m);
        }
    }
    free(tmp);
    return st;
}

/* Elements update with atomics when every origin can (t->atomic), the
 * element size has them as one operation (a compare-and-swap loop of network
 * round trips per element costs more than the lock for a whole run) and the
 * element is aligned: the same choice at every origin, so an element is never
 * updated both ways. */
static int atomic_mode(const struct remora_target *t, uint64_t off, size_t esz)
{
    return t->atomic && remora_amo_size_native(t->amo, esz) && (t->amo->base + off) % esz == 0;
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

/* Update a run of whole elements of the target at off in its mode; *locked
 * tells whether we hold the accumulate lock (taken on first need). */
static int update(const struct acc *a, uint64_t off, const char *o, char *r, size_t len, int integer, int *locked)
{
    int st = REMORA_OK;
    if (atomic_mode(&a->t, off, a->esz)) {
        int wait = a->w->acc_ordered; /* ordered accumulates: each complete before the next */
        for (size_t i = 0; i < len && st == REMORA_OK; i += a->esz)
            st = update_elem(a->t.amo, off + i, a->esz, a->op, a->kernel, integer, o ? o + i : NULL,
                             r ? r + i : NULL, wait);
        return st;
    }
    if (!*locked) {
        if ((st = acc_lock(a->w, a->target)) != REMORA_OK)
            return st;
        *locked = 1;
    }
    return locked_piece(a, off, o, r, len);
}

/* Walk the target layout, updating each run of whole elements in its mode. */
static int apply(const struct acc *a)
{
    int integer = integer_class(a->basic);
    int locked = 0, err = 0;
    if (a->holes) {
        struct elems e;
        elems_init(&e, a->tt, a->tcount, a->bt);
        MPI_Aint d;
        for (size_t k = 0; !err && elems_next(&e, &d); k++)
            err = update(a, a->t.off + (uint64_t)d, a->origin ? a->origin + k * a->esz : NULL,
                         a->result ? a->result + k * a->esz : NULL, a->esz, integer, &locked);
    } else {
        struct remora_dt_cursor c;
        remora_dt_cursor_init(&c, a->tt, a->tcount);
        MPI_Aint d, len;
        size_t pos = 0;
        while (!err && (len = remora_dt_cursor_next(&c, LONG_MAX, &d)) > 0) {
            err = update(a, a->t.off + (uint64_t)d, a->origin ? a->origin + pos : NULL,
                         a->result ? a->result + pos : NULL, (size_t)len, integer, &locked);
            pos += (size_t)len;
        }
    }
    if (locked) {
        int st = acc_unlock(a->w, a->target);
        err = err ? err : st;
    }
    return remora_status_err(err, "accumulate at target %d", a->target);
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
            to_buf ? copy_element(buf + d, array + k * a->esz, a->bt) : copy_element(array + k * a->esz, buf + d, a->bt);
        return;
    }
    struct remora_dt_cursor c;
    remora_dt_cursor_init(&c, t, count);
    MPI_Aint d, len;
    size_t pos = 0;
    while ((len = remora_dt_cursor_next(&c, LONG_MAX, &d)) > 0) {
        to_buf ? memcpy(buf + d, array + pos, (size_t)len) : memcpy(array + pos, buf + d, (size_t)len);
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
        return (char *)buf + t->true_lb;
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

/* The fast path: one predefined type of 1, 2, 4 or 8 bytes without holes on
 * every side, as many elements on each, to a target mapped here in atomic
 * mode, inside an epoch, in range: CPU atomics straight away, no layouts.
 * Returns MPI_SUCCESS or an error class, or -1 for the general case. */
static int accumulate_fast(struct remora_win *w, const void *oaddr, MPI_Count ocount, MPI_Datatype otype,
                           void *raddr, MPI_Count rcount, MPI_Datatype rtype, int target, MPI_Aint tdisp,
                           MPI_Count tcount, MPI_Datatype ttype, enum remora_op op)
{
    if (tcount <= 0 || tcount > INT_MAX || (op != REMORA_OP_NO_OP && (otype != ttype || ocount != tcount)) ||
        (raddr && (rtype != ttype || rcount != tcount)))
        return -1;
    const struct remora_type_entry *e = remora_type_lookup(&remora_core.types, ttype);
    char *t;
    if (!e || e->size != e->extent || !remora_fast_span(w, (uint64_t)tcount * e->size, target, tdisp, &t))
        return -1;
    const struct remora_reach *x = &w->reach[target];
    uint64_t off = (uint64_t)(t - w->peers[target].base);
    struct remora_target tg = {&x->data, &x->amo, off, w->peers[target].acc_atomic};
    if (!remora_mapped(&x->amo, 0) || !atomic_mode(&tg, off, e->size))
        return -1;
    if (!remora_op_allowed(op, e))
        return remora_err(MPI_ERR_OP, "the operation is not defined on this datatype");
    remora_reduce_fn kernel = remora_reduce_kernel(op, e);
    int integer = integer_class(e);
    const char *o = op == REMORA_OP_NO_OP ? NULL : oaddr;
    char *r = raddr;
    for (MPI_Count i = 0; i < tcount; i++)
        update_elem(&x->amo, off + (uint64_t)i * e->size, e->size, op, kernel, integer, o ? o + i * e->size : NULL,
                    r ? r + i * e->size : NULL, 0);
    return MPI_SUCCESS;
}

int remora_accumulate(struct remora_win *w, const void *oaddr, MPI_Count ocount, MPI_Datatype otype, void *raddr,
                      MPI_Count rcount, MPI_Datatype rtype, int target, MPI_Aint tdisp, MPI_Count tcount,
                      MPI_Datatype ttype, MPI_Op op)
{
    int opid = remora_op_of(op);
    if (opid < 0 || (opid == REMORA_OP_NO_OP && !raddr))
        return remora_err(MPI_ERR_OP, "not a predefined operation allowed here");
    int fast = accumulate_fast(w, oaddr, ocount, otype, raddr, rcount, rtype, target, tdisp, tcount, ttype,
                               (enum remora_op)opid);
    if (fast >= 0)
        return fast;
    if (target == MPI_PROC_NULL)
        return MPI_SUCCESS;
    int rc = remora_check_target(w, target);
    if (rc == MPI_SUCCESS)
        rc = remora_rma_counts(opid == REMORA_OP_NO_OP ? 0 : ocount, tcount);
    if (rc == MPI_SUCCESS && raddr && rcount < 0)
        rc = remora_err(MPI_ERR_COUNT, "negative result count");
    if (rc != MPI_SUCCESS)
        return rc;

    struct acc a = {.w = w, .target = target, .op = (enum remora_op)opid, .tcount = tcount};
    const struct remora_dt *ot = NULL, *rt = NULL;
    const struct remora_type_entry *tb, *b;
    if ((rc = remora_dt_get(ttype, &a.tt)) != MPI_SUCCESS || (rc = basic_of(a.tt, &tb)) != MPI_SUCCESS)
        return remora_err(rc, "target datatype");
    MPI_Aint bytes = (MPI_Aint)(tcount * a.tt->size);
    if (opid != REMORA_OP_NO_OP) {
        if ((rc = remora_dt_get(otype, &ot)) != MPI_SUCCESS || (rc = basic_of(ot, &b)) != MPI_SUCCESS)
            return remora_err(rc, "origin datatype");
        if (b->handle != tb->handle || ocount * ot->size != bytes)
            return remora_err(MPI_ERR_TYPE, "origin and target differ in basic type or amount");
    }
    if (raddr) {
        if ((rc = remora_dt_get(rtype, &rt)) != MPI_SUCCESS || (rc = basic_of(rt, &b)) != MPI_SUCCESS)
            return remora_err(rc, "result datatype");
        if (b->handle != tb->handle || rcount * rt->size != bytes)
            return remora_err(MPI_ERR_TYPE, "result and target differ in basic type or amount");
    }
    a.basic = tb;
    a.esz = tb->extent;
    a.holes = tb->size != tb->extent;
    if ((rc = remora_dt_get(tb->handle, &a.bt)) != MPI_SUCCESS)
        return remora_err(rc, "basic datatype");
    if (!remora_op_allowed(a.op, tb))
        return remora_err(MPI_ERR_OP, "the operation is not defined on this datatype");
    a.kernel = remora_reduce_kernel(a.op, tb);
    if ((rc = remora_rma_target(w, target, tdisp, a.tt, tcount, &a.t)) != MPI_SUCCESS || bytes == 0)
        return rc;

    size_t nelem = (size_t)(bytes / tb->size);
    char *otmp = NULL, *rtmp = NULL;
    if (ot && !(a.origin = element_array(&a, oaddr, ocount, ot, nelem, 1, &otmp)))
        return remora_err(MPI_ERR_NO_MEM, "%zu elements", nelem);
    if (rt && !(a.result = element_array(&a, raddr, rcount, rt, nelem, 0, &rtmp))) {
        free(otmp);
        return remora_err(MPI_ERR_NO_MEM, "%zu elements", nelem);
    }
    rc = apply(&a);
    if (rc == MPI_SUCCESS && rtmp)
        convey(&a, raddr, rcount, rt, rtmp, 1);
    free(otmp);
    free(rtmp);
    return rc;
}

int remora_fetch_and_op(struct remora_win *w, const void *oaddr, void *raddr, MPI_Datatype type, int target,
                        MPI_Aint tdisp, MPI_Op op)
{
    if (!remora_type_lookup(&remora_core.types, type))
        return remora_err(MPI_ERR_TYPE, "MPI_Fetch_and_op needs a predefined datatype");
    return remora_accumulate(w, oaddr, 1, type, raddr, 1, type, target, tdisp, 1, type, op);
}

int remora_compare_and_swap(struct remora_win *w, const void *oaddr, const void *caddr, void *raddr,
                            MPI_Datatype type, int target, MPI_Aint tdisp)
{
    const struct remora_type_entry *e = remora_type_lookup(&remora_core.types, type);
    if (!e || (e->tclass != REMORA_TC_INT && e->tclass != REMORA_TC_LOGICAL && e->tclass != REMORA_TC_BYTE))
        return remora_err(MPI_ERR_TYPE, "MPI_Compare_and_swap needs an integer, logical or byte type");
    if (target == MPI_PROC_NULL)
        return MPI_SUCCESS;
    int rc = remora_check_target(w, target);
    const struct remora_dt *dt;
    struct remora_target t;
    if (rc == MPI_SUCCESS && (rc = remora_dt_get(type, &dt)) == MPI_SUCCESS)
        rc = remora_rma_target(w, target, tdisp, dt, 1, &t);
    if (rc != MPI_SUCCESS)
        return rc;
    int st;
    if (atomic_mode(&t, t.off, e->size)) {
        uint64_t old;
        st = elem_amo(t.amo, t.off, e->size, REMORA_AMO_CSWAP, load_elem(oaddr, e->size), load_elem(caddr, e->size),
                      &old);
        if (st == REMORA_OK)
            store_elem(raddr, e->size, old);
        return remora_status_err(st, "compare-and-swap at target %d", target);
    }
    unsigned char cur[16];
    if ((st = acc_lock(w, target)) != REMORA_OK)
        return remora_status_err(st, "compare-and-swap at target %d", target);
    st = remora_get(t.data, t.off, cur, e->size);
    if (st == REMORA_OK)
        st = remora_flush(t.data);
    if (st == REMORA_OK && memcmp(cur, caddr, e->size) == 0) {
        st = remora_put(t.data, t.off, oaddr, e->size);
        if (st == REMORA_OK)
            st = remora_flush(t.data);
    }
    int st2 = acc_unlock(w, target);
    if (st == REMORA_OK)
        memcpy(raddr, cur, e->size);
    return remora_status_err(st != REMORA_OK ? st : st2, "compare-and-swap at target %d", target);
}
