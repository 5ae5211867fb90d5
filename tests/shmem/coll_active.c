/* The deprecated active-set collectives of OpenSHMEM 1.4 programs, on the
 * sets (PE_start, logPE_stride, PE_size) of all PEs, the even and the odd
 * PEs, every fourth PE and the last PE alone: shmem_barrier (completes puts),
 * shmem_sync, broadcast32/64 (the root's dest is left alone), collect32/64,
 * fcollect32/64, alltoall32/64, alltoalls32/64 and every TYPE_OP_to_all
 * reduction of the 1.4 table, each element checked; pSync keeps its
 * SHMEM_SYNC_VALUE. */
#include "coll_util.h"

#define NB 11
static long psync[SHMEM_SYNC_SIZE];
static long pwrk_space[SHMEM_REDUCE_MIN_WRKDATA_SIZE * 4];
static long double _Complex src_buf[8 * NB * 3], dst_buf[8 * NB * 3];
static long flags[8];

struct set {
    int start, log_stride, size;
};

static int set_pe(const struct set *a, int i) { return a->start + (i << a->log_stride); }
static int set_index(const struct set *a, int pe)
{
    int d = pe - a->start;
    return d >= 0 && d % (1 << a->log_stride) == 0 && (d >> a->log_stride) < a->size ? d >> a->log_stride : -1;
}

#define SET_ARGS(a) (a)->start, (a)->log_stride, (a)->size

/* 1.4 reductions: and/or/xor on short..longlong, max/min and sum/prod on the reals and complex too */
#define AS_BITWISE(X) X(short, short) X(int, int) X(long, long) X(longlong, long long)
#define AS_REAL(X) AS_BITWISE(X) X(float, float) X(double, double) X(longdouble, long double)
#define AS_COMPLEX(X) X(complexd, double _Complex) X(complexf, float _Complex)


#define DEFINE_TO_ALL(N, T, OP, VAL)                                                                               \
    static void to_all_##N##_##OP(const struct set *a)                                                             \
    {                                                                                                              \
        T *src = (T *)src_buf, *dst = (T *)dst_buf;                                                                \
        int me = shmem_my_pe();                                                                                    \
        for (int j = 0; j < NB; j++)                                                                               \
            src[j] = VAL(T, me, j), dst[j] = (T)0;                                                                 \
        shmem_##N##_##OP##_to_all(dst, src, NB, SET_ARGS(a), (T *)pwrk_space, psync);                             \
        for (int j = 0; j < NB; j++) {                                                                             \
            T ref = VAL(T, set_pe(a, 0), j);                                                                       \
            for (int k = 1; k < a->size; k++)                                                                      \
                ref = (T)C_##OP(ref, VAL(T, set_pe(a, k), j));                                                     \
            EXPECT(dst[j] == ref, "set(%d,%d,%d): shmem_" #N "_" #OP "_to_all: element %d wrong", SET_ARGS(a), j); \
        }                                                                                                          \
    }
#define DEF_BITWISE(N, T) DEFINE_TO_ALL(N, T, and, V_and) DEFINE_TO_ALL(N, T, or, V_or) DEFINE_TO_ALL(N, T, xor, V_xor)
#define DEF_REAL(N, T)                                                                                             \
    DEFINE_TO_ALL(N, T, max, V_max) DEFINE_TO_ALL(N, T, min, V_min) DEFINE_TO_ALL(N, T, sum, V_sum)               \
        DEFINE_TO_ALL(N, T, prod, V_prod)
#define DEF_COMPLEX(N, T) DEFINE_TO_ALL(N, T, sum, VC_sum) DEFINE_TO_ALL(N, T, prod, VC_prod)
AS_BITWISE(DEF_BITWISE)
AS_REAL(DEF_REAL)
AS_COMPLEX(DEF_COMPLEX)
#define RUN_BITWISE(N, T) to_all_##N##_and(a), to_all_##N##_or(a), to_all_##N##_xor(a);
#define RUN_REAL(N, T) to_all_##N##_max(a), to_all_##N##_min(a), to_all_##N##_sum(a), to_all_##N##_prod(a);
#define RUN_COMPLEX(N, T) to_all_##N##_sum(a), to_all_##N##_prod(a);

/* PE w's element j, and its element j for set index b (alltoall), as 32- or 64-bit words */
#define VD(w, j) ((w) * 1000 + (j) + 1)
#define VA(w, b, j) ((w) * 1000 + (b) * 100 + (j))

#define DEFINE_MOVES(BITS, T)                                                                                      \
    static void moves##BITS(const struct set *a, int me_s)                                                         \
    {                                                                                                              \
        T *src = (T *)src_buf, *dst = (T *)dst_buf;                                                                \
        int me = shmem_my_pe(), n = a->size, root = n - 1, total = 0;                                              \
        for (int j = 0; j <= n * NB * 3; j++)                                                                      \
            src[j] = (T)VD(me, j), dst[j] = (T)-1;                                                                 \
        shmem_broadcast##BITS(dst, src, NB, root, SET_ARGS(a), psync);                                             \
        for (int j = 0; j < NB; j++)                                                                               \
            EXPECT(dst[j] == (me_s == root ? (T)-1 : (T)VD(set_pe(a, root), j)),                                   \
                   "set(%d,%d,%d): shmem_broadcast" #BITS ": element %d wrong", SET_ARGS(a), j);                   \
        shmem_collect##BITS(dst, src, (size_t)me_s + 1, SET_ARGS(a), psync);                                       \
        for (int i = 0; i < n; total += ++i)                                                                       \
            for (int j = 0; j <= i; j++)                                                                           \
                EXPECT(dst[total + j] == (T)VD(set_pe(a, i), j), "set(%d,%d,%d): shmem_collect" #BITS ": element " \
                       "%d of %d wrong", SET_ARGS(a), j, i);                                                       \
        shmem_fcollect##BITS(dst, src, NB, SET_ARGS(a), psync);                                                    \
        for (int i = 0; i < n; i++)                                                                                \
            for (int j = 0; j < NB; j++)                                                                           \
                EXPECT(dst[i * NB + j] == (T)VD(set_pe(a, i), j), "set(%d,%d,%d): shmem_fcollect" #BITS ": "        \
                       "element %d of %d wrong", SET_ARGS(a), j, i);                                               \
        for (int b = 0; b < n; b++)                                                                                \
            for (int j = 0; j < NB; j++)                                                                           \
                src[b * NB + j] = (T)VA(me, b, j);                                                                 \
        shmem_alltoall##BITS(dst, src, NB, SET_ARGS(a), psync);                                                    \
        for (int i = 0; i < n; i++)                                                                                \
            for (int j = 0; j < NB; j++)                                                                           \
                EXPECT(dst[i * NB + j] == (T)VA(set_pe(a, i), me_s, j), "set(%d,%d,%d): shmem_alltoall" #BITS ": " \
                       "element %d from %d wrong", SET_ARGS(a), j, i);                                             \
        for (int b = 0; b < n; b++)                                                                                \
            for (int j = 0; j < NB; j++)                                                                           \
                src[(b * NB + j) * 3] = (T)VA(me, b, j);                                                           \
        for (int j = 0; j <= n * NB * 2; j++)                                                                      \
            dst[j] = (T)-1;                                                                                        \
        shmem_alltoalls##BITS(dst, src, 2, 3, NB, SET_ARGS(a), psync);                                             \
        for (int k = 0; k <= n * NB * 2; k++) {                                                                    \
            int i = k / 2 / NB, j = k / 2 % NB;                                                                    \
            T want = k % 2 || k == n * NB * 2 ? (T)-1 : (T)VA(set_pe(a, i), me_s, j);                              \
            EXPECT(dst[k] == want, "set(%d,%d,%d): shmem_alltoalls" #BITS ": dest element %d wrong", SET_ARGS(a), k); \
        }                                                                                                          \
    }
DEFINE_MOVES(32, int32_t)
DEFINE_MOVES(64, int64_t)

/* shmem_barrier completes the puts of its PEs: each puts to the next PE of
 * the set, then reads what the previous one put. */
static void barrier(const struct set *a, int me_s)
{
    int me = shmem_my_pe(), next = set_pe(a, (me_s + 1) % a->size), prev = set_pe(a, (me_s + a->size - 1) % a->size);
    shmem_long_p(&flags[me % 8], me + 1, next);
    shmem_barrier(SET_ARGS(a), psync);
    EXPECT(flags[prev % 8] == prev + 1, "set(%d,%d,%d): shmem_barrier did not complete PE %d's put", SET_ARGS(a),
           prev);
    shmem_sync(SET_ARGS(a), psync);
    flags[prev % 8] = 0;
    shmem_sync(SET_ARGS(a), psync);
}

int main(void)
{
    for (int i = 0; i < SHMEM_SYNC_SIZE; i++)
        psync[i] = SHMEM_SYNC_VALUE;
    shmem_init();
    int n = shmem_n_pes(), me = shmem_my_pe();
    if (n > 8) /* the static arrays hold 8 PEs' data */
        FAIL("this test runs on at most 8 PEs");
    struct set sets[] = {{0, 0, n}, {0, 1, (n + 1) / 2}, {1, 1, n / 2}, {0, 2, (n + 3) / 4}, {n - 1, 0, 1}};
    for (size_t k = 0; k < sizeof sets / sizeof *sets; k++) {
        const struct set *a = &sets[k];
        int me_s = a->size > 0 ? set_index(a, me) : -1;
        if (me_s < 0)
            continue;
        barrier(a, me_s);
        moves32(a, me_s);
        moves64(a, me_s);
        AS_BITWISE(RUN_BITWISE)
        AS_REAL(RUN_REAL)
        AS_COMPLEX(RUN_COMPLEX)
    }
    for (int i = 0; i < SHMEM_SYNC_SIZE; i++)
        EXPECT(psync[i] == SHMEM_SYNC_VALUE, "pSync[%d] changed", i);
    EXPECT(_SHMEM_SYNC_VALUE == SHMEM_SYNC_VALUE && _SHMEM_BCAST_SYNC_SIZE <= SHMEM_SYNC_SIZE &&
               _SHMEM_REDUCE_SYNC_SIZE <= SHMEM_SYNC_SIZE && _SHMEM_COLLECT_SYNC_SIZE <= SHMEM_SYNC_SIZE &&
               _SHMEM_BARRIER_SYNC_SIZE <= SHMEM_SYNC_SIZE && SHMEM_ALLTOALL_SYNC_SIZE <= SHMEM_SYNC_SIZE &&
               SHMEM_ALLTOALLS_SYNC_SIZE <= SHMEM_SYNC_SIZE && _SHMEM_REDUCE_MIN_WRKDATA_SIZE >= 1,
           "the 1.4 constants disagree");
    return finish("active-set collectives");
}
