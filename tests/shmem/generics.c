/* The C11 generic interfaces of OpenSHMEM 1.6, form by form against the
 * spec's synopses: a call of every generic routine (and its context form)
 * with every type of the spec's table for it, the deprecated generic names
 * (shmem_add, shmem_fadd, shmem_cswap, shmem_fetch, shmem_inc, shmem_finc,
 * shmem_set, shmem_swap, shmem_wait), the deprecated short and unsigned short
 * of the synchronization table, both forms of shmem_sync; and <pshmem.h>,
 * which must be Remora's (the profiling names of every routine).  That it
 * compiles is most of the test; each call then runs on this PE's own memory
 * (collectives on SHMEM_TEAM_WORLD) and a few results are checked.  The
 * table lists are the spec's, written out here, not the generator's. */
#include <complex.h>
#include <pshmem.h>
#include <string.h>

#include "shtest.h"

/* the spec's tables (OpenSHMEM 1.6) */
#define RMA_TYPES(X) SHT_RMA_TYPES(X)
#define AMO_STANDARD(X) SHT_AMO_STANDARD(X)
#define AMO_EXTENDED(X) SHT_AMO_STANDARD(X) SHT_AMO_EXTENDED_ONLY(X)
#define AMO_BITWISE(X) SHT_AMO_BITWISE(X)
#define SYNC_TYPES(X) SHT_SYNC_TYPES(X) X(short, short) X(ushort, unsigned short) /* the last two deprecated */
#define OLD_WAIT_TYPES(X) X(short, short) X(int, int) X(long, long) X(longlong, long long)
#define RED_BITWISE(X)                                                                                         \
    X(uchar, unsigned char) X(ushort, unsigned short) X(uint, unsigned int) X(ulong, unsigned long)            \
    X(ulonglong, unsigned long long) X(int8, int8_t) X(int16, int16_t) X(int32, int32_t) X(int64, int64_t)     \
    X(uint8, uint8_t) X(uint16, uint16_t) X(uint32, uint32_t) X(uint64, uint64_t) X(size, size_t)
#define RED_ARITH(X) RMA_TYPES(X) X(complexd, double _Complex) X(complexf, float _Complex)

static char *heap;    /* symmetric scratch: 1 KiB per call site */
static uint64_t *sig; /* symmetric signal word */
#define D(T) ((T *)heap)
#define S(T) ((T *)(heap + 512))
static shmem_ctx_t ctx;

#define RMA(ID, T)                                                                                             \
    static void rma_##ID(void)                                                                                 \
    {                                                                                                          \
        int me = shmem_my_pe();                                                                                \
        T *d = D(T), *s = S(T);                                                                                \
        memset(heap, 0, 1024);                                                                                 \
        for (int i = 0; i < 8; i++)                                                                            \
            s[i] = (T)(i + 1);                                                                                 \
        shmem_put(d, s, 2, me), shmem_put(ctx, d, s, 2, me);                                                   \
        shmem_get(d, s, 2, me), shmem_get(ctx, d, s, 2, me);                                                   \
        shmem_put_nbi(d, s, 2, me), shmem_put_nbi(ctx, d, s, 2, me);                                           \
        shmem_get_nbi(d, s, 2, me), shmem_get_nbi(ctx, d, s, 2, me);                                           \
        shmem_quiet();                                                                                         \
        SHT_CHECK(d[1] == (T)2, "shmem_put/get (" #ID ")");                                                     \
        shmem_p(d, (T)5, me), shmem_p(ctx, d + 1, (T)6, me);                                                    \
        T g = shmem_g(d, me), h = shmem_g(ctx, d + 1, me);                                                     \
        SHT_CHECK(g == (T)5 && h == (T)6, "shmem_p/g (" #ID ")");                                               \
        shmem_iput(d, s, 2, 1, 2, me), shmem_iput(ctx, d, s, 2, 1, 2, me);                                      \
        shmem_iget(d, s, 1, 2, 2, me), shmem_iget(ctx, d, s, 1, 2, 2, me);                                      \
        shmem_ibput(d, s, 2, 2, 1, 2, me), shmem_ibput(ctx, d, s, 2, 2, 1, 2, me);                              \
        shmem_ibget(d, s, 2, 2, 1, 2, me), shmem_ibget(ctx, d, s, 2, 2, 1, 2, me);                              \
        shmem_put_signal(d, s, 1, sig, 1, SHMEM_SIGNAL_ADD, me);                                               \
        shmem_put_signal(ctx, d, s, 1, sig, 1, SHMEM_SIGNAL_ADD, me);                                          \
        shmem_put_signal_nbi(d, s, 1, sig, 1, SHMEM_SIGNAL_ADD, me);                                           \
        shmem_put_signal_nbi(ctx, d, s, 1, sig, 1, SHMEM_SIGNAL_ADD, me);                                      \
        shmem_quiet();                                                                                         \
    }
RMA_TYPES(RMA)

/* fetch, set, swap and their nbi forms: the extended table */
#define AMO_EXT(ID, T)                                                                                         \
    static void amo_ext_##ID(void)                                                                             \
    {                                                                                                          \
        int me = shmem_my_pe();                                                                                \
        T *d = D(T), *f = S(T);                                                                                \
        shmem_atomic_set(d, (T)3, me), shmem_atomic_set(ctx, d, (T)3, me);                                      \
        T a = shmem_atomic_fetch(d, me), b = shmem_atomic_fetch(ctx, d, me);                                   \
        T c = shmem_atomic_swap(d, (T)4, me), e = shmem_atomic_swap(ctx, d, (T)5, me);                          \
        shmem_atomic_fetch_nbi(f, d, me), shmem_atomic_fetch_nbi(ctx, f + 1, d, me);                           \
        shmem_quiet();                                                                                         \
        shmem_atomic_swap_nbi(f + 2, d, (T)6, me);                                                             \
        shmem_quiet();                                                                                         \
        shmem_atomic_swap_nbi(ctx, f + 3, d, (T)7, me);                                                        \
        shmem_quiet();                                                                                         \
        SHT_CHECK(a == (T)3 && b == (T)3 && c == (T)3 && e == (T)4 && f[0] == (T)5 && f[2] == (T)5 &&           \
                      f[3] == (T)6 && *d == (T)7,                                                              \
                  "extended atomics (" #ID ")");                                                               \
        /* deprecated */                                                                                       \
        shmem_set(d, (T)8, me);                                                                                \
        T g = shmem_fetch(d, me), h = shmem_swap(d, (T)9, me);                                                 \
        SHT_CHECK(g == (T)8 && h == (T)8 && *d == (T)9, "shmem_set/fetch/swap (" #ID ")");                      \
    }
AMO_EXTENDED(AMO_EXT)

#define AMO_STD(ID, T)                                                                                         \
    static void amo_std_##ID(void)                                                                             \
    {                                                                                                          \
        int me = shmem_my_pe();                                                                                \
        T *d = D(T), *f = S(T);                                                                                \
        *d = 0;                                                                                                \
        shmem_atomic_inc(d, me), shmem_atomic_inc(ctx, d, me);                                                 \
        shmem_atomic_add(d, (T)2, me), shmem_atomic_add(ctx, d, (T)2, me);                                     \
        T a = shmem_atomic_fetch_inc(d, me), b = shmem_atomic_fetch_inc(ctx, d, me);                           \
        T c = shmem_atomic_fetch_add(d, (T)1, me), e = shmem_atomic_fetch_add(ctx, d, (T)1, me);               \
        T g = shmem_atomic_compare_swap(d, (T)10, (T)20, me), h = shmem_atomic_compare_swap(ctx, d, (T)20, (T)0, me); \
        shmem_atomic_fetch_inc_nbi(f, d, me), shmem_atomic_fetch_inc_nbi(ctx, f, d, me);                       \
        shmem_atomic_fetch_add_nbi(f, d, (T)1, me), shmem_atomic_fetch_add_nbi(ctx, f, d, (T)1, me);           \
        shmem_atomic_compare_swap_nbi(f, d, (T)4, (T)0, me), shmem_atomic_compare_swap_nbi(ctx, f, d, (T)0, (T)0, me); \
        shmem_quiet();                                                                                         \
        SHT_CHECK(a == (T)6 && b == (T)7 && c == (T)8 && e == (T)9 && g == (T)10 && h == (T)20 && *d == (T)0,  \
                  "standard atomics (" #ID ")");                                                               \
        /* deprecated */                                                                                       \
        shmem_inc(d, me), shmem_add(d, (T)2, me);                                                              \
        T i = shmem_finc(d, me), j = shmem_fadd(d, (T)3, me), k = shmem_cswap(d, (T)7, (T)1, me);              \
        SHT_CHECK(i == (T)3 && j == (T)4 && k == (T)7 && *d == (T)1, "shmem_inc/add/finc/fadd/cswap (" #ID ")"); \
    }
AMO_STANDARD(AMO_STD)

#define AMO_BIT(ID, T)                                                                                         \
    static void amo_bit_##ID(void)                                                                             \
    {                                                                                                          \
        int me = shmem_my_pe();                                                                                \
        T *d = D(T), *f = S(T);                                                                                \
        *d = (T)0xff;                                                                                          \
        shmem_atomic_and(d, (T)0x7f, me), shmem_atomic_and(ctx, d, (T)0x3f, me);                               \
        shmem_atomic_or(d, (T)0x100, me), shmem_atomic_or(ctx, d, (T)0x200, me);                               \
        shmem_atomic_xor(d, (T)1, me), shmem_atomic_xor(ctx, d, (T)1, me);                                     \
        T a = shmem_atomic_fetch_and(d, (T)0x33f, me), b = shmem_atomic_fetch_and(ctx, d, (T)0x33f, me);       \
        T c = shmem_atomic_fetch_or(d, 0, me), e = shmem_atomic_fetch_or(ctx, d, 0, me);                       \
        T g = shmem_atomic_fetch_xor(d, 0, me), h = shmem_atomic_fetch_xor(ctx, d, 0, me);                     \
        shmem_atomic_fetch_and_nbi(f, d, (T)0x33f, me), shmem_atomic_fetch_and_nbi(ctx, f, d, (T)0x33f, me);   \
        shmem_atomic_fetch_or_nbi(f, d, 0, me), shmem_atomic_fetch_or_nbi(ctx, f, d, 0, me);                   \
        shmem_atomic_fetch_xor_nbi(f, d, 0, me), shmem_atomic_fetch_xor_nbi(ctx, f, d, 0, me);                 \
        shmem_quiet();                                                                                         \
        SHT_CHECK(a == (T)0x33f && b == a && c == a && e == a && g == a && h == a && *f == a,                  \
                  "bitwise atomics (" #ID ")");                                                                \
    }
AMO_BITWISE(AMO_BIT)

#define SYNC(ID, T)                                                                                            \
    static void sync_##ID(void)                                                                                \
    {                                                                                                          \
        T *w = D(T), v[4] = {1, 1, 1, 1};                                                                      \
        size_t idx[4];                                                                                         \
        int st[4] = {0, 0, 0, 1};                                                                              \
        for (int i = 0; i < 4; i++)                                                                            \
            w[i] = (T)1;                                                                                       \
        shmem_wait_until(w, SHMEM_CMP_EQ, (T)1);                                                               \
        int t = shmem_test(w, SHMEM_CMP_EQ, (T)1);                                                             \
        shmem_wait_until_all(w, 4, st, SHMEM_CMP_EQ, (T)1);                                                    \
        int ta = shmem_test_all(w, 4, st, SHMEM_CMP_EQ, (T)1);                                                 \
        size_t a = shmem_wait_until_any(w, 4, st, SHMEM_CMP_EQ, (T)1);                                         \
        size_t b = shmem_test_any(w, 4, st, SHMEM_CMP_EQ, (T)1);                                               \
        size_t c = shmem_wait_until_some(w, 4, idx, st, SHMEM_CMP_EQ, (T)1);                                   \
        size_t e = shmem_test_some(w, 4, idx, st, SHMEM_CMP_EQ, (T)1);                                         \
        shmem_wait_until_all_vector(w, 4, st, SHMEM_CMP_EQ, v);                                                \
        int tv = shmem_test_all_vector(w, 4, st, SHMEM_CMP_EQ, v);                                             \
        size_t f = shmem_wait_until_any_vector(w, 4, st, SHMEM_CMP_EQ, v);                                     \
        size_t g = shmem_test_any_vector(w, 4, st, SHMEM_CMP_EQ, v);                                           \
        size_t h = shmem_wait_until_some_vector(w, 4, idx, st, SHMEM_CMP_EQ, v);                               \
        size_t i = shmem_test_some_vector(w, 4, idx, st, SHMEM_CMP_EQ, v);                                     \
        SHT_CHECK(t == 1 && ta == 1 && tv == 1 && a < 3 && b < 3 && f < 3 && g < 3 && c == 3 && e == 3 &&       \
                      h == 3 && i == 3, "wait/test generics (" #ID ")");                                       \
    }
SYNC_TYPES(SYNC)

#define OLD_WAIT(ID, T)                                                                                        \
    static void old_wait_##ID(void)                                                                            \
    {                                                                                                          \
        T *w = D(T);                                                                                           \
        *w = (T)1;                                                                                             \
        shmem_wait(w, (T)0); /* returns once *w != 0 */                                                        \
    }
OLD_WAIT_TYPES(OLD_WAIT)

#define COLL(ID, T)                                                                                            \
    static void coll_##ID(void)                                                                                \
    {                                                                                                          \
        int n = shmem_n_pes();                                                                                 \
        T *d = D(T), *s = S(T);                                                                                \
        memset(s, 0, 256);                                                                                     \
        shmem_broadcast(SHMEM_TEAM_WORLD, d, s, 1, 0);                                                         \
        shmem_collect(SHMEM_TEAM_WORLD, d, s, 1);                                                              \
        shmem_fcollect(SHMEM_TEAM_WORLD, d, s, 1);                                                             \
        shmem_alltoall(SHMEM_TEAM_WORLD, d, s, 1);                                                             \
        shmem_alltoalls(SHMEM_TEAM_WORLD, d, s, 1, 1, 1);                                                      \
        shmem_max_reduce(SHMEM_TEAM_WORLD, d, s, 1);                                                           \
        shmem_min_reduce(SHMEM_TEAM_WORLD, d, s, 1);                                                           \
        (void)n;                                                                                               \
    }
RMA_TYPES(COLL)

#define COLL_BIT(ID, T)                                                                                        \
    static void coll_bit_##ID(void)                                                                            \
    {                                                                                                          \
        T *d = D(T), *s = S(T);                                                                                \
        shmem_and_reduce(SHMEM_TEAM_WORLD, d, s, 1);                                                           \
        shmem_or_reduce(SHMEM_TEAM_WORLD, d, s, 1);                                                            \
        shmem_xor_reduce(SHMEM_TEAM_WORLD, d, s, 1);                                                           \
    }
RED_BITWISE(COLL_BIT)

#define COLL_ARITH(ID, T)                                                                                      \
    static void coll_arith_##ID(void)                                                                          \
    {                                                                                                          \
        T *d = D(T), *s = S(T);                                                                                \
        s[0] = (T)1;                                                                                           \
        shmem_sum_reduce(SHMEM_TEAM_WORLD, d, s, 1);                                                           \
        SHT_CHECK(d[0] == (T)shmem_n_pes(), "shmem_sum_reduce (" #ID ")");                                      \
        shmem_prod_reduce(SHMEM_TEAM_WORLD, d, s, 1);                                                          \
        shmem_sum_inscan(SHMEM_TEAM_WORLD, d, s, 1);                                                           \
        shmem_sum_exscan(SHMEM_TEAM_WORLD, d, s, 1);                                                           \
    }
RED_ARITH(COLL_ARITH)

int main(void)
{
    static long pSync[SHMEM_SYNC_SIZE];
    shmem_init();
    for (int i = 0; i < SHMEM_SYNC_SIZE; i++)
        pSync[i] = SHMEM_SYNC_VALUE;
    heap = shmem_malloc(1024);
    sig = shmem_calloc(1, sizeof *sig);
    SHT_CHECK(shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) == 0, "shmem_ctx_create");
    /* the profiling names, from <pshmem.h> */
    SHT_CHECK(pshmem_my_pe() == shmem_my_pe() && pshmem_n_pes() == shmem_n_pes(), "pshmem_my_pe/n_pes");
    pshmem_barrier_all();
#define CALL(ID, T) rma_##ID();
    RMA_TYPES(CALL)
#undef CALL
#define CALL(ID, T) amo_ext_##ID();
    AMO_EXTENDED(CALL)
#undef CALL
#define CALL(ID, T) amo_std_##ID();
    AMO_STANDARD(CALL)
#undef CALL
#define CALL(ID, T) amo_bit_##ID();
    AMO_BITWISE(CALL)
#undef CALL
#define CALL(ID, T) sync_##ID();
    SYNC_TYPES(CALL)
#undef CALL
#define CALL(ID, T) old_wait_##ID();
    OLD_WAIT_TYPES(CALL)
#undef CALL
#define CALL(ID, T) coll_##ID();
    RMA_TYPES(CALL)
#undef CALL
#define CALL(ID, T) coll_bit_##ID();
    RED_BITWISE(CALL)
#undef CALL
#define CALL(ID, T) coll_arith_##ID();
    RED_ARITH(CALL)
#undef CALL
    /* shmem_sync: the team form (1.5) and the deprecated active-set form */
    int r = shmem_sync(SHMEM_TEAM_WORLD);
    SHT_CHECK(r == 0, "shmem_sync(SHMEM_TEAM_WORLD) returned %d", r);
    shmem_sync(0, 0, shmem_n_pes(), pSync);
    shmem_ctx_destroy(ctx);
    shmem_free(sig);
    shmem_free(heap);
    return sht_finish("generics");
}
