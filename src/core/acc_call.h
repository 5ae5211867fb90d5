/* An accumulate call as the protocols see it: its operands packed into
 * element arrays and the target bytes it touches as pieces (acc_pieces.c
 * gathers them), and the protocols that carry it out, one file each (the
 * dispatcher, accumulate.c, chooses).  Core-internal: only the accumulate
 * files include it; the front ends see accumulate.h. */
#ifndef REMORA_CORE_ACC_CALL_H
#define REMORA_CORE_ACC_CALL_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "core/datatype.h"
#include "core/reduce.h"
#include "core/rma.h"

/* Bytes [pos, pos + len) of the target (a position: see struct remora_span),
 * whole elements, that take the elements at byte `at` of the packed origin,
 * compare and result arrays; with count > 1, a run: count such blocks, the
 * i-th at pos + i * stride taking the elements at at + i * len (only where
 * the owner carries the call out: acc_owner.c). */
struct piece {
    uint64_t pos, len;
    size_t at;
    uint32_t count;
    int64_t stride;
};

struct acc {
    struct remora_win *w;
    int target;
    struct remora_target t;     /* the target as this operation reaches it */
    enum remora_op op;
    remora_reduce_fn kernel;
    const struct remora_dt *bt; /* the basic type's own layout                          */
    const struct remora_type_entry *type; /* the basic type (kernels by id)            */
    size_t esz;                 /* bytes of one element in memory (its extent)           */
    int holes;                  /* elements have padding (MPI_DOUBLE_INT, ...): walk them
                                   one by one instead of as byte runs                    */
    int integer;                /* the basic type is an integer (native atomic add)      */
    const char *origin;       /* origin elements, packed in typemap order (NULL for NO_OP) */
    const char *compare;      /* MPI_Compare_and_swap: the compare element, else NULL      */
    char *result;             /* result elements, packed (NULL for MPI_Accumulate)         */
    const struct remora_dt *tt;
    MPI_Count tcount;
    struct piece *p, one;     /* the pieces in typemap order (p == &one for a single one)   */
    size_t np;
    uint64_t lo, hi;          /* the positions they touch                                   */
};

/* Every field but t, which remora_rma_target fills: zeroing the whole
 * struct (its spans) costs more than a small call's work. */
static inline void acc_init(struct acc *a, struct remora_win *w, int target, enum remora_op op, MPI_Count tcount)
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

static inline void drop_pieces(struct acc *a)
{
    if (a->p != &a->one)
        free(a->p);
    a->p = &a->one;
}

/* The address of the first position of the call's span when it has one, in
 * the atomicity domain, mapped here; else NULL. */
static inline char *mapped_span(const struct acc *a)
{
    const struct remora_span *s = &a->t.few[0];
    return a->t.n == 1 && s->atomic ? remora_mapped(s->amo, s->at) : NULL;
}

/* The call as pieces (a->p, a->np, a->lo, a->hi) of the target layout;
 * runs: where the owner carries the call out (pieces may be runs).
 * acc_pieces.c. */
remora_status_t remora_acc_gather(struct acc *a, int runs);
/* Elements of (buf, count, t) to or from (to_buf) the packed element array
 * `array`, in typemap order.  acc_pieces.c. */
void remora_acc_convey(const struct acc *a, char *buf, MPI_Count count, const struct remora_dt *t, char *array,
                       int to_buf);

/* The call on an image of its bytes, with units of at most `round` bytes:
 * acc_image.c. */
remora_status_t remora_acc_run_image(const struct acc *a, uint64_t round);

/* Under the stripes, straight to memory mapped here: acc_plain.c.  The
 * address of the call's span for the plain path, or NULL; the call plainly;
 * the target address for direct16, or NULL; the call word by word. */
char *remora_acc_plain_base(const struct acc *a);
void remora_acc_plain(const struct acc *a, char *base);
char *remora_acc_direct16_at(const struct acc *a);
void remora_acc_direct16(const struct acc *a, char *to);

/* The call carried out by the memory's owner, where the target's memory is
 * in one atomicity domain with the owner's CPU (remora_applies): acc_owner.c.
 * Pieces gathered. */
int remora_acc_owner_applies(const struct acc *a);
remora_status_t remora_acc_owner_run(const struct acc *a);
/* What the owner runs for each piece (registered with the transport). */
void remora_acc_owner_register(void);

#endif
