/* Signals: put_signal and put_signal_nbi with SHMEM_SIGNAL_SET and
 * SHMEM_SIGNAL_ADD for every type of the RMA table, the sized and the mem
 * forms, through the plain, ctx_ and generic names; the receiver waits with
 * shmem_signal_wait_until and reads the signal with shmem_signal_fetch, then
 * checks the data at once (no barrier between): the data must be there
 * when the signal is.  Then shmem_signal_set / shmem_signal_add and their
 * ctx_ forms, with every comparison of signal_wait_until.
 *
 * Each PE sends to its right neighbour and receives from its left one.
 * Signal words live on the heap and in static data by turns. */
#include <string.h>

#include "shtest_modes.h"

#define N 1000 /* elements: large enough that the data and the signal travel apart */
#define GUARD 4
#define MAXELEM 16

#define NFAMILIES_MAX 30 /* 24 types, 5 sizes, mem */
#define FAMILY_BYTES ((N + GUARD) * MAXELEM)
static uint64_t static_sig[NFAMILIES_MAX];
static uint64_t *heap_sig;
static int seed;

enum variant { SET, SET_NBI, ADD, ADD_NBI, NVARIANTS };
static const char *const VARIANT_NAME[] = {"SET", "SET nbi", "ADD", "ADD nbi"};

/* the put_signal (nbi or not) of mode m */
#define PUT_SIGNAL(K, ID, m, nbi, ...)                                                                        \
    do {                                                                                                      \
        if (nbi) {                                                                                            \
            CALL(K, ID, m, , put, _signal_nbi, __VA_ARGS__);                                                  \
        } else {                                                                                              \
            CALL(K, ID, m, , put, _signal, __VA_ARGS__);                                                      \
        }                                                                                                     \
    } while (0)

/* SET sends the data and the seed in one put_signal; ADD sends it in two
 * halves adding 1 and 2, so the signal is 3 when both are there. */
#define FAMILY(K, ID, T)                                                                                      \
    static T val_##ID(int pe, size_t k) { return (T)((pe * 37 + (int)k * 11 + seed * 5) % 97 + 1); }          \
    static void send_##ID(unsigned char *area, uint64_t *sig, enum variant v, enum mode m, int pe)            \
    {                                                                                                         \
        static T src[N];                                                                                      \
        T *dst = (T *)area;                                                                                   \
        int nbi = v == SET_NBI || v == ADD_NBI;                                                               \
        for (size_t k = 0; k < N; k++)                                                                        \
            src[k] = val_##ID(shmem_my_pe(), k);                                                              \
        if (v == SET || v == SET_NBI) {                                                                       \
            PUT_SIGNAL(K, ID, m, nbi, dst, src, N, sig, (uint64_t)seed, SHMEM_SIGNAL_SET, pe);                \
        } else {                                                                                              \
            PUT_SIGNAL(K, ID, m, nbi, dst, src, N / 2, sig, 1, SHMEM_SIGNAL_ADD, pe);                         \
            PUT_SIGNAL(K, ID, m, nbi, dst + N / 2, src + N / 2, N - N / 2, sig, 2, SHMEM_SIGNAL_ADD, pe);     \
        }                                                                                                     \
        complete(m);                                                                                          \
    }                                                                                                         \
    static void receive_##ID(unsigned char *area, uint64_t *sig, enum variant v, enum mode m, int pe)         \
    {                                                                                                         \
        const T *dst = (const T *)area;                                                                       \
        uint64_t want = v == SET || v == SET_NBI ? (uint64_t)seed : 3;                                        \
        uint64_t got = shmem_signal_wait_until(sig, SHMEM_CMP_EQ, want);                                      \
        SHT_CHECK(got == want, "%s put_signal %s %s: signal_wait_until returned %llu, expected %llu", #ID,    \
                  VARIANT_NAME[v], MODE_NAME[m], (unsigned long long)got, (unsigned long long)want);          \
        got = shmem_signal_fetch(sig);                                                                        \
        SHT_CHECK(got == want, "%s put_signal %s %s: signal_fetch gave %llu, expected %llu", #ID,             \
                  VARIANT_NAME[v], MODE_NAME[m], (unsigned long long)got, (unsigned long long)want);          \
        for (size_t k = 0; k < N + GUARD; k++) {                                                              \
            T w = k < N ? val_##ID(pe, k) : (T)-3;                                                            \
            SHT_CHECK(dst[k] == w, "%s put_signal %s %s from PE %d: [%zu] = %g, expected %g", #ID,            \
                      VARIANT_NAME[v], MODE_NAME[m], pe, k, (double)dst[k], (double)w);                       \
        }                                                                                                     \
    }                                                                                                         \
    static void prepare_##ID(unsigned char *area)                                                             \
    {                                                                                                         \
        for (size_t k = 0; k < N + GUARD; k++)                                                                \
            ((T *)area)[k] = (T)-3;                                                                           \
    }

#define TYPED(ID, T) FAMILY(typed, ID, T)
SHT_RMA_TYPES(TYPED)
SHT_SIZED_FAMILIES(FAMILY)

typedef void transfer_fn(unsigned char *area, uint64_t *sig, enum variant v, enum mode m, int pe);
static const struct family {
    enum mode modes; /* the modes it has: all, or those before GENERIC */
    void (*prepare)(unsigned char *area);
    transfer_fn *send, *receive;
} FAMILIES[] = {
#define ENTRY(K, ID, T) {MODES_##K, prepare_##ID, send_##ID, receive_##ID},
#define TYPED_ENTRY(ID, T) ENTRY(typed, ID, T)
    SHT_RMA_TYPES(TYPED_ENTRY) SHT_SIZED_FAMILIES(ENTRY)};
#define NFAMILIES (int)(sizeof FAMILIES / sizeof FAMILIES[0])
_Static_assert(NFAMILIES <= NFAMILIES_MAX, "too few signal words");

/* Every mode and variant, all families at once (each with its own data and
 * signal word, on the heap or in static data by turns): each PE sends every
 * family to its right neighbour, then receives every family from its left. */
static void put_signals(unsigned char *area)
{
    int me = shmem_my_pe(), npes = shmem_n_pes();
    for (enum mode m = 0; m < NMODES; m++)
        for (enum variant v = 0; v < NVARIANTS; v++) {
            seed++;
#define EACH(call)                                                                                            \
    for (int f = 0; f < NFAMILIES; f++)                                                                       \
        if (m < FAMILIES[f].modes)                                                                            \
            call;
#define AREA (area + (size_t)f * FAMILY_BYTES)
#define SIG ((m + v + f) % 2 ? &static_sig[f] : &heap_sig[f])
            EACH((*SIG = 0, FAMILIES[f].prepare(AREA)))
            sht_barrier();
            EACH(FAMILIES[f].send(AREA, SIG, v, m, (me + 1) % npes))
            EACH(FAMILIES[f].receive(AREA, SIG, v, m, (me + npes - 1) % npes))
            sht_barrier();
        }
}

/* signal_set, then signal_add twice, ordered by fence; the receiver waits
 * with one comparison per round (the value goes 5, 12, 13). */
static void signal_updates(uint64_t *sig, int ctx)
{
    static const int cmps[] = {SHMEM_CMP_EQ, SHMEM_CMP_NE, SHMEM_CMP_GT, SHMEM_CMP_GE, SHMEM_CMP_LT, SHMEM_CMP_LE};
    /* for each comparison: the value it is made against, and the signal's
     * value before the updates, at which it does not hold */
    static const uint64_t against[] = {13, 100, 12, 13, 14, 13}, before[] = {0, 100, 0, 0, 100, 100};
    int me = shmem_my_pe(), npes = shmem_n_pes(), right = (me + 1) % npes;
    for (size_t c = 0; c < sizeof cmps / sizeof cmps[0]; c++) {
        *sig = before[c];
        sht_barrier();
        if (ctx) {
            shmem_ctx_signal_set(sht_ctx, sig, 5, right);
            shmem_ctx_fence(sht_ctx);
            shmem_ctx_signal_add(sht_ctx, sig, 7, right);
            shmem_ctx_fence(sht_ctx);
            shmem_ctx_signal_add(sht_ctx, sig, 1, right);
            shmem_ctx_quiet(sht_ctx);
        } else {
            shmem_signal_set(sig, 5, right);
            shmem_fence();
            shmem_signal_add(sig, 7, right);
            shmem_fence();
            shmem_signal_add(sig, 1, right);
            shmem_quiet();
        }
        uint64_t got = shmem_signal_wait_until(sig, cmps[c], against[c]);
        if (cmps[c] == SHMEM_CMP_NE || cmps[c] == SHMEM_CMP_LT || cmps[c] == SHMEM_CMP_LE) {
            /* these hold at 5 and 12 on the way too */
            SHT_CHECK(got == 5 || got == 12 || got == 13, "signal_wait_until(cmp %d) returned %llu", cmps[c],
                      (unsigned long long)got);
            got = shmem_signal_wait_until(sig, SHMEM_CMP_EQ, 13);
        }
        SHT_CHECK(got == 13, "signal_set/add%s, cmp %d: %llu, expected 13", ctx ? " (ctx)" : "", cmps[c],
                  (unsigned long long)got);
        sht_barrier();
    }
}

int main(void)
{
    shmem_init();
    sht_make_ctx(0);
    unsigned char *area = shmem_malloc(NFAMILIES * FAMILY_BYTES);
    heap_sig = shmem_malloc(NFAMILIES * sizeof *heap_sig);
    SHT_CHECK(area && heap_sig, "shmem_malloc returned NULL");
    if (area && heap_sig) {
        put_signals(area);
        signal_updates(heap_sig, 0);
        signal_updates(&static_sig[0], 1);
    }
    sht_barrier();
    shmem_ctx_destroy(sht_ctx);
    shmem_free(heap_sig);
    shmem_free(area);
    return sht_finish("signal");
}
