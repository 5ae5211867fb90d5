/* Accumulates and atomics: the entry points and the choice of protocol (see
 * accumulate.h for the atomicity modes).  A call takes, in this order:
 *   the on-node fast paths   acc_fast.h (one CPU atomic, or a row under its
 *                            stripes while no lock-free call is known);
 *   the owner's protocol     acc_owner.c (memory whose atomics its owner's CPU
 *                            does under one lock: the whole call travels);
 *   one element's atomic     acc_elem.h (a lock-free call of one element);
 *   an image of one word     acc_image.c (a lock-free call in one word);
 *   under the stripes        acc_stripes.h, then plainly or word by word
 *                            (acc_plain.c) or on an image (acc_image.c).
 * The call's pieces and element arrays: acc_pieces.c. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "core/acc_call.h"
#include "core/acc_elem.h"
#include "core/acc_fast.h"
#include "core/acc_stripes.h"
#include "core/accumulate.h"
#include "core/datatype.h"
#include "core/engine.h"
#include "core/fop_fast.h"
#include "core/reduce.h"
#include "core/rma.h"
#include "core/status.h"

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
static remora_status_t run(struct acc *a)
{
    remora_status_t st = remora_acc_gather(a, a->t.n == 1 && a->type && remora_applies(a->t.few[0].amo));
    if (!remora_ok(st))
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
                st = remora_amo(s->amo, off, a->esz, REMORA_AMO_CSWAP, remora_elem_load(a->origin, a->esz),
                                remora_elem_load(a->compare, a->esz), &old);
                if (remora_ok(st))
                    remora_elem_store(a->result, a->esz, old);
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
    if (word && !remora_ok((st = lock_free_begin(a->w, a->target)))) {
        drop_pieces(a);
        return st;
    }
    if (word && a->np == 1 && a->p[0].len == a->esz && word == a->esz && word <= 8) {
        /* one element, one atomic */
        uint64_t off = a->lo - s->lo + s->at;
        if (a->compare) {
            uint64_t old;
            st = elem_amo(s->amo, off, word, REMORA_AMO_CSWAP, remora_elem_load(a->origin, word), remora_elem_load(a->compare, word),
                          &old);
            if (remora_ok(st))
                remora_elem_store(a->result, word, old);
        } else {
            st = update_elem(s->amo, off, word, a->op, a->kernel, a->integer, a->origin, a->result,
                             a->w->acc_ordered);
        }
    } else if (word) {
        st = remora_acc_run_image(a, word);
    } else {
        uint64_t mask = stripes_of(a->lo, a->hi);
        if (remora_ok((st = stripes_lock(a->w, a->target, mask)))) {
            uint64_t lock_free = lock_free_known(remora_rank_known(a->w, a->target));
            char *base = lock_free ? NULL : remora_acc_plain_base(a), *to;
            if (base)
                st = lock_free_read(a->w, a->target, &lock_free);
            if (remora_ok(st) && base && !lock_free)
                remora_acc_plain(a, base);
            else if (remora_ok(st) && (to = remora_acc_direct16_at(a)))
                remora_acc_direct16(a, to);
            else if (remora_ok(st))
                st = remora_acc_run_image(a, 16);
            remora_status_t st2 = stripes_unlock(a->w, a->target, mask);
            st = !remora_ok(st) ? st : st2;
        }
    }
    drop_pieces(a);
    return st;
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
        remora_acc_convey(a, (char *)buf, count, t, *tmp, 0);
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

int remora_accumulate(struct remora_win *w, const void *oaddr, MPI_Count ocount, MPI_Datatype otype,
                      const struct remora_acc_result *res, int target, MPI_Aint tdisp, MPI_Count tcount,
                      MPI_Datatype ttype, MPI_Op op)
{
    if (ocount == 1 && tcount == 1 && otype == ttype && !res &&
        remora_fast_fetch_and_op(w, oaddr, NULL, ttype, target, tdisp, op))
        return MPI_SUCCESS; /* one element, one CPU atomic (core/fop_fast.h) */
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
    a.integer = remora_type_integer(tb);
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
    remora_status_t st = run(&a);
    if (remora_ok(st) && rtmp)
        remora_acc_convey(&a, raddr, rcount, rt, rtmp, 1);
    free(otmp);
    free(rtmp);
    remora_target_release(&a.t);
    return remora_status_err(st, "accumulate at target %d", target);
}

int remora_fetch_and_op(struct remora_win *w, const void *oaddr, void *raddr, MPI_Datatype type, int target,
                        MPI_Aint tdisp, MPI_Op op)
{
    if (!raddr || (!oaddr && op != MPI_NO_OP)) /* the class MPICH gives */
        return remora_err(MPI_ERR_ARG, "MPI_Fetch_and_op: the %s buffer is NULL", raddr ? "origin" : "result");
    const struct remora_type_entry *e = remora_type_lookup(&remora_core.types, type);
    if (!e)
        return remora_err(MPI_ERR_TYPE, "MPI_Fetch_and_op needs a predefined datatype");
    remora_fop_hint(w, e);
    int opid = remora_op_of(op);
    if (opid >= 0 && raddr && atomic_fast(w, e, native_amo((enum remora_op)opid, remora_type_integer(e)),
                                          opid == REMORA_OP_NO_OP ? NULL : oaddr, NULL, raddr, target, tdisp) == 0)
        return MPI_SUCCESS;
    struct remora_acc_result res = {raddr, 1, type};
    return remora_accumulate(w, oaddr, 1, type, &res, target, tdisp, 1, type, op);
}

int remora_compare_and_swap(struct remora_win *w, const void *oaddr, const void *caddr, void *raddr,
                            MPI_Datatype type, int target, MPI_Aint tdisp)
{
    if (!oaddr || !caddr || !raddr)
        return remora_err(MPI_ERR_ARG, "MPI_Compare_and_swap: the %s buffer is NULL",
                          !oaddr ? "origin" : !caddr ? "compare" : "result");
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
    remora_status_t st = run(&a);
    remora_target_release(&a.t);
    return remora_status_err(st, "compare-and-swap at target %d", target);
}
