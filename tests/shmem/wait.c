/* Point-to-point synchronization: wait_until and test, their _all, _any and
 * _some forms and the _vector forms of those, with status masks, for every
 * type of the synchronization table, through the typed names and the C11
 * generic interface; and the deprecated shmem_TYPE_wait, shmem_wait and the
 * untyped shmem_wait_until.
 *
 * PEs work in pairs (a PE without a partner is its own): in one phase the
 * lower PE of a pair is the producer, in the next the upper one.  The
 * producer sets the consumer's words one by one (atomic set, quiet, a pause,
 * so that the consumer really waits); the consumer checks every index and
 * count the routines return against what can have been set.  Word MASKED_SAT
 * holds the condition from the start but is masked out, so a routine that
 * ignores the mask returns it; word MASKED_UNSAT never holds and is masked
 * out, so an _all that ignores the mask never returns (the time limit). */
#include <string.h>
#include <unistd.h>

#include "shtest.h"

#define NW 7
#define MASKED_SAT 2
#define MASKED_UNSAT 5
#define PAUSE_US 200
static const size_t ORDER[] = {4, 0, 6, 1, 3}; /* the producer's order over the unmasked words */
#define NSET (sizeof ORDER / sizeof ORDER[0])

enum form { SINGLE, ANY, SOME, ALL, ANY_V, SOME_V, ALL_V, NFORMS };
static const char *const FORM_NAME[] = {"", "_any", "_some", "_all", "_any_vector", "_some_vector", "_all_vector"};

/* Per form: the comparison, what the words hold before, and (scalar forms)
 * the value compared with; vector forms compare word i with i + 1. */
static const int CMP[] = {SHMEM_CMP_EQ, SHMEM_CMP_EQ, SHMEM_CMP_GT, SHMEM_CMP_GE,
                          SHMEM_CMP_LE, SHMEM_CMP_EQ, SHMEM_CMP_GE};
static const int INIT[] = {0, 0, 0, 0, 100, 0, 0};
#define SCALAR 7
static int is_vector(enum form f) { return f >= ANY_V; }
/* the value the producer gives word i: it makes the comparison hold */
static long satisfying(enum form f, size_t i) { return is_vector(f) ? (long)i + 1 : SCALAR + (CMP[f] == SHMEM_CMP_GT); }

static int status_of(size_t i) { return i == MASKED_SAT || i == MASKED_UNSAT; }

#define DEFINE(ID, T)                                                                                         \
    static void produce_##ID(T *w, enum form f, int pe)                                                       \
    {                                                                                                         \
        for (size_t j = 0; j < NSET; j++) {                                                                   \
            usleep(PAUSE_US);                                                                                 \
            shmem_##ID##_atomic_set(&w[ORDER[j]], (T)satisfying(f, ORDER[j]), pe);                            \
            shmem_quiet();                                                                                    \
        }                                                                                                     \
    }                                                                                                         \
    static void prepare_##ID(T *w, enum form f)                                                               \
    {                                                                                                         \
        for (size_t i = 0; i < NW; i++)                                                                       \
            w[i] = (T)INIT[f];                                                                                \
        w[MASKED_SAT] = (T)satisfying(f, MASKED_SAT);                                                         \
    }                                                                                                         \
    /* Waits for every unmasked word with the form's routine; gen: through the generic names. */              \
    static void consume_##ID(T *w, enum form f, int gen)                                                      \
    {                                                                                                         \
        int status[NW], cmp = CMP[f];                                                                         \
        T value = (T)SCALAR, values[NW];                                                                      \
        size_t indices[NW], seen = 0, r;                                                                      \
        for (size_t i = 0; i < NW; i++)                                                                       \
            status[i] = status_of(i), values[i] = (T)(i + 1);                                                 \
        const char *name = gen ? "generic" : #ID;                                                             \
        switch (f) {                                                                                          \
        case SINGLE:                                                                                          \
            for (size_t j = 0; j < NSET; j++) {                                                               \
                if (gen)                                                                                      \
                    shmem_wait_until(&w[ORDER[j]], cmp, value);                                               \
                else                                                                                          \
                    shmem_##ID##_wait_until(&w[ORDER[j]], cmp, value);                                        \
                SHT_CHECK(shmem_##ID##_test(&w[ORDER[j]], cmp, value) == 1, "%s test after wait_until", name); \
            }                                                                                                 \
            r = gen ? (size_t)shmem_test(&w[MASKED_UNSAT], cmp, value)                                        \
                    : (size_t)shmem_##ID##_test(&w[MASKED_UNSAT], cmp, value);                                \
            SHT_CHECK(r == 0, "%s test on a word that does not hold", name);                                  \
            return;                                                                                           \
        case ANY:                                                                                             \
        case ANY_V:                                                                                           \
            while (seen < NSET) {                                                                             \
                if (f == ANY)                                                                                 \
                    r = gen ? shmem_wait_until_any(w, NW, status, cmp, value)                                 \
                            : shmem_##ID##_wait_until_any(w, NW, status, cmp, value);                         \
                else                                                                                          \
                    r = gen ? shmem_wait_until_any_vector(w, NW, status, cmp, values)                         \
                            : shmem_##ID##_wait_until_any_vector(w, NW, status, cmp, values);                 \
                if (!take(name, f, r, status, w[r < NW ? r : 0] == (T)satisfying(f, r)))                      \
                    return;                                                                                   \
                seen++;                                                                                       \
            }                                                                                                 \
            /* everything masked: SIZE_MAX at once */                                                         \
            r = f == ANY ? shmem_##ID##_test_any(w, NW, status, cmp, value)                                   \
                         : shmem_##ID##_test_any_vector(w, NW, status, cmp, values);                          \
            SHT_CHECK(r == SIZE_MAX, "%s test%s with every word masked: %zu", name, FORM_NAME[f], r);         \
            r = f == ANY ? shmem_##ID##_wait_until_any(w, NW, status, cmp, value)                             \
                         : shmem_##ID##_wait_until_any_vector(w, NW, status, cmp, values);                    \
            SHT_CHECK(r == SIZE_MAX, "%s wait_until%s with every word masked: %zu", name, FORM_NAME[f], r);   \
            return;                                                                                           \
        case SOME:                                                                                            \
        case SOME_V:                                                                                          \
            while (seen < NSET) {                                                                             \
                size_t n;                                                                                     \
                if (f == SOME)                                                                                \
                    n = gen ? shmem_wait_until_some(w, NW, indices, status, cmp, value)                       \
                            : shmem_##ID##_wait_until_some(w, NW, indices, status, cmp, value);               \
                else                                                                                          \
                    n = gen ? shmem_wait_until_some_vector(w, NW, indices, status, cmp, values)               \
                            : shmem_##ID##_wait_until_some_vector(w, NW, indices, status, cmp, values);       \
                SHT_CHECK(n >= 1 && n <= NSET - seen, "%s wait_until%s returned %zu with %zu of %zu seen",    \
                          name, FORM_NAME[f], n, seen, NSET);                                                 \
                if (n < 1 || n > NSET - seen)                                                                 \
                    return;                                                                                   \
                for (size_t j = 0; j < n; j++)                                                                \
                    if (!take(name, f, indices[j], status,                                                    \
                              w[indices[j] < NW ? indices[j] : 0] == (T)satisfying(f, indices[j])))           \
                        return;                                                                               \
                seen += n;                                                                                    \
            }                                                                                                 \
            r = f == SOME ? shmem_##ID##_test_some(w, NW, indices, status, cmp, value)                        \
                          : shmem_##ID##_test_some_vector(w, NW, indices, status, cmp, values);               \
            SHT_CHECK(r == 0, "%s test%s with every word masked: %zu", name, FORM_NAME[f], r);                \
            return;                                                                                           \
        case ALL:                                                                                             \
        case ALL_V:                                                                                           \
            if (f == ALL) {                                                                                   \
                if (gen)                                                                                      \
                    shmem_wait_until_all(w, NW, status, cmp, value);                                          \
                else                                                                                          \
                    shmem_##ID##_wait_until_all(w, NW, status, cmp, value);                                   \
            } else {                                                                                          \
                if (gen)                                                                                      \
                    shmem_wait_until_all_vector(w, NW, status, cmp, values);                                  \
                else                                                                                          \
                    shmem_##ID##_wait_until_all_vector(w, NW, status, cmp, values);                           \
            }                                                                                                 \
            for (size_t j = 0; j < NSET; j++)                                                                 \
                SHT_CHECK(w[ORDER[j]] == (T)satisfying(f, ORDER[j]), "%s wait_until%s returned before word %zu", \
                          name, FORM_NAME[f], ORDER[j]);                                                      \
            r = f == ALL ? (size_t)shmem_##ID##_test_all(w, NW, status, cmp, value)                           \
                         : (size_t)shmem_##ID##_test_all_vector(w, NW, status, cmp, values);                  \
            SHT_CHECK(r == 1, "%s test%s after wait_until%s: %zu", name, FORM_NAME[f], FORM_NAME[f], r);      \
            /* without the mask, the word that never holds makes it false */                                  \
            r = f == ALL ? (size_t)shmem_##ID##_test_all(w, NW, NULL, cmp, value)                             \
                         : (size_t)shmem_##ID##_test_all_vector(w, NW, NULL, cmp, values);                    \
            SHT_CHECK(r == 0, "%s test%s without a mask: %zu", name, FORM_NAME[f], r);                        \
            return;                                                                                           \
        default: return;                                                                                      \
        }                                                                                                     \
    }

/* Records index r returned by an _any or _some routine: it must be a word
 * that holds (ok), unmasked and not returned before; masks it for the next call. */
static int take(const char *name, enum form f, size_t r, int *status, int ok)
{
    SHT_CHECK(r < NW && !status[r] && ok, "%s wait_until%s returned index %zu (%s)", name, FORM_NAME[f], r,
              r >= NW ? "out of range" : status[r] ? "masked or returned before" : "its word does not hold");
    if (r >= NW || status[r] || !ok)
        return 0;
    status[r] = 1;
    return 1;
}

SHT_SYNC_TYPES(DEFINE)

/* The pairs: in phase 0 the lower PE produces for the upper, in phase 1 the
 * reverse; a PE without a partner produces for itself, then consumes. */
static int partner(void)
{
    int me = shmem_my_pe(), p = me ^ 1;
    return p < shmem_n_pes() ? p : me;
}

#define TYPE_BYTES 64 /* NW words of up to 8 bytes */
#define ONE(...) +1
#define NTYPES (0 SHT_SYNC_TYPES(ONE))

/* Every form, through the typed and the generic names, in both phases; all
 * types at once, each on words of its own: the producer sets each type's
 * words in turn, the consumer waits for each type's in the same turn. */
static void rounds(unsigned char *words)
{
    int me = shmem_my_pe(), p = partner();
    for (enum form f = 0; f < NFORMS; f++)
        for (int gen = 0; gen < 2; gen++)
            for (int phase = 0; phase < 2; phase++) {
                int producer = p == me ? phase == 0 : (phase == 0) == (me < p);
                int consumer = p == me ? phase == 0 : !producer;
                int type = 0;
#define TYPE_WORDS(T) ((T *)(words + (size_t)type++ * TYPE_BYTES))
#define PREPARE(ID, T) prepare_##ID(TYPE_WORDS(T), f);
#define PRODUCE(ID, T) produce_##ID(TYPE_WORDS(T), f, p);
#define CONSUME(ID, T) consume_##ID(TYPE_WORDS(T), f, gen);
                SHT_SYNC_TYPES(PREPARE)
                sht_barrier();
                type = 0;
                if (producer) {
                    SHT_SYNC_TYPES(PRODUCE)
                }
                type = 0;
                if (consumer) {
                    SHT_SYNC_TYPES(CONSUME)
                }
                sht_barrier();
            }
}

/* The deprecated waits: wait while the word equals the value.  The producer
 * sets the words after a pause; shmem_wait_until here is the untyped long one. */
#define OLD_TYPES(X) X(short, short, 0) X(int, int, 8) X(long, long, 16) X(longlong, long long, 24)
#define AT(T, off) ((T *)((char *)words + (off)))
static void deprecated(void *words)
{
    int me = shmem_my_pe(), p = partner();
    for (int phase = 0; phase < 2; phase++) {
        int producer = p == me ? phase == 0 : (phase == 0) == (me < p);
        int consumer = p == me ? phase == 0 : !producer;
        memset(words, 0, 48);
        sht_barrier();
        if (producer) {
            usleep(PAUSE_US);
#define OLD_SET(ID, T, off) shmem_##ID##_p(AT(T, off), 1, p);
            OLD_TYPES(OLD_SET)
            shmem_long_p(AT(long, 32), 5, p);
            shmem_long_p(AT(long, 40), 9, p);
            shmem_quiet();
        }
        if (consumer) {
#define OLD_WAIT(ID, T, off)                                                                                  \
    shmem_##ID##_wait(AT(T, off), 0);                                                                         \
    SHT_CHECK(*AT(T, off) == 1, "shmem_" #ID "_wait returned while the word was 0");
            OLD_TYPES(OLD_WAIT)
            shmem_wait(AT(long, 32), 0);
            SHT_CHECK(*AT(long, 32) == 5, "shmem_wait returned while the word was 0");
            (shmem_wait_until)(AT(long, 40), SHMEM_CMP_EQ, 9);
            SHT_CHECK(*AT(long, 40) == 9, "shmem_wait_until (untyped) returned early");
            shmem_short_wait_until(AT(short, 0), SHMEM_CMP_EQ, 1);
        }
        sht_barrier();
    }
}

int main(void)
{
    shmem_init();
    unsigned char *words = shmem_malloc(NTYPES * TYPE_BYTES); /* the deprecated waits use 48 bytes */
    SHT_CHECK(words != NULL, "shmem_malloc returned NULL");
    if (words) {
        rounds(words);
        deprecated(words);
    }
    shmem_free(words);
    return sht_finish("wait");
}
