/* Reduction kernels, generated: one row of kernels per predefined type (from
 * REMORA_PREDEFINED_TYPES), the ops of its class filled in, NULL elsewhere. */
#include "core/predefined_types.h"
#include "core/reduce.h"

int remora_op_of(MPI_Op op)
{
    static const struct { MPI_Op op; enum remora_op id; } ops[] = {
        {MPI_SUM, REMORA_OP_SUM},         {MPI_PROD, REMORA_OP_PROD},     {MPI_MIN, REMORA_OP_MIN},
        {MPI_MAX, REMORA_OP_MAX},         {MPI_LAND, REMORA_OP_LAND},     {MPI_LOR, REMORA_OP_LOR},
        {MPI_LXOR, REMORA_OP_LXOR},       {MPI_BAND, REMORA_OP_BAND},     {MPI_BOR, REMORA_OP_BOR},
        {MPI_BXOR, REMORA_OP_BXOR},       {MPI_MAXLOC, REMORA_OP_MAXLOC}, {MPI_MINLOC, REMORA_OP_MINLOC},
        {MPI_REPLACE, REMORA_OP_REPLACE}, {MPI_NO_OP, REMORA_OP_NO_OP},
    };
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
        if (ops[i].op == op)
            return (int)ops[i].id;
    return -1;
}

/* One element-wise kernel: k_<OP>_<MPI type name>, and its strided form
 * ks_<OP>_<MPI type name> over `count` blocks of `per` elements whose starts
 * lie `step` bytes apart in inout (a vector reduced in place, without
 * gathering it first; in is contiguous).
 * The elements may lie at any address (a target's, or an image aligned as
 * the target): they are reached through a typedef of alignment 1.  `body`
 * updates a[i] from b[i]. */
#define KERNELS(opname, h, ct, body)                                                   \
    static void k_##opname##_##h(void *inout_, const void *in_, size_t n)              \
    {                                                                                  \
        typedef ct unaligned __attribute__((aligned(1)));                              \
        unaligned *a = inout_;                                                         \
        const unaligned *b = in_;                                                      \
        for (size_t i = 0; i < n; i++)                                                 \
            body                                                                       \
    }                                                                                  \
    static void ks_##opname##_##h(void *inout_, int64_t step, const void *in_, size_t count, size_t per) \
    {                                                                                  \
        typedef ct unaligned __attribute__((aligned(1)));                              \
        char *at = inout_;                                                             \
        const unaligned *b = in_;                                                      \
        /* blocks of 1 and 2 elements unrolled: a loop of unknown length costs \
         * 2-3x as much there */                                                       \
        if (per == 1)                                                                  \
            STRIDED_LOOP(body, 1)                                                      \
        else if (per == 2)                                                             \
            STRIDED_LOOP(body, 2)                                                      \
        else                                                                           \
            STRIDED_LOOP(body, per)                                                    \
    }

#define STRIDED_LOOP(body, per)                                                        \
    for (size_t k = 0; k < count; k++, at += step, b += (per)) {                       \
        unaligned *a = (unaligned *)at;                                                \
        for (size_t i = 0; i < (per); i++)                                             \
            body                                                                       \
    }

#define KERNEL(opname, h, ct, expr) KERNELS(opname, h, ct, { a[i] = (expr); })

#define LOC_KERNEL(opname, h, ct, better)                                              \
    KERNELS(opname, h, ct, {                                                           \
        if (b[i].v better a[i].v)                                                      \
            a[i] = b[i];                                                               \
        else if (b[i].v == a[i].v && b[i].i < a[i].i)                                  \
            a[i].i = b[i].i;                                                           \
    })

#define ARITH(h, ct)                                                                   \
    KERNEL(SUM, h, ct, a[i] + b[i])                                                    \
    KERNEL(PROD, h, ct, a[i] * b[i])
#define ORDER(h, ct)                                                                   \
    KERNEL(MIN, h, ct, b[i] < a[i] ? b[i] : a[i])                                      \
    KERNEL(MAX, h, ct, b[i] > a[i] ? b[i] : a[i])
#define LOGIC(h, ct)                                                                   \
    KERNEL(LAND, h, ct, (ct)(a[i] && b[i]))                                            \
    KERNEL(LOR, h, ct, (ct)(a[i] || b[i]))                                             \
    KERNEL(LXOR, h, ct, (ct)(!a[i] != !b[i]))
#define BITS(h, ct)                                                                    \
    KERNEL(BAND, h, ct, (ct)(a[i] & b[i]))                                             \
    KERNEL(BOR, h, ct, (ct)(a[i] | b[i]))                                              \
    KERNEL(BXOR, h, ct, (ct)(a[i] ^ b[i]))

/* Kernels by class. */
#define DEFINE_REMORA_TC_INT(h, ct) ARITH(h, ct) ORDER(h, ct) LOGIC(h, ct) BITS(h, ct)
#define DEFINE_REMORA_TC_FLOAT(h, ct) ARITH(h, ct) ORDER(h, ct)
#define DEFINE_REMORA_TC_COMPLEX(h, ct) ARITH(h, ct)
#define DEFINE_REMORA_TC_LOGICAL(h, ct) LOGIC(h, ct)
#define DEFINE_REMORA_TC_BYTE(h, ct) BITS(h, ct)
#define DEFINE_REMORA_TC_PAIR(h, ct) LOC_KERNEL(MAXLOC, h, ct, >) LOC_KERNEL(MINLOC, h, ct, <)
#define DEFINE_REMORA_TC_OTHER(h, ct)

/* A row of the table, in enum remora_op order (REPLACE and NO_OP are generic). */
#define ROW_REMORA_TC_INT(k, h) {k##SUM_##h, k##PROD_##h, k##MIN_##h, k##MAX_##h, k##LAND_##h, k##LOR_##h, \
                                 k##LXOR_##h, k##BAND_##h, k##BOR_##h, k##BXOR_##h, 0, 0}
#define ROW_REMORA_TC_FLOAT(k, h) {k##SUM_##h, k##PROD_##h, k##MIN_##h, k##MAX_##h, 0, 0, 0, 0, 0, 0, 0, 0}
#define ROW_REMORA_TC_COMPLEX(k, h) {k##SUM_##h, k##PROD_##h, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}
#define ROW_REMORA_TC_LOGICAL(k, h) {0, 0, 0, 0, k##LAND_##h, k##LOR_##h, k##LXOR_##h, 0, 0, 0, 0, 0}
#define ROW_REMORA_TC_BYTE(k, h) {0, 0, 0, 0, 0, 0, 0, k##BAND_##h, k##BOR_##h, k##BXOR_##h, 0, 0}
#define ROW_REMORA_TC_PAIR(k, h) {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, k##MAXLOC_##h, k##MINLOC_##h}
#define ROW_REMORA_TC_OTHER(k, h) {0}

#define DEFINE(id, h, ct, cl, sg) DEFINE_##cl(id, ct)
#define ROW(id, h, ct, cl, sg) ROW_##cl(k_, id),
#define STRIDED_ROW(id, h, ct, cl, sg) ROW_##cl(ks_, id),

REMORA_PREDEFINED_TYPES(DEFINE)

static const remora_reduce_fn kernels[REMORA_PREDEFINED_TYPE_COUNT][REMORA_OP_REPLACE] = {
    REMORA_PREDEFINED_TYPES(ROW)};
static const remora_reduce_strided_fn strided_kernels[REMORA_PREDEFINED_TYPE_COUNT][REMORA_OP_REPLACE] = {
    REMORA_PREDEFINED_TYPES(STRIDED_ROW)};

remora_reduce_fn remora_reduce_kernel(enum remora_op op, const struct remora_type_entry *type)
{
    if (!type || type->tclass == REMORA_TC_OTHER || type->tclass == REMORA_TC_NONE || op < 0 || op >= REMORA_OP_REPLACE)
        return 0;
    return kernels[type->id][op];
}

remora_reduce_fn remora_reduce_kernel_by_id(enum remora_op op, unsigned id)
{
    if (id >= REMORA_PREDEFINED_TYPE_COUNT || op < 0 || op >= REMORA_OP_REPLACE)
        return 0;
    return kernels[id][op];
}

remora_reduce_strided_fn remora_reduce_strided_kernel_by_id(enum remora_op op, unsigned id)
{
    if (id >= REMORA_PREDEFINED_TYPE_COUNT || op < 0 || op >= REMORA_OP_REPLACE)
        return 0;
    return strided_kernels[id][op];
}

int remora_op_allowed(enum remora_op op, const struct remora_type_entry *type)
{
    if (!type)
        return 0;
    return op == REMORA_OP_REPLACE || op == REMORA_OP_NO_OP || remora_reduce_kernel(op, type) != 0;
}
