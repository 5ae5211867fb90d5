/* Accumulates carried out by the target memory's owner.
 *
 * Where the transport's atomics on some memory are all done by its owner's
 * CPU under one lock (remora_applies: UCX's software atomics over TCP), a
 * whole accumulate, fetch-and-op or compare-and-swap travels to the owner as
 * one call (remora_apply) and the owner applies it under that lock: atomic as
 * a whole with every other accumulate and atomic on that memory, with no
 * stripe locks and no round trip per element.  A non-fetching call completes
 * at the next flush (the transport gathers it with the puts and gets toward
 * that target); a fetching one when its reply is here.  A call on a dynamic
 * window that crosses regions is one call per region, each atomic. */
#include <stdlib.h>
#include <string.h>

#include "core/acc_call.h"

/* What the owner needs to apply a piece: REMORA_APPLY_HEAD bytes. */
struct owner_head {
    uint8_t op;       /* enum remora_op */
    uint8_t pad;
    uint16_t type_id; /* the basic type, as the reduction kernels number it */
    uint32_t esz;     /* bytes of one element in memory */
    uint64_t unused;
};

_Static_assert(sizeof(struct owner_head) == REMORA_APPLY_HEAD, "the call's head has the transport's size");

/* Room for one element of any predefined type, aligned for all of them. */
union elem {
    long double align;
    unsigned char b[64];
};

/* mem op= operand over the whole elements of count pieces of len bytes
 * (mem + i * stride, operand + i * len); with compare elements, a
 * compare-and-swap.  A piece of an element with holes ends with its data. */
static void owner_apply(const void *head, char *mem, int64_t stride, const char *operand, const char *compare,
                        size_t len, uint32_t count)
{
    struct owner_head h;
    memcpy(&h, head, sizeof h);
    remora_reduce_strided_fn kernel = NULL;
    if (h.op != REMORA_OP_REPLACE && h.op != REMORA_OP_NO_OP && !compare &&
        !(kernel = remora_reduce_strided_kernel_by_id((enum remora_op)h.op, h.type_id)))
        return;
    int holes = len % h.esz != 0 && h.esz <= sizeof(union elem); /* one element, its data only */
    if (kernel && operand && !holes) { /* in place, the blocks one after the other (a run on one word: stride 0) */
        kernel(mem, stride, operand, count, len / h.esz);
        return;
    }
    for (uint32_t i = 0; i < count; i++, mem += stride) {
        const char *o = operand ? operand + (size_t)i * len : NULL;
        if (compare) {
            if (memcmp(mem, compare + (size_t)i * len, len) == 0)
                memcpy(mem, o, len);
        } else if (h.op == REMORA_OP_REPLACE) {
            memcpy(mem, o, len);
        } else if (kernel && o) {
            /* the kernel takes whole elements, padding included: in aligned copies,
             * so that it reads and writes no byte beyond the piece */
            union elem t, x;
            memcpy(t.b, mem, len);
            memcpy(x.b, o, len);
            kernel(t.b, 0, x.b, 1, 1);
            memcpy(mem, t.b, len);
        }
    }
}

void remora_acc_owner_register(void) { remora_apply_register(owner_apply); }

/* Every span's owner carries calls out, and no piece crosses from one span
 * into the next (a call on a dynamic window across regions attached back to
 * back goes the general way). */
int remora_acc_owner_applies(const struct acc *a)
{
    const struct remora_span *s = remora_target_spans(&a->t);
    for (int i = 0; i < a->t.n; i++)
        if (!remora_applies(s[i].amo))
            return 0;
    for (size_t i = 0; a->t.n > 1 && i < a->np; i++)
        if (a->p[i].pos + a->p[i].len > remora_target_span_at(&a->t, a->p[i].pos)->hi)
            return 0;
    return a->t.n > 0 && a->type;
}

/* Pieces [first, end) of a, all in span s, as one call. */
static remora_status_t apply_span(const struct acc *a, const struct remora_span *s, size_t first, size_t end,
                      const struct owner_head *h)
{
    struct remora_apply_piece few[8], *v = end - first <= 8 ? few : malloc(sizeof *v * (end - first));
    if (!v)
        return REMORA_ERR_NO_MEM;
    for (size_t i = first; i < end; i++) {
        const struct piece *p = &a->p[i];
        v[i - first] = (struct remora_apply_piece){
            .off = p->pos - s->lo + s->at,
            .len = (size_t)p->len,
            .count = p->count,
            .stride = p->stride,
            .operand = a->origin ? a->origin + p->at : NULL,
            .compare = a->compare ? a->compare + p->at : NULL,
            .result = a->result ? a->result + p->at : NULL,
        };
    }
    remora_status_t st = remora_apply(s->amo, h, v, end - first);
    if (v != few)
        free(v);
    return st;
}

remora_status_t remora_acc_owner_run(const struct acc *a)
{
    struct owner_head h = {.op = (uint8_t)a->op, .type_id = a->type->id, .esz = (uint32_t)a->esz};
    remora_status_t st = REMORA_OK;
    for (size_t first = 0; first < a->np && remora_ok(st);) {
        const struct remora_span *s = remora_target_span_at(&a->t, a->p[first].pos);
        size_t end = first + 1;
        while (end < a->np && remora_target_span_at(&a->t, a->p[end].pos) == s)
            end++;
        st = apply_span(a, s, first, end, &h);
        first = end;
    }
    return st;
}
