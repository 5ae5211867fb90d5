/* Team reductions (and, or, xor, max, min, sum, prod) and scans (sum_inscan,
 * sum_exscan) for every type of the spec's table, on every team shape of
 * coll_util.h, checked element by element against a reference computed here
 * from the values every member PE contributes; on every other shape with the
 * typed routine and separate arrays, on the others with the C11 generic
 * routine in place; integer sums, products and scans that overflow every
 * width must wrap. */
#include "coll_util.h"

#define NR 37
static void *src_buf, *dst_buf;


/* the reduction of element j over the team's PEs */
#define REFERENCE(T, OP, VAL, team, n, j, ref)                                                                    \
    do {                                                                                                           \
        ref = VAL(T, wpe(team, 0), j);                                                                             \
        for (int k_ = 1; k_ < (n); k_++)                                                                           \
            ref = (T)C_##OP(ref, VAL(T, wpe(team, k_), j));                                                        \
    } while (0)

/* alt: the C11 generic routine in place, else the typed one from source to dest */
#define DEFINE_REDUCE(N, T, OP, VAL)                                                                               \
    static void reduce_##N##_##OP(const struct shape *s, int alt)                                                  \
    {                                                                                                              \
        T *src = src_buf, *dst = dst_buf, ref;                                                                     \
        int me = shmem_my_pe(), n = shmem_team_n_pes(s->team);                                                     \
        for (int j = 0; j < NR; j++)                                                                               \
            src[j] = VAL(T, me, j), dst[j] = alt ? VAL(T, me, j) : (T)0;                                           \
        int rc = alt ? shmem_##OP##_reduce(s->team, dst, dst, NR) : shmem_##N##_##OP##_reduce(s->team, dst, src, NR); \
        EXPECT(rc == 0, "%s: shmem_" #N "_" #OP "_reduce (%s) failed", s->name, alt ? "generic, in place" : "typed"); \
        for (int j = 0; j < NR; j++) {                                                                             \
            REFERENCE(T, OP, VAL, s->team, n, j, ref);                                                             \
            EXPECT(dst[j] == ref && src[j] == VAL(T, me, j), "%s: shmem_" #N "_" #OP "_reduce (%s): element %d wrong", \
                   s->name, alt ? "generic, in place" : "typed", j);                                               \
        }                                                                                                          \
    }

/* inclusive: the team PEs 0..me; exclusive: 0..me-1 (PE 0: zeros) */
#define DEFINE_SCAN(N, T, VAL)                                                                                     \
    static void scan_##N(const struct shape *s, int alt)                                                           \
    {                                                                                                              \
        T *src = src_buf, *dst = dst_buf;                                                                          \
        int me = shmem_my_pe(), t = shmem_team_my_pe(s->team), rc;                                                 \
        for (int ex = 0; ex < 2; ex++) {                                                                           \
            for (int j = 0; j < NR; j++)                                                                           \
                src[j] = VAL(T, me, j), dst[j] = alt ? VAL(T, me, j) : (T)-1;                                      \
            if (alt)                                                                                               \
                rc = ex ? shmem_sum_exscan(s->team, dst, dst, NR) : shmem_sum_inscan(s->team, dst, dst, NR);       \
            else                                                                                                   \
                rc = ex ? shmem_##N##_sum_exscan(s->team, dst, src, NR) : shmem_##N##_sum_inscan(s->team, dst, src, NR); \
            EXPECT(rc == 0, "%s: shmem_" #N "_sum_%s (%s) failed", s->name, ex ? "exscan" : "inscan",             \
                   alt ? "generic, in place" : "typed");                                                           \
            for (int j = 0; j < NR; j++) {                                                                         \
                T ref = (T)0;                                                                                      \
                for (int k = 0; k < t + !ex; k++)                                                                  \
                    ref = (T)(ref + VAL(T, wpe(s->team, k), j));                                                   \
                EXPECT(dst[j] == ref, "%s: shmem_" #N "_sum_%s (%s): element %d wrong", s->name,                   \
                       ex ? "exscan" : "inscan", alt ? "generic, in place" : "typed", j);                          \
            }                                                                                                      \
        }                                                                                                          \
    }

/* Integer sums and products modulo 2^bits (C's unsigned arithmetic; the
 * engine's for signed types): values near the top of every width (0x7f...
 * truncated), which overflow from 2 PEs on; the reference works in unsigned
 * long long, whose arithmetic modulo 2^64 truncates to the same result. */
#define V_wrap(T, w, j) ((T)(0x7f7f7f7f7f7f7f7fULL - 2 * (unsigned)(w) - (unsigned)(j)))
#define DEFINE_WRAP(N, T)                                                                                          \
    static void wrap_##N(const struct shape *s)                                                                    \
    {                                                                                                              \
        T *src = src_buf, *dst = dst_buf;                                                                          \
        int me = shmem_my_pe(), n = shmem_team_n_pes(s->team), t = shmem_team_my_pe(s->team);                      \
        for (int op = 0; op < 3; op++) {                                                                           \
            for (int j = 0; j < NR; j++)                                                                           \
                src[j] = V_wrap(T, me, j), dst[j] = (T)0;                                                          \
            int rc = op == 0 ? shmem_##N##_sum_reduce(s->team, dst, src, NR)                                       \
                     : op == 1 ? shmem_##N##_prod_reduce(s->team, dst, src, NR)                                    \
                               : shmem_##N##_sum_inscan(s->team, dst, src, NR);                                    \
            EXPECT(rc == 0, "%s: shmem_" #N " %s (wrapping) failed", s->name, op == 1 ? "prod" : "sum");            \
            for (int j = 0; j < NR; j++) {                                                                         \
                unsigned long long ref = op == 1 ? 1 : 0;                                                          \
                for (int k = 0; k < (op == 2 ? t + 1 : n); k++) {                                                  \
                    unsigned long long v = (unsigned long long)V_wrap(T, wpe(s->team, k), j);                      \
                    ref = op == 1 ? ref * v : ref + v;                                                             \
                }                                                                                                  \
                EXPECT(dst[j] == (T)ref, "%s: shmem_" #N "_%s (wrapping): element %d wrong", s->name,              \
                       op == 0 ? "sum_reduce" : op == 1 ? "prod_reduce" : "sum_inscan", j);                        \
            }                                                                                                      \
        }                                                                                                          \
    }
INT_TYPES(DEFINE_WRAP)

#define DEF_BITWISE(N, T) DEFINE_REDUCE(N, T, and, V_and) DEFINE_REDUCE(N, T, or, V_or) DEFINE_REDUCE(N, T, xor, V_xor)
#define DEF_REAL(N, T)                                                                                             \
    DEFINE_REDUCE(N, T, max, V_max) DEFINE_REDUCE(N, T, min, V_min) DEFINE_REDUCE(N, T, sum, V_sum)               \
        DEFINE_REDUCE(N, T, prod, V_prod) DEFINE_SCAN(N, T, V_sum)
#define DEF_COMPLEX(N, T) DEFINE_REDUCE(N, T, sum, VC_sum) DEFINE_REDUCE(N, T, prod, VC_prod) DEFINE_SCAN(N, T, VC_sum)
BITWISE_TYPES(DEF_BITWISE)
RMA_TYPES(DEF_REAL)
COMPLEX_TYPES(DEF_COMPLEX)

#define RUN_BITWISE(N, T) reduce_##N##_and(s, alt), reduce_##N##_or(s, alt), reduce_##N##_xor(s, alt);
#define RUN_REAL(N, T)                                                                                             \
    reduce_##N##_max(s, alt), reduce_##N##_min(s, alt), reduce_##N##_sum(s, alt), reduce_##N##_prod(s, alt),      \
        scan_##N(s, alt);
#define RUN_WRAP(N, T) wrap_##N(s);
#define RUN_COMPLEX(N, T) reduce_##N##_sum(s, alt), reduce_##N##_prod(s, alt), scan_##N(s, alt);

int main(void)
{
    shmem_init();
    src_buf = shmem_malloc(NR * sizeof(long double _Complex));
    dst_buf = shmem_malloc(NR * sizeof(long double _Complex));
    struct shape shapes[MAX_SHAPES];
    int nshapes = make_shapes(shapes);
    for (int i = 0; i < nshapes; i++) {
        const struct shape *s = &shapes[i];
        /* both forms on every type, alternating over the shapes (WORLD: typed, SHARED: generic ...) */
        int alt = i % 2;
        if (s->team == SHMEM_TEAM_INVALID)
            continue;
        BITWISE_TYPES(RUN_BITWISE)
        RMA_TYPES(RUN_REAL)
        COMPLEX_TYPES(RUN_COMPLEX)
        if (!alt) /* on every other shape: enough to catch a host that saturates */
            INT_TYPES(RUN_WRAP)
    }
    free_shapes(shapes, nshapes);
    shmem_free(src_buf);
    shmem_free(dst_buf);
    return finish("team reductions and scans");
}
