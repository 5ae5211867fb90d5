/* An accumulate call as the protocols see it: its operands packed into
 * element arrays and the target bytes it touches as pieces (accumulate.c
 * gathers them; acc_owner.c and accumulate.c's own protocols carry the call
 * out). */
#ifndef REMORA_CORE_ACC_CALL_H
#define REMORA_CORE_ACC_CALL_H

#include <stddef.h>
#include <stdint.h>

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

/* The call carried out by the memory's owner, where the target's memory is
 * in one atomicity domain with the owner's CPU (remora_applies): acc_owner.c.
 * Pieces gathered. */
int remora_acc_owner_applies(const struct acc *a);
int remora_acc_owner_run(const struct acc *a);
/* What the owner runs for each piece (registered with the transport). */
void remora_acc_owner_register(void);

#endif
