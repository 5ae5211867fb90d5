/* Put and get, the general case: any datatypes on either side, any target
 * memory (through the transport's vectored transfers), and every error the
 * standard names.  The fast path is in rma.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "core/datatype.h"
#include "core/dynamic.h"
#include "core/rma.h"
#include "core/engine.h"
#include "core/status.h"
#include "core/sync.h"

#define IOV_BATCH 256

/* One operation, checked and ready to move. */
struct rma_op {
    struct remora_target t;           /* the target as this operation reaches it */
    char *origin;                     /* origin buffer address                  */
    const struct remora_dt *ot, *tt;  /* layouts                                 */
    MPI_Count ocount, tcount;
    MPI_Aint bytes;
};

/* Range of bytes `count` elements of layout t cover, relative to the buffer. */
static int covered(const struct remora_dt *t, MPI_Count count, __int128 *lo, __int128 *hi)
{
    if (count == 0 || t->size == 0) {
        *lo = *hi = 0;
        return 0;
    }
    __int128 last = (__int128)(count - 1) * t->extent;
    *lo = t->true_lb + (last < 0 ? last : 0);
    *hi = t->true_lb + t->true_extent + (last > 0 ? last : 0);
    return 1;
}

remora_status_t remora_target_add(struct remora_target *t, const struct remora_span *s)
{
    if (t->n < REMORA_TARGET_SPANS) {
        t->few[t->n++] = *s;
        return REMORA_OK;
    }
    if (t->n == REMORA_TARGET_SPANS || !(t->n & (t->n - 1))) { /* grow at powers of two */
        struct remora_span *m = realloc(t->n == REMORA_TARGET_SPANS ? NULL : t->many, sizeof *m * (size_t)t->n * 2);
        if (!m)
            return REMORA_ERR_NO_MEM;
        if (t->n == REMORA_TARGET_SPANS)
            memcpy(m, t->few, sizeof t->few);
        t->many = m;
    }
    t->many[t->n++] = *s;
    return REMORA_OK;
}

void remora_target_release(struct remora_target *t)
{
    if (t->n > REMORA_TARGET_SPANS)
        free(t->many);
    t->n = 0;
}

int remora_rma_target(struct remora_win *w, int target, MPI_Aint tdisp, const struct remora_dt *tt, MPI_Count tcount,
                      struct remora_target *t)
{
    struct remora_rank_state *s = remora_rank(w, target);
    t->n = 0;
    if (!s)
        return remora_err(MPI_ERR_NO_MEM, "reaching target %d", target);
    const struct remora_peer *p = &s->peer;
    if (!remora_epoch_allows(w, p)) {
        if (!(atomic_load_explicit(&w->access_all, memory_order_relaxed) & REMORA_ALL_LOCK_ALL_NODE))
            return remora_err(MPI_ERR_RMA_SYNC, "no access epoch is open toward target %d", target);
        remora_lock_all_reach(w, s);
    }
    __int128 lo, hi, base = (__int128)tdisp * p->disp_unit;
    t->off = (uint64_t)base;
    if (w->flavor != MPI_WIN_FLAVOR_DYNAMIC && base < 0)
        return remora_err(MPI_ERR_RMA_RANGE, "negative displacement %lld at target %d", (long long)tdisp, target);
    if (!covered(tt, tcount, &lo, &hi)) /* no byte is accessed: no range to check */
        return MPI_SUCCESS;
    if (w->flavor == MPI_WIN_FLAVOR_DYNAMIC) /* displacements are addresses */
        return remora_dyn_resolve(w, target, (uint64_t)(base + lo), (uint64_t)(hi - lo), t);
    if (base + lo < 0 || base + hi > (__int128)p->size)
        return remora_err(MPI_ERR_RMA_RANGE, "bytes [%lld, %lld) of target %d are outside its window (%llu bytes)",
                          (long long)(base + lo), (long long)(base + hi), target, (unsigned long long)p->size);
    struct remora_span span = {0, p->size, &s->reach.data, &s->reach.amo, 0, p->acc_atomic};
    remora_target_add(t, &span);
    return MPI_SUCCESS;
}

int remora_rma_counts(MPI_Count ocount, MPI_Count tcount)
{
    if (ocount < 0 || tcount < 0)
        return remora_err(MPI_ERR_COUNT, "negative count (origin %lld, target %lld)", (long long)ocount,
                          (long long)tcount);
    return MPI_SUCCESS;
}

/* Everything the standard requires of a put's or get's arguments.  Returns
 * MPI_SUCCESS with op filled, -1 for "nothing to do" (MPI_PROC_NULL, no data),
 * or an error class. */
static int check(struct remora_win *w, void *oaddr, MPI_Count ocount, MPI_Datatype otype, int target,
                 MPI_Aint tdisp, MPI_Count tcount, MPI_Datatype ttype, struct rma_op *op)
{
    if (target == MPI_PROC_NULL)
        return -1;
    int rc = remora_check_target(w, target);
    if (rc == MPI_SUCCESS)
        rc = remora_rma_counts(ocount, tcount);
    if (rc != MPI_SUCCESS)
        return rc;
    if ((rc = remora_dt_get(otype, &op->ot)) != MPI_SUCCESS || (rc = remora_dt_get(ttype, &op->tt)) != MPI_SUCCESS)
        return remora_err(rc, "invalid datatype");
    __int128 obytes = (__int128)ocount * op->ot->size, tbytes = (__int128)tcount * op->tt->size;
    if (obytes != tbytes)
        return remora_err(MPI_ERR_TYPE, "origin holds %lld bytes, target %lld", (long long)obytes, (long long)tbytes);
    if ((rc = remora_rma_target(w, target, tdisp, op->tt, tcount, &op->t)) != MPI_SUCCESS)
        return rc;
    if (obytes == 0) {
        remora_target_release(&op->t);
        return -1;
    }
    op->origin = oaddr;
    op->ocount = ocount;
    op->tcount = tcount;
    op->bytes = (MPI_Aint)obytes;
    return MPI_SUCCESS;
}

/* Moving the pieces: collected into batches of vectored transfers, one
 * batch per span (a piece crossing spans is split). */
struct mover {
    const struct rma_op *op;
    int put;
    const struct remora_span *span; /* of the batch */
    size_t nv;
    struct remora_iov v[IOV_BATCH];
};

static remora_status_t drain(struct mover *m)
{
    remora_status_t st = REMORA_OK;
    if (m->nv)
        st = m->put ? remora_putv(m->span->data, m->v, m->nv) : remora_getv(m->span->data, m->v, m->nv);
    m->nv = 0;
    return st;
}

/* The datatype walks' callbacks (move_piece, move_run) and move_runs
 * return the status's code (an int: the walks stop at the first nonzero). */
static int move_piece(MPI_Aint odisp, MPI_Aint tdisp, MPI_Aint len, void *arg)
{
    struct mover *m = arg;
    uint64_t pos = m->op->t.off + (uint64_t)tdisp;
    while (len > 0) {
        const struct remora_span *s = remora_target_span_at(&m->op->t, pos);
        if (s != m->span || m->nv == IOV_BATCH) {
            remora_status_t st = drain(m);
            if (!remora_ok(st))
                return st.code;
            m->span = s;
        }
        MPI_Aint take = s->hi - pos < (uint64_t)len ? (MPI_Aint)(s->hi - pos) : len;
        m->v[m->nv++] = (struct remora_iov){remora_buf_at(m->op->origin, odisp), pos - s->lo + s->at, (size_t)take};
        odisp += take;
        pos += (uint64_t)take;
        len -= take;
    }
    return REMORA_S_OK;
}

/* n blocks of len bytes, block i between local + i * lstride and target
 * byte at + i * rstride of the mover's span: one strided transfer where the
 * transport has them, else the blocks straight into batches. */
static remora_status_t move_strided(struct mover *m, char *local, MPI_Aint lstride, uint64_t at, MPI_Aint rstride, MPI_Aint len,
                        MPI_Aint n)
{
    remora_status_t st = remora_move_strided(m->span->data, &(struct remora_strided){local, lstride, at, rstride, (size_t)len,
                                                                        (size_t)n}, m->put);
    if (!remora_status_is(st, REMORA_S_UNSUPPORTED))
        return st;
    for (MPI_Aint i = 0; i < n; i++) {
        if (m->nv == IOV_BATCH && !remora_ok((st = drain(m))))
            return st;
        m->v[m->nv++] = (struct remora_iov){local + i * lstride, at + (uint64_t)(i * rstride), (size_t)len};
    }
    return REMORA_OK; /* the last batch: move() drains it */
}

/* One side a regular run (struct remora_dt_run), the other side's blocks of
 * the same length walked in its own runs. */
struct runs {
    struct mover *m;
    struct remora_dt_run other; /* the side that is one run */
    MPI_Aint len;
    int target_walked;          /* the target's runs are walked, else the origin's */
};

static uint64_t span_at(const struct mover *m, MPI_Aint tdisp)
{
    return m->op->t.off + (uint64_t)tdisp - m->span->lo + m->span->at;
}

static int move_run(const struct remora_dt_run *r, MPI_Aint index, void *arg)
{
    struct runs *x = arg;
    const struct remora_dt_run *o = x->target_walked ? &x->other : r, *t = x->target_walked ? r : &x->other;
    MPI_Aint oi = x->target_walked ? index : 0, ti = x->target_walked ? 0 : index;
    return move_strided(x->m, remora_buf_at(x->m->op->origin, o->first + oi * o->stride), o->stride,
                        span_at(x->m, t->first + ti * t->stride), t->stride, x->len, r->n)
        .code;
}

/* Blocks of one length on both sides, in one span, without the pair walk (a
 * million 4-byte blocks: the walk was most of the time): both sides regular
 * runs, one strided transfer; one side a run and the other side's blocks in
 * runs of their own (a transpose: one per column).  -1: not such a layout. */
static int move_runs(struct mover *m)
{
    const struct rma_op *op = m->op;
    MPI_Aint len = (op->tt->contiguous ? op->ot : op->tt)->blocks[0].len;
    struct remora_dt_run o, t;
    if (op->t.n != 1 || len <= 0)
        return -1;
    int orun = remora_dt_as_run(op->ot, op->ocount, op->bytes, len, &o),
        trun = remora_dt_as_run(op->tt, op->tcount, op->bytes, len, &t);
    m->span = remora_target_spans(&op->t);
    if (orun && trun)
        return move_strided(m, remora_buf_at(op->origin, o.first), o.stride, span_at(m, t.first), t.stride, len, t.n)
            .code;
    struct runs x = {m, orun ? o : t, len, orun};
    if (orun) /* the target is not a run, so not contiguous */
        return remora_dt_runs(op->tt, op->tcount, len, move_run, &x);
    if (trun)
        return remora_dt_runs(op->ot, op->ocount, len, move_run, &x);
    return -1;
}

static int move(struct rma_op *op, int put)
{
    struct mover m = {.op = op, .put = put};
    int code;
    if (op->ot->contiguous && op->tt->contiguous)
        code = move_piece(op->ot->true_lb, op->tt->true_lb, op->bytes, &m);
    else if ((code = move_runs(&m)) < 0)
        code = remora_dt_pair_walk(op->ot, op->ocount, op->tt, op->tcount, move_piece, &m);
    remora_status_t st = remora_status_of_code(code);
    if (remora_ok(st))
        st = drain(&m);
    remora_target_release(&op->t);
    return remora_status_err(st, "%s target memory", put ? "writing" : "reading");
}

/* Point the fast path's hint at type, if it is predefined and without holes. */
static void hint_type(struct remora_win *w, MPI_Datatype type)
{
    const struct remora_type_entry *e = remora_type_lookup(&remora_core.types, type);
    if (e && e->size == e->extent && atomic_load_explicit(&w->type_hint, memory_order_relaxed) != e)
        atomic_store_explicit(&w->type_hint, e, memory_order_relaxed);
}

int remora_rma_put(struct remora_win *w, const void *oaddr, MPI_Count ocount, MPI_Datatype otype, int target,
               MPI_Aint tdisp, MPI_Count tcount, MPI_Datatype ttype)
{
    struct rma_op op;
    if (otype == ttype)
        hint_type(w, otype);
    int rc = check(w, (void *)oaddr, ocount, otype, target, tdisp, tcount, ttype, &op);
    return rc == MPI_SUCCESS ? move(&op, 1) : rc < 0 ? MPI_SUCCESS : rc;
}

int remora_rma_get(struct remora_win *w, void *oaddr, MPI_Count ocount, MPI_Datatype otype, int target, MPI_Aint tdisp,
               MPI_Count tcount, MPI_Datatype ttype)
{
    struct rma_op op;
    if (otype == ttype)
        hint_type(w, otype);
    int rc = check(w, oaddr, ocount, otype, target, tdisp, tcount, ttype, &op);
    return rc == MPI_SUCCESS ? move(&op, 0) : rc < 0 ? MPI_SUCCESS : rc;
}
