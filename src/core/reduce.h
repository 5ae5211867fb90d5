/* The predefined reduction operations on the predefined types, as kernels
 *   inout[i] = inout[i] op in[i],  i < n
 * generated from the type table (predefined_types.h) and the op table below. */
#ifndef REMORA_CORE_REDUCE_H
#define REMORA_CORE_REDUCE_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "core/type_table.h"

enum remora_op {
    REMORA_OP_SUM, REMORA_OP_PROD, REMORA_OP_MIN, REMORA_OP_MAX,
    REMORA_OP_LAND, REMORA_OP_LOR, REMORA_OP_LXOR,
    REMORA_OP_BAND, REMORA_OP_BOR, REMORA_OP_BXOR,
    REMORA_OP_MAXLOC, REMORA_OP_MINLOC,
    REMORA_OP_REPLACE, REMORA_OP_NO_OP,
    REMORA_OP_COUNT
};

typedef void (*remora_reduce_fn)(void *inout, const void *in, size_t n);
/* The same on count blocks of per elements, their starts step bytes apart in
 * inout (in: contiguous, count * per elements). */
typedef void (*remora_reduce_strided_fn)(void *inout, int64_t step, const void *in, size_t count, size_t per);

/* enum remora_op of a predefined MPI_Op, or -1 (user-defined or invalid). */
int remora_op_of(MPI_Op op);

/* The kernel for (op, predefined type), or NULL when the standard does not
 * allow op on that type, and for REPLACE and NO_OP, which need none (they copy
 * or leave whole elements). */
remora_reduce_fn remora_reduce_kernel(enum remora_op op, const struct remora_type_entry *type);
/* The kernel for op on the type whose remora_type_entry.id is id (the same
 * in every process of a job), or NULL. */
remora_reduce_fn remora_reduce_kernel_by_id(enum remora_op op, unsigned id);
/* Its strided form, or NULL. */
remora_reduce_strided_fn remora_reduce_strided_kernel_by_id(enum remora_op op, unsigned id);
/* Whether the standard allows op on the predefined type. */
int remora_op_allowed(enum remora_op op, const struct remora_type_entry *type);

#endif
