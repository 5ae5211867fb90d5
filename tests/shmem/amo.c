/* Atomics: every operation of the standard, extended and bitwise tables on
 * every type of its table, fetching and not, the nbi forms, through the plain
 * name, the ctx_ names (SHMEM_CTX_DEFAULT and a created context) and the C11
 * generic interface (with and without a context), on the symmetric heap
 * (shmem_malloc and shmem_malloc_with_hints) and on static data, from every
 * PE to every PE; and the OpenSHMEM 1.3 names old programs call.
 *
 * Each origin works on words of its own at each target (words[origin][k]), so
 * every value returned and every final value is known exactly.  Non-fetching
 * atomics are ordered before what follows by ctx_fence, as the spec asks. */
#include <string.h>

#include "shtest_modes.h"

#define K 8 /* words per origin */
#define MAXPE 16
#define WORD 8

enum mem { HEAP, HINTED, STATIC, NMEMS };
static const char *const MEM_NAME[] = {"heap", "heap_with_hints", "static"};

#define ONE(...) +1
#define NTYPES (0 SHT_AMO_STANDARD(ONE) SHT_AMO_EXTENDED_ONLY(ONE) SHT_AMO_BITWISE(ONE))
static _Alignas(64) unsigned char static_words[NTYPES * MAXPE * K * WORD];

static void fence(enum mode m)
{
    if (m == PLAIN || m == GENERIC)
        shmem_fence();
    else
        shmem_ctx_fence(ctx_of(m));
}

/* PRE shmem_<ID>_atomic_<op>(args) through the mode's name */
#define AMO(m, ID, PRE, op, ...)                                                                              \
    switch (m) {                                                                                              \
    case PLAIN: PRE shmem_##ID##_atomic_##op(__VA_ARGS__); break;                                             \
    case CTX_DEFAULT:                                                                                         \
    case CTX_MADE: PRE shmem_ctx_##ID##_atomic_##op(ctx_of(m), __VA_ARGS__); break;                           \
    case GENERIC: PRE shmem_atomic_##op(__VA_ARGS__); break;                                                  \
    default: PRE shmem_atomic_##op(ctx_of(m), __VA_ARGS__); break;                                            \
    }

/* A value of T that depends on the origin, the target and j, wide enough
 * to use every byte of 64-bit types. */
#define VALUE(T, pe, t, j) ((T)(UINT64_C(0x0102030405060708) * (uint64_t)((pe) + 1) + (uint64_t)(t) * 16 + (j) * 3 + 1))
#define EXPECT(ID, what, got, want)                                                                           \
    SHT_CHECK((got) == (want), "%s %s (%s, %s) at PE %d: %.21Lg, expected %.21Lg", #ID, what, MODE_NAME[m],   \
              MEM_NAME[mem], t, (long double)(got), (long double)(want))

/* fetch, set and swap: every table has them (the extended table: only them) */
#define FETCH_SET_SWAP(ID, T)                                                                                 \
    static void fss_##ID(T *x, int t, enum mode m, enum mem mem)                                              \
    {                                                                                                         \
        int me = shmem_my_pe();                                                                               \
        T a = VALUE(T, me, t, 0), b = VALUE(T, me, t, 1), got = 0, f[2] = {0, 0};                             \
        AMO(m, ID, , set, x, a, t);                                                                           \
        fence(m);                                                                                             \
        AMO(m, ID, got =, fetch, x, t);                                                                       \
        EXPECT(ID, "fetch after set", got, a);                                                                \
        AMO(m, ID, got =, swap, x, b, t);                                                                     \
        EXPECT(ID, "swap", got, a);                                                                           \
        AMO(m, ID, got =, fetch, x, t);                                                                       \
        EXPECT(ID, "fetch after swap", got, b);                                                               \
        AMO(m, ID, , set, x + 1, a, t);                                                                       \
        AMO(m, ID, , set, x + 2, a, t);                                                                       \
        fence(m);                                                                                             \
        AMO(m, ID, , fetch_nbi, &f[0], x + 1, t);                                                             \
        AMO(m, ID, , swap_nbi, &f[1], x + 2, b, t);                                                           \
        complete(m);                                                                                          \
        EXPECT(ID, "fetch_nbi", f[0], a);                                                                     \
        EXPECT(ID, "swap_nbi", f[1], a);                                                                      \
    }                                                                                                         \
    /* what fss left at words[origin] of this PE */                                                           \
    static void fss_check_##ID(const T *x, int origin, enum mode m, enum mem mem)                             \
    {                                                                                                         \
        int t = shmem_my_pe();                                                                                \
        EXPECT(ID, "final", x[1], VALUE(T, origin, t, 0));                                                    \
        EXPECT(ID, "final after swap_nbi", x[2], VALUE(T, origin, t, 1));                                     \
    }

/* the rest of the standard table: compare_swap, inc, add (fetching or not) */
#define STANDARD(ID, T)                                                                                       \
    FETCH_SET_SWAP(ID, T)                                                                                     \
    static void std_##ID(T *x, int t, enum mode m, enum mem mem)                                              \
    {                                                                                                         \
        int me = shmem_my_pe();                                                                               \
        T a = VALUE(T, me, t, 0), b = VALUE(T, me, t, 1), c = VALUE(T, me, t, 2), got = 0, f[3] = {0};        \
        fss_##ID(x, t, m, mem);                                                                               \
        AMO(m, ID, got =, compare_swap, x, a, c, t); /* x is b: no swap */                                    \
        EXPECT(ID, "compare_swap (unequal)", got, b);                                                         \
        AMO(m, ID, got =, compare_swap, x, b, c, t);                                                          \
        EXPECT(ID, "compare_swap (equal)", got, b);                                                           \
        AMO(m, ID, got =, fetch_inc, x, t);                                                                   \
        EXPECT(ID, "fetch_inc", got, c);                                                                      \
        AMO(m, ID, , inc, x, t);                                                                              \
        fence(m);                                                                                             \
        AMO(m, ID, got =, fetch_add, x, (T)5, t);                                                             \
        EXPECT(ID, "fetch_add", got, (T)(c + 2));                                                             \
        AMO(m, ID, , add, x, (T)3, t);                                                                        \
        fence(m);                                                                                             \
        AMO(m, ID, got =, fetch, x, t);                                                                       \
        EXPECT(ID, "fetch after add", got, (T)(c + 10));                                                      \
        for (int k = 3; k < 6; k++)                                                                           \
            AMO(m, ID, , set, x + k, a, t);                                                                   \
        fence(m);                                                                                             \
        AMO(m, ID, , compare_swap_nbi, &f[0], x + 3, a, c, t);                                                \
        AMO(m, ID, , fetch_inc_nbi, &f[1], x + 4, t);                                                         \
        AMO(m, ID, , fetch_add_nbi, &f[2], x + 5, (T)7, t);                                                   \
        complete(m);                                                                                          \
        EXPECT(ID, "compare_swap_nbi", f[0], a);                                                              \
        EXPECT(ID, "fetch_inc_nbi", f[1], a);                                                                 \
        EXPECT(ID, "fetch_add_nbi", f[2], a);                                                                 \
    }                                                                                                         \
    static void std_check_##ID(const T *x, int origin, enum mode m, enum mem mem)                             \
    {                                                                                                         \
        int t = shmem_my_pe();                                                                                \
        T a = VALUE(T, origin, t, 0), c = VALUE(T, origin, t, 2);                                             \
        fss_check_##ID(x, origin, m, mem);                                                                    \
        EXPECT(ID, "final after add", x[0], (T)(c + 10));                                                     \
        EXPECT(ID, "final after compare_swap_nbi", x[3], c);                                                  \
        EXPECT(ID, "final after fetch_inc_nbi", x[4], (T)(a + 1));                                            \
        EXPECT(ID, "final after fetch_add_nbi", x[5], (T)(a + 7));                                            \
    }

/* and, or, xor, fetching or not, on words 6 and 7 */
#define BITWISE(ID, T)                                                                                        \
    static T bits_##ID(int pe, int t, int j)                                                                  \
    {                                                                                                         \
        return (T)(UINT64_C(0x9E3779B97F4A7C15) * (uint64_t)(pe * 64 + t * 8 + j + 1));                       \
    }                                                                                                         \
    static T bits_final_##ID(int pe, int t)                                                                   \
    {                                                                                                         \
        T v = bits_##ID(pe, t, 0);                                                                            \
        v &= bits_##ID(pe, t, 1), v &= bits_##ID(pe, t, 2), v |= bits_##ID(pe, t, 3);                         \
        v |= bits_##ID(pe, t, 4), v ^= bits_##ID(pe, t, 5), v ^= bits_##ID(pe, t, 6);                         \
        return v;                                                                                             \
    }                                                                                                         \
    static void bit_##ID(T *x, int t, enum mode m, enum mem mem)                                              \
    {                                                                                                         \
        int me = shmem_my_pe();                                                                               \
        T v[7], got = 0, f[3] = {0};                                                                          \
        for (int j = 0; j < 7; j++)                                                                           \
            v[j] = bits_##ID(me, t, j);                                                                       \
        AMO(m, ID, , set, x + 6, v[0], t);                                                                    \
        fence(m);                                                                                             \
        AMO(m, ID, got =, fetch_and, x + 6, v[1], t);                                                         \
        EXPECT(ID, "fetch_and", got, v[0]);                                                                   \
        AMO(m, ID, , and, x + 6, v[2], t);                                                                    \
        fence(m);                                                                                             \
        AMO(m, ID, got =, fetch_or, x + 6, v[3], t);                                                          \
        EXPECT(ID, "fetch_or", got, (T)(v[0] & v[1] & v[2]));                                                 \
        AMO(m, ID, , or, x + 6, v[4], t);                                                                     \
        fence(m);                                                                                             \
        AMO(m, ID, got =, fetch_xor, x + 6, v[5], t);                                                         \
        EXPECT(ID, "fetch_xor", got, (T)((v[0] & v[1] & v[2]) | v[3] | v[4]));                                \
        AMO(m, ID, , xor, x + 6, v[6], t);                                                                    \
        fence(m);                                                                                             \
        AMO(m, ID, got =, fetch, x + 6, t);                                                                   \
        EXPECT(ID, "fetch after xor", got, bits_final_##ID(me, t));                                           \
        /* the nbi forms, one after another on word 7 with fences between */                                  \
        AMO(m, ID, , set, x + 7, v[0], t);                                                                    \
        fence(m);                                                                                             \
        AMO(m, ID, , fetch_and_nbi, &f[0], x + 7, v[1], t);                                                   \
        fence(m);                                                                                             \
        AMO(m, ID, , fetch_or_nbi, &f[1], x + 7, v[3], t);                                                    \
        fence(m);                                                                                             \
        AMO(m, ID, , fetch_xor_nbi, &f[2], x + 7, v[5], t);                                                   \
        complete(m);                                                                                          \
        EXPECT(ID, "fetch_and_nbi", f[0], v[0]);                                                              \
        EXPECT(ID, "fetch_or_nbi", f[1], (T)(v[0] & v[1]));                                                   \
        EXPECT(ID, "fetch_xor_nbi", f[2], (T)((v[0] & v[1]) | v[3]));                                         \
    }                                                                                                         \
    static void bit_check_##ID(const T *x, int origin, enum mode m, enum mem mem)                             \
    {                                                                                                         \
        int t = shmem_my_pe();                                                                                \
        T v0 = bits_##ID(origin, t, 0), v1 = bits_##ID(origin, t, 1), v3 = bits_##ID(origin, t, 3);           \
        EXPECT(ID, "final after xor", x[6], bits_final_##ID(origin, t));                                      \
        EXPECT(ID, "final after fetch_xor_nbi", x[7], (T)(((v0 & v1) | v3) ^ bits_##ID(origin, t, 5)));       \
    }

SHT_AMO_STANDARD(STANDARD)
SHT_AMO_EXTENDED_ONLY(FETCH_SET_SWAP)
SHT_AMO_BITWISE(BITWISE)

#define UNTOUCHED 0xA5
/* The words of an origin that did not work on this PE hold what memset left. */
static void untouched(const unsigned char *words, int origin, const char *type, enum mode m, enum mem mem)
{
    const unsigned char *w = words + (size_t)origin * K * WORD;
    for (int i = 0; i < K * WORD; i++)
        SHT_CHECK(w[i] == UNTOUCHED, "%s (%s, %s): PE %d's byte %d here changed to 0x%x", type, MODE_NAME[m],
                  MEM_NAME[mem], origin, i, w[i]);
}

/* Every type of every table at once, each on words of its own: each PE on its
 * words at every PE it reaches, then each PE checks what every origin left in
 * its memory.  Two barriers per mode and memory. */
static void run(unsigned char *words[NMEMS])
{
    int me = shmem_my_pe(), npes = shmem_n_pes();
    size_t type_bytes = (size_t)npes * K * WORD;
    for (int mem = 0; mem < NMEMS; mem++)
        for (int m = 0; m < NMODES; m++) {
            int type = 0; /* the types' words follow each other */
#define TYPE_WORDS (words[mem] + (size_t)type * type_bytes)
#define ORIGIN_WORDS(T, pe) ((T *)(TYPE_WORDS + (size_t)(pe) * K * WORD))
#define EACH(ID, T, fn)                                                                                       \
    for (int i = 1; i <= npes; i++)                                                                           \
        if (reaches(m, i, npes))                                                                              \
            fn##_##ID(ORIGIN_WORDS(T, me), (me + i) % npes, m, mem);                                          \
    type++;
#define CHECK_EACH(ID, T, fn)                                                                                 \
    for (int pe = 0; pe < npes; pe++)                                                                         \
        if (reaches(m, offset_to(pe, me, npes), npes))                                                        \
            fn##_check_##ID(ORIGIN_WORDS(T, pe), pe, m, mem);                                                 \
        else                                                                                                  \
            untouched(TYPE_WORDS, pe, #ID, m, mem);                                                           \
    type++;
#define STD(ID, T) EACH(ID, T, std)
#define EXT(ID, T) EACH(ID, T, fss)
#define BIT(ID, T) EACH(ID, T, bit)
#define STD_CHECK(ID, T) CHECK_EACH(ID, T, std)
#define EXT_CHECK(ID, T) CHECK_EACH(ID, T, fss)
#define BIT_CHECK(ID, T) CHECK_EACH(ID, T, bit)
            memset(words[mem], UNTOUCHED, NTYPES * type_bytes);
            sht_barrier();
            SHT_AMO_STANDARD(STD)
            SHT_AMO_EXTENDED_ONLY(EXT)
            SHT_AMO_BITWISE(BIT)
            sht_barrier();
            type = 0;
            SHT_AMO_STANDARD(STD_CHECK)
            SHT_AMO_EXTENDED_ONLY(EXT_CHECK)
            SHT_AMO_BITWISE(BIT_CHECK)
        }
}

/* The OpenSHMEM 1.3 names (shmem_int_fadd ...): each PE on its words at its
 * right neighbour, for the types that have them. */
#define LEGACY(ID, T)                                                                                         \
    static void legacy_##ID(T *x)                                                                             \
    {                                                                                                         \
        int me = shmem_my_pe(), t = (me + 1) % shmem_n_pes();                                                 \
        enum mode m = PLAIN;                                                                                  \
        enum mem mem = HEAP;                                                                                  \
        T a = VALUE(T, me, t, 0), b = VALUE(T, me, t, 1);                                                     \
        shmem_##ID##_set(x, a, t);                                                                            \
        shmem_fence();                                                                                        \
        EXPECT(ID, "fetch (1.3)", shmem_##ID##_fetch(x, t), a);                                               \
        EXPECT(ID, "swap (1.3)", shmem_##ID##_swap(x, b, t), a);                                              \
        EXPECT(ID, "cswap (1.3)", shmem_##ID##_cswap(x, b, a, t), b);                                         \
        EXPECT(ID, "finc (1.3)", shmem_##ID##_finc(x, t), a);                                                 \
        shmem_##ID##_inc(x, t);                                                                               \
        shmem_fence();                                                                                        \
        EXPECT(ID, "fadd (1.3)", shmem_##ID##_fadd(x, (T)4, t), (T)(a + 2));                                  \
        shmem_##ID##_add(x, (T)4, t);                                                                         \
        shmem_fence();                                                                                        \
        EXPECT(ID, "fetch after add (1.3)", shmem_##ID##_fetch(x, t), (T)(a + 10));                           \
    }
LEGACY(int, int)
LEGACY(long, long)
LEGACY(longlong, long long)

int main(void)
{
    shmem_init();
    sht_require_pes(MAXPE);
    int npes = shmem_n_pes();
    sht_make_ctx(0);
    size_t bytes = NTYPES * (size_t)npes * K * WORD;
    unsigned char *words[NMEMS] = {shmem_malloc(bytes),
                                   shmem_malloc_with_hints(bytes, SHMEM_MALLOC_ATOMICS_REMOTE), static_words};
    SHT_CHECK(words[HEAP] && words[HINTED], "shmem_malloc returned NULL");
    if (words[HEAP] && words[HINTED]) {
        run(words);
        sht_barrier();
        legacy_int((int *)words[HEAP]);
        legacy_long((long *)words[HEAP] + 1);
        legacy_longlong((long long *)words[HEAP] + 2);
    }
    sht_barrier();
    shmem_ctx_destroy(sht_ctx);
    shmem_free(words[HINTED]);
    shmem_free(words[HEAP]);
    return sht_finish("amo");
}
