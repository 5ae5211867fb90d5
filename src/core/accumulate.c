/* Accumulates and atomics (see accumulate.h for the atomicity modes). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "core/accumulate.h"
#include "core/datatype.h"
#include "core/reduce.h"
#include "core/rma.h"
#include "core/spin.h"
#include "transport/dispatch.h"

/* ---- one element with CPU atomics ------------------------------------------ */

/* Apply op to the element at t (bits wide) with operand o; old value to r (if r).
 * Integer SUM and the bitwise ops are single instructions; everything else is a
 * CAS loop around the reduction kernel. */
#define DEFINE_ATOMIC_UPDATE(bits)                                                                    \
    static void atomic_update_##bits(void *t_, const void *o, void *r, enum remora_op op,             \
                                     remora_reduce_fn k, int integer)                                 \
    {                                                                                                 \
        uint##bits##_t *t = t_, old, val = 0;                                                         \
        if (o)                                                                                        \
            memcpy(&val, o, sizeof val);                                                              \
        if (op == REMORA_OP_NO_OP)                                                                    \
            old = __atomic_load_n(t, __ATOMIC_SEQ_CST);                                               \
        else if (op == REMORA_OP_REPLACE)                                                             \
            old = __atomic_exchange_n(t, val, __ATOMIC_SEQ_CST);                                      \
        else if (op == REMORA_OP_SUM && integer)                                                      \
            old = __atomic_fetch_add(t, val, __ATOMIC_SEQ_CST);                                       \
        else if (op == REMORA_OP_BAND)                                                                \
            old = __atomic_fetch_and(t, val, __ATOMIC_SEQ_CST);                                       \
        else if (op == REMORA_OP_BOR)                                                                 \
            old = __atomic_fetch_or(t, val, __ATOMIC_SEQ_CST);                                        \
        else if (op == REMORA_OP_BXOR)                                                                \
            old = __atomic_fetch_xor(t, val, __ATOMIC_SEQ_CST);                                       \
        else {                                                                                        \
            union { uint##bits##_t u; long double align; unsigned char b[sizeof(uint##bits##_t)]; } nv; \
            old = __atomic_load_n(t, __ATOMIC_RELAXED);                                               \
            do {                                                                                      \
                nv.u = old;                                                                           \
                k(nv.b, &val, 1);                                                                     \
            } while (!__atomic_compare_exchange_n(t, &old, nv.u, 0, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)); \
        }                                                                                             \
        if (r)                                                                                        \
            memcpy(r, &old, sizeof old);                                                              \
    }

/* Compare the element at t with *c, store *o there if equal; old value to r. */
#define DEFINE_ATOMIC_CAS(bits)                                                                       \
    static void atomic_cas_##bits(void *t, const void *o, const void *c, void *r)                     \
    {                                                                                                 \
        uint##bits##_t desired, old;                                                                  \
        memcpy(&desired, o, sizeof desired);                                                          \
        memcpy(&old, c, sizeof old);                                                                  \
        __atomic_compare_exchange_n((uint##bits##_t *)t, &old, desired, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); \
        memcpy(r, &old, sizeof old);                                                                  \
    }

#define DEFINE_ATOMICS(bits) DEFINE_ATOMIC_UPDATE(bits) DEFINE_ATOMIC_CAS(bits)
DEFINE_ATOMICS(8)
DEFINE_ATOMICS(16)
DEFINE_ATOMICS(32)
DEFINE_ATOMICS(64)

typedef void (*atomic_update_fn)(void *, const void *, void *, enum remora_op, remora_reduce_fn, int);
typedef void (*atomic_cas_fn)(void *, const void *, const void *, void *);

static const struct atomics { atomic_update_fn update; atomic_cas_fn cas; } *atomics_for(size_t size)
{
    static const struct atomics by_size[] = {
        {atomic_update_8, atomic_cas_8}, {atomic_update_16, atomic_cas_16},
        {atomic_update_32, atomic_cas_32}, {atomic_update_64, atomic_cas_64}};
    switch (size) {
    case 1: return &by_size[0];
    case 2: return &by_size[1];
    case 4: return &by_size[2];
    case 8: return &by_size[3];
    default: return NULL;
    }
}

/* The CPU atomics that may update the element at addr of peer p, or NULL (locked mode). */
static const struct atomics *atomic_mode(const struct remora_win *w, const struct remora_peer *p, const char *addr,
                                         size_t esz)
{
    if (w->amo_domain != REMORA_PEER_MAPPED || p->kind != REMORA_PEER_MAPPED || p->acc_locked || (uintptr_t)addr % esz)
        return NULL;
    return atomics_for(esz);
}

/* In the network domain: the network atomic doing op on an element, or -1
 * (locked mode).  Networks do 4- and 8-byte add, and, or, xor, swap, cswap. */
static int net_atomic(const struct remora_win *w, enum remora_op op, const struct remora_type_entry *b,
                      const char *addr, size_t esz)
{
    if (w->amo_domain != REMORA_PEER_UCX || (esz != 4 && esz != 8) || (uintptr_t)addr % esz)
        return -1;
    int integer = b->tclass == REMORA_TC_INT;
    switch (op) {
    case REMORA_OP_SUM: return integer ? REMORA_AMO_FADD : -1;
    case REMORA_OP_BAND: return integer ? REMORA_AMO_AND : -1;
    case REMORA_OP_BOR: return integer ? REMORA_AMO_OR : -1;
    case REMORA_OP_BXOR: return integer ? REMORA_AMO_XOR : -1;
    case REMORA_OP_REPLACE: return REMORA_AMO_SWAP;
    case REMORA_OP_NO_OP: return REMORA_AMO_LOAD;
    default: return -1;
    }
}

/* ---- the accumulate lock ----------------------------------------------------- */

static void acc_lock(struct remora_win *w, int target)
{
    struct remora_wait wt;
    remora_wait_init(&wt);
    while (remora_tp_amo(w->amo_domain, &w->peers[target], REMORA_CTRL_ACC_LOCK, REMORA_AMO_CSWAP, 1, 0) != 0)
        remora_backoff(&wt, w->amo_domain);
    atomic_thread_fence(memory_order_acquire);
}

static void acc_unlock(struct remora_win *w, int target)
{
    atomic_thread_fence(memory_order_release);
    remora_tp_amo(w->amo_domain, &w->peers[target], REMORA_CTRL_ACC_LOCK, REMORA_AMO_SWAP, 0, 0);
}

/* ---- the general case ---------------------------------------------------------- */

struct acc {
    struct remora_win *w;
    int target;
    struct remora_peer peer;   /* the target as this operation reaches it */
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
    uint64_t target_off;
};

/* t = t op o over len bytes of whole elements (under the accumulate lock). */
static void combine(const struct acc *a, char *t, const char *o, size_t len)
{
    if (a->op == REMORA_OP_REPLACE)
        memcpy(t, o, len);
    else if (a->op != REMORA_OP_NO_OP)
        a->kernel(t, o, len / a->esz);
}

static int locked_piece(const struct acc *a, uint64_t off, const char *o, char *r, size_t len)
{
    const struct remora_peer *p = &a->peer;
    if (p->kind == REMORA_PEER_MAPPED) {
        char *t = remora_addr(p, off);
        if (r)
            memcpy(r, t, len);
        combine(a, t, o, len);
        return 0;
    }
    /* read, modify, write; network transfers complete at a flush, which must
     * come before the data is used and before the lock is released */
    char *tmp = malloc(len);
    if (!tmp)
        return ENOMEM;
    int err = remora_tp_get(p, off, tmp, len);
    if (!err && p->kind == REMORA_PEER_UCX)
        err = remora_tp_flush(a->w->amo_domain, p);
    if (!err) {
        if (r)
            memcpy(r, tmp, len);
        if (a->op != REMORA_OP_NO_OP) {
            combine(a, tmp, o, len);
            err = remora_tp_put(p, off, tmp, len);
            if (!err && p->kind == REMORA_PEER_UCX)
                err = remora_tp_flush(a->w->amo_domain, p);
        }
    }
    free(tmp);
    return err;
}

/* A piece with network atomics, element by element.  They are waited for when
 * a result is wanted or accumulate_ordering asks for order; otherwise they
 * complete at the next flush. */
static int net_piece(const struct acc *a, uint64_t off, const char *o, char *r, size_t len, int amo)
{
    int wait = r || a->w->acc_ordered;
    for (size_t i = 0; i < len; i += a->esz) {
        uint64_t operand = 0, old = 0;
        if (o)
            memcpy(&operand, o + i, a->esz);
        int err = remora_ucx_amo_data(&a->peer, off + i, (enum remora_amo_op)amo, a->esz, operand, 0,
                                      wait ? &old : NULL);
        if (err)
            return err;
        if (r)
            memcpy(r + i, &old, a->esz);
    }
    return 0;
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

/* Update one element of the target at off in its mode; *locked tells whether
 * we hold the accumulate lock (taken on first need). */
static int update(const struct acc *a, uint64_t off, const char *o, char *r, size_t len, int integer, int *locked)
{
    char *t = remora_addr(&a->peer, off);
    const struct atomics *atomic = atomic_mode(a->w, &a->peer, t, a->esz);
    int amo = net_atomic(a->w, a->op, a->basic, t, a->esz);
    if (atomic) {
        for (size_t i = 0; i < len; i += a->esz)
            atomic->update(t + i, o ? o + i : NULL, r ? r + i : NULL, a->op, a->kernel, integer);
        return 0;
    }
    if (amo >= 0)
        return net_piece(a, off, o, r, len, amo);
    if (!(*locked)++)
        acc_lock(a->w, a->target);
    return locked_piece(a, off, o, r, len);
}

/* Walk the target layout, updating each run of whole elements in its mode. */
static int apply(const struct acc *a)
{
    int integer = a->basic->tclass == REMORA_TC_INT || a->basic->tclass == REMORA_TC_BYTE;
    int locked = 0, err = 0;
    if (a->holes) {
        struct elems e;
        elems_init(&e, a->tt, a->tcount, a->bt);
        MPI_Aint d;
        for (size_t k = 0; !err && elems_next(&e, &d); k++)
            err = update(a, a->target_off + (uint64_t)d, a->origin ? a->origin + k * a->esz : NULL,
                         a->result ? a->result + k * a->esz : NULL, a->esz, integer, &locked);
    } else {
        struct remora_dt_cursor c;
        remora_dt_cursor_init(&c, a->tt, a->tcount);
        MPI_Aint d, len;
        size_t pos = 0;
        while (!err && (len = remora_dt_cursor_next(&c, LONG_MAX, &d)) > 0) {
            err = update(a, a->target_off + (uint64_t)d, a->origin ? a->origin + pos : NULL,
                         a->result ? a->result + pos : NULL, (size_t)len, integer, &locked);
            pos += (size_t)len;
        }
    }
    if (locked)
        acc_unlock(a->w, a->target);
    return err ? remora_err(MPI_ERR_OTHER, "accumulate at target %d failed (errno %d)", a->target, err) : MPI_SUCCESS;
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
    *e = t->basic == MPI_DATATYPE_NULL ? NULL : remora_type_lookup(&remora_ctx.types, t->basic);
    if (!*e)
        return remora_err(MPI_ERR_TYPE, "accumulate datatypes must be made of one predefined type");
    return MPI_SUCCESS;
}

/* The fast path: one predefined type of 1, 2, 4 or 8 bytes without holes on
 * every side, as many elements on each, to a mapped target in CPU-atomics
 * mode, inside an epoch, in range: the atomics straight away, no layouts.
 * Returns MPI_SUCCESS or an error class, or -1 for the general case. */
static int accumulate_fast(struct remora_win *w, const void *oaddr, MPI_Count ocount, MPI_Datatype otype,
                           void *raddr, MPI_Count rcount, MPI_Datatype rtype, int target, MPI_Aint tdisp,
                           MPI_Count tcount, MPI_Datatype ttype, enum remora_op op)
{
    if (tcount <= 0 || (op != REMORA_OP_NO_OP && (otype != ttype || ocount != tcount)) ||
        (raddr && (rtype != ttype || rcount != tcount)))
        return -1;
    const struct remora_type_entry *e = remora_type_lookup(&remora_ctx.types, ttype);
    char *t;
    if (!e || e->size != e->extent || !remora_fast_span(w, (uint64_t)tcount * e->size, target, tdisp, &t))
        return -1;
    const struct atomics *atomic = atomic_mode(w, &w->peers[target], t, e->size);
    if (!atomic)
        return -1;
    if (!remora_op_allowed(op, e))
        return remora_err(MPI_ERR_OP, "the operation is not defined on this datatype");
    remora_reduce_fn kernel = remora_reduce_kernel(op, e);
    int integer = e->tclass == REMORA_TC_INT || e->tclass == REMORA_TC_BYTE;
    const char *o = op == REMORA_OP_NO_OP ? NULL : oaddr;
    char *r = raddr;
    for (MPI_Count i = 0; i < tcount; i++)
        atomic->update(t + i * e->size, o ? o + i * e->size : NULL, r ? r + i * e->size : NULL, op, kernel, integer);
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
    if ((rc = remora_rma_target(w, target, tdisp, a.tt, tcount, &a.peer, &a.target_off)) != MPI_SUCCESS || bytes == 0)
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
    if (!remora_type_lookup(&remora_ctx.types, type))
        return remora_err(MPI_ERR_TYPE, "MPI_Fetch_and_op needs a predefined datatype");
    return remora_accumulate(w, oaddr, 1, type, raddr, 1, type, target, tdisp, 1, type, op);
}

int remora_compare_and_swap(struct remora_win *w, const void *oaddr, const void *caddr, void *raddr,
                            MPI_Datatype type, int target, MPI_Aint tdisp)
{
    const struct remora_type_entry *e = remora_type_lookup(&remora_ctx.types, type);
    if (!e || (e->tclass != REMORA_TC_INT && e->tclass != REMORA_TC_LOGICAL && e->tclass != REMORA_TC_BYTE))
        return remora_err(MPI_ERR_TYPE, "MPI_Compare_and_swap needs an integer, logical or byte type");
    if (target == MPI_PROC_NULL)
        return MPI_SUCCESS;
    int rc = remora_check_target(w, target);
    const struct remora_dt *t;
    uint64_t off;
    struct remora_peer view;
    if (rc == MPI_SUCCESS && (rc = remora_dt_get(type, &t)) == MPI_SUCCESS)
        rc = remora_rma_target(w, target, tdisp, t, 1, &view, &off);
    if (rc != MPI_SUCCESS)
        return rc;
    const struct remora_peer *p = &view;
    const struct atomics *atomic = atomic_mode(w, p, remora_addr(p, off), e->size);
    if (atomic) {
        atomic->cas(remora_addr(p, off), oaddr, caddr, raddr);
        return MPI_SUCCESS;
    }
    if (net_atomic(w, REMORA_OP_REPLACE, e, remora_addr(p, off), e->size) >= 0) {
        uint64_t desired = 0, expected = 0, old = 0;
        memcpy(&desired, oaddr, e->size);
        memcpy(&expected, caddr, e->size);
        if (remora_ucx_amo_data(p, off, REMORA_AMO_CSWAP, e->size, desired, expected, &old) != 0)
            return remora_err(MPI_ERR_OTHER, "compare-and-swap at target %d failed", target);
        memcpy(raddr, &old, e->size);
        return MPI_SUCCESS;
    }
    unsigned char cur[16];
    acc_lock(w, target);
    int err = remora_tp_get(p, off, cur, e->size);
    if (!err && p->kind == REMORA_PEER_UCX)
        err = remora_tp_flush(w->amo_domain, p);
    if (!err && memcmp(cur, caddr, e->size) == 0) {
        err = remora_tp_put(p, off, oaddr, e->size);
        if (!err && p->kind == REMORA_PEER_UCX)
            err = remora_tp_flush(w->amo_domain, p);
    }
    acc_unlock(w, target);
    if (err)
        return remora_err(MPI_ERR_OTHER, "compare-and-swap at target %d failed (errno %d)", target, err);
    memcpy(raddr, cur, e->size);
    return MPI_SUCCESS;
}
