/* shmem-gups --mode hash: a distributed hash table of 64-bit keys on
 * OpenSHMEM atomics (main.c describes it): open addressing with a bounded
 * linear probe by compare-and-swap, an overflow area claimed by fetch-and-
 * increment, and the check that every key is present exactly once. */
#include <stdio.h>
#include <stdlib.h>

#include "shmem_gups.h"

/* A PE's part of the table, one symmetric array of words:
 *
 *   [overflow used | slots[slots] | overflow[capacity]]
 *
 * A slot holds a key or 0 (empty).  Overflow cells 0 .. used - 1 have been
 * claimed, each by one insert, which then sets the key into it. */
struct hash {
    const struct options *o;
    unsigned long long *words;
    unsigned long long capacity; /* overflow cells: every key of every PE, the worst case */
    unsigned long long window;   /* slots an insert tries: --probes, at most all of them */
    int npes;
};
enum { OVERFLOW_USED = 0 };

static unsigned long long *slot_word(const struct hash *h, unsigned long long slot) { return &h->words[1 + slot]; }
static unsigned long long *overflow_word(const struct hash *h, unsigned long long cell)
{
    return &h->words[1 + h->o->slots + cell];
}

/* key i of PE pe: mix64 of the global number pe * inserts + i + 1, so keys are
 * distinct across all PEs and never 0 (mix64 is a bijection with mix64(0) = 0) */
static uint64_t key_of(const struct options *o, int pe, unsigned long long i)
{
    return mix64((uint64_t)pe * o->inserts + i + 1);
}

/* MurmurHash3's finalizer: where a key lives, independent of mix64 */
static uint64_t placement(uint64_t key)
{
    key = (key ^ (key >> 33)) * 0xFF51AFD7ED558CCDull;
    key = (key ^ (key >> 33)) * 0xC4CEB9FE1A85EC53ull;
    return key ^ (key >> 33);
}
static int owner_of(const struct hash *h, uint64_t key) { return (int)(placement(key) % (uint64_t)h->npes); }
static unsigned long long home_of(const struct hash *h, uint64_t key)
{
    return placement(key) / (uint64_t)h->npes % h->o->slots;
}

/* the key --inject-corruption changes: PE 0's first, one bit off, as if the
 * wrong key had been stored (its owner finds a stranger, the right owner a gap) */
static uint64_t inserted_key(const struct options *o, int me, unsigned long long i)
{
    return key_of(o, me, i) ^ (uint64_t)(o->inject_corruption && me == 0 && i == 0);
}

/* Inserts key at its owner: a compare-and-swap from empty into each slot of
 * its window in turn; when all are taken, fetch-and-increment claims a cell of
 * the overflow area and an atomic set stores the key there (the cell is the
 * claimer's alone, but the set is an atomic like every other access to the
 * table, so no PE mixes atomics and plain stores on a word). */
static void insert(const struct hash *h, shmem_ctx_t ctx, uint64_t key)
{
    int owner = owner_of(h, key);
    unsigned long long home = home_of(h, key);
    for (unsigned long long probe = 0; probe < h->window; probe++) {
        unsigned long long *slot = slot_word(h, (home + probe) % h->o->slots);
        unsigned long long before = shmem_ctx_ulonglong_atomic_compare_swap(ctx, slot, 0, key, owner);
        if (before == 0 || before == key) /* stored, or there already */
            return;
    }
    unsigned long long cell = shmem_ctx_ulonglong_atomic_fetch_inc(ctx, &h->words[OVERFLOW_USED], owner);
    if (cell >= h->capacity) { /* cannot happen: the area holds every key there is */
        fprintf(stderr, "shmem-gups: PE %d: hash: PE %d's overflow area of %llu cells is full\n", shmem_my_pe(),
                owner, h->capacity);
        shmem_global_exit(1);
    }
    shmem_ctx_ulonglong_atomic_set(ctx, overflow_word(h, cell), key, owner);
}

static void insert_keys(const struct worker *w, void *arg)
{
    const struct hash *h = arg;
    int me = shmem_my_pe();
    for (unsigned long long i = w->first; i < w->end; i++)
        insert(h, w->ctx, inserted_key(h->o, me, i));
}

static int by_value(const void *a, const void *b)
{
    unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b;
    return (x > y) - (x < y);
}

/* a key found in this PE's part must be owned by it */
static void check_owner(const struct hash *h, uint64_t key, const char *where, unsigned long long index,
                        long long *problems)
{
    int owner = owner_of(h, key);
    if (owner != shmem_my_pe())
        problem(problems, "hash", "key %#llx in %s %llu belongs to PE %d", (unsigned long long)key, where, index,
                owner);
}

/* Collects this PE's keys into found[] (returns how many), checking where each
 * one is: a slot's key within its window from its home slot; an overflowed key
 * only when every slot of its window is taken (an insert overflows only then,
 * and slots are never emptied); the cells beyond the claimed ones untouched. */
static unsigned long long collect(const struct hash *h, unsigned long long *found, long long *problems)
{
    const struct options *o = h->o;
    unsigned long long n = 0;
    for (unsigned long long s = 0; s < o->slots; s++) {
        uint64_t key = *slot_word(h, s);
        if (key == 0)
            continue;
        check_owner(h, key, "slot", s, problems);
        unsigned long long distance = (s + o->slots - home_of(h, key)) % o->slots;
        if (owner_of(h, key) == shmem_my_pe() && distance >= h->window)
            problem(problems, "hash", "key %#llx in slot %llu, %llu slots from its home slot %llu (window %llu)",
                    (unsigned long long)key, s, distance, home_of(h, key), h->window);
        found[n++] = key;
    }
    unsigned long long used = h->words[OVERFLOW_USED];
    if (used > h->capacity) {
        problem(problems, "hash", "%llu overflow cells claimed, beyond the %llu there are", used, h->capacity);
        used = h->capacity;
    }
    for (unsigned long long c = 0; c < used; c++) {
        uint64_t key = *overflow_word(h, c);
        if (key == 0) {
            problem(problems, "hash", "overflow cell %llu was claimed but holds no key", c);
            continue;
        }
        check_owner(h, key, "overflow cell", c, problems);
        if (owner_of(h, key) == shmem_my_pe())
            for (unsigned long long probe = 0; probe < h->window; probe++) {
                unsigned long long s = (home_of(h, key) + probe) % o->slots;
                if (*slot_word(h, s) == 0) {
                    problem(problems, "hash", "key %#llx overflowed, but slot %llu of its window is empty",
                            (unsigned long long)key, s);
                    break;
                }
            }
        found[n++] = key;
    }
    for (unsigned long long c = used; c < h->capacity; c++)
        if (*overflow_word(h, c) != 0) {
            problem(problems, "hash", "overflow cell %llu was never claimed but is written", c);
            break;
        }
    return n;
}

/* Every key this PE owns, of every PE's inserts replayed, is present exactly
 * once, and no other key is; *held: how many keys this PE holds. */
static long long verify(const struct hash *h, unsigned long long *held)
{
    const struct options *o = h->o;
    int me = shmem_my_pe();
    long long problems = 0;
    unsigned long long *expected = malloc(h->capacity * sizeof *expected), n_expected = 0;
    unsigned long long *found = malloc((o->slots + h->capacity) * sizeof *found);
    if (!expected || !found) {
        fprintf(stderr, "shmem-gups: PE %d: out of memory for --verify\n", me);
        shmem_global_exit(1);
    }
    for (int pe = 0; pe < h->npes; pe++)
        for (unsigned long long i = 0; i < o->inserts; i++) {
            uint64_t key = key_of(o, pe, i);
            if (owner_of(h, key) == me)
                expected[n_expected++] = key;
        }
    unsigned long long n_found = collect(h, found, &problems);
    *held = n_found;
    if (n_found != n_expected)
        problem(&problems, "hash", "holds %llu keys, expected %llu", n_found, n_expected);
    /* the same set, each once: merge the sorted lists */
    qsort(expected, n_expected, sizeof *expected, by_value);
    qsort(found, n_found, sizeof *found, by_value);
    unsigned long long e = 0, f = 0;
    while (e < n_expected || f < n_found) {
        if (f > 0 && f < n_found && found[f] == found[f - 1]) {
            problem(&problems, "hash", "key %#llx is present more than once", found[f]);
            f++;
        } else if (f == n_found || (e < n_expected && expected[e] < found[f])) {
            problem(&problems, "hash", "key %#llx is missing", expected[e]);
            e++;
        } else if (e == n_expected || found[f] < expected[e]) {
            problem(&problems, "hash", "key %#llx was never inserted", found[f]);
            f++;
        } else {
            e++, f++;
        }
    }
    problems_summary(problems, "hash");
    free(expected);
    free(found);
    return problems;
}

int run_hash(const struct options *o)
{
    int me = shmem_my_pe();
    struct hash h = {.o = o, .npes = shmem_n_pes()};
    h.capacity = o->inserts * (unsigned long long)h.npes;
    h.window = o->probes < o->slots ? o->probes : o->slots;
    size_t words = 1 + o->slots + h.capacity;
    h.words = shmem_malloc(words * sizeof *h.words);
    if (!h.words) {
        if (me == 0)
            fprintf(stderr, "shmem-gups: shmem_malloc of a hash table of %zu words failed\n", words);
        return 1;
    }
    /* zeroed here, not by shmem_calloc: OSHMEM's zeroes after its barrier, when
     * a faster PE may have inserted already (run_workers' barrier orders this) */
    for (size_t i = 0; i < words; i++)
        h.words[i] = 0;

    struct phases t = {0};
    phase_add(&t, "insert", run_workers(o->threads, o->inserts, insert_keys, &h));
    double t0 = now_seconds();
    shmem_barrier_all();
    phase_add(&t, "sync", now_seconds() - t0);

    unsigned long long held = 0;
    long long problems = o->verify ? verify(&h, &held) : -1;
    /* the keys held, summed over the owners, against what the inserting PEs know */
    long long totals[2] = {(long long)held, (long long)h.words[OVERFLOW_USED]};
    reduce_sum_longlong(totals, 2);
    long long inserted = (long long)(o->inserts * (unsigned long long)h.npes);
    if (o->verify && me == 0 && totals[0] != inserted)
        problem(&problems, "hash", "the PEs hold %lld keys in all, %lld were inserted", totals[0], inserted);
    char extra[64];
    snprintf(extra, sizeof extra, "overflowed=%lld", totals[1]);
    int failed = report("hash", &t, "inserts_per_s", (double)inserted, 1, extra, problems);
    shmem_free(h.words);
    return failed;
}
