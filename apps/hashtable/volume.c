/* hashtable's keys and local volume (hashtable.h): where each key belongs,
 * the owner's insert by loads and stores, and the checks of --verify. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hashtable.h"

/* splitmix64's finalizer: a bijection of the 64-bit integers with mix(0) = 0 */
static uint64_t mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* MurmurHash3's finalizer: the placement hash, independent of mix */
static uint64_t placement(uint64_t k)
{
    k = (k ^ (k >> 33)) * 0xFF51AFD7ED558CCDull;
    k = (k ^ (k >> 33)) * 0xC4CEB9FE1A85EC53ull;
    return k ^ (k >> 33);
}

uint64_t key_of(const struct problem *pb, int rank, uint64_t i) { return mix((uint64_t)rank * pb->inserts + i + 1); }

int owner_of(const struct problem *pb, uint64_t key) { return (int)(placement(key) % (uint64_t)pb->nranks); }

uint64_t slot_of(const struct problem *pb, uint64_t key)
{
    return placement(key) / (uint64_t)pb->nranks % pb->table;
}

struct volume volume_layout(const struct problem *pb)
{
    return (struct volume){.words = NULL, .table = pb->table, .capacity = pb->inserts * (uint64_t)pb->nranks};
}

void volume_clear(struct volume *v) { memset(v->words, 0, volume_words(v) * sizeof *v->words); }

void volume_insert_local(struct volume *v, const struct problem *pb, uint64_t key)
{
    uint64_t *w = v->words, slot = slot_of(pb, key);
    if (w[volume_key_at(v, slot)] == 0) {
        w[volume_key_at(v, slot)] = key;
        return;
    }
    uint64_t cell = w[NEXT_FREE]++;
    if (cell >= v->capacity) {
        fprintf(stderr, "hashtable: the overflow heap of %llu cells is full\n", (unsigned long long)v->capacity);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    w[volume_cell_at(v, cell) + CELL_KEY] = key;
    w[volume_cell_at(v, cell) + CELL_NEXT] = w[volume_head_at(v, slot)];
    w[volume_head_at(v, slot)] = cell + 1;
}

/* what --verify found wrong: the first few problems are printed, all counted */
struct findings {
    int rank;
    const char *mode;
    uint64_t problems;
};
enum { PRINTED_PROBLEMS = 10 };

#define PROBLEM(f, ...)                                                                 \
    do {                                                                                \
        if ((f)->problems++ < PRINTED_PROBLEMS) {                                       \
            fprintf(stderr, "hashtable: rank %d mode %s: ", (f)->rank, (f)->mode);      \
            fprintf(stderr, __VA_ARGS__);                                               \
            fputc('\n', stderr);                                                        \
        }                                                                               \
    } while (0)

static int by_value(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* a key found in slot's table entry or chain must belong there */
static void check_placement(const struct problem *pb, uint64_t key, uint64_t slot, struct findings *f)
{
    if (owner_of(pb, key) != f->rank || slot_of(pb, key) != slot)
        PROBLEM(f, "key %#llx found in slot %llu belongs to rank %d slot %llu", (unsigned long long)key,
                (unsigned long long)slot, owner_of(pb, key), (unsigned long long)slot_of(pb, key));
}

/* Walks the table and the chains into found[] (returns how many): every
 * element in its right slot, every chain on a filled slot, every handed-out
 * cell on exactly one chain, the cells never handed out untouched. */
static uint64_t collect(const struct volume *v, const struct problem *pb, uint64_t *found, struct findings *f)
{
    const uint64_t *w = v->words;
    uint64_t handed_out = w[NEXT_FREE], n = 0;
    if (handed_out > v->capacity) {
        PROBLEM(f, "the next free cell %llu is beyond the heap of %llu cells", (unsigned long long)handed_out,
                (unsigned long long)v->capacity);
        handed_out = v->capacity;
    }
    unsigned char *on_chain = calloc(handed_out + 1, 1);
    for (uint64_t slot = 0; slot < v->table; slot++) {
        uint64_t key = w[volume_key_at(v, slot)], link = w[volume_head_at(v, slot)];
        if (key != 0) {
            check_placement(pb, key, slot, f);
            found[n++] = key;
        } else if (link != 0) {
            PROBLEM(f, "slot %llu is empty but has a chain", (unsigned long long)slot);
        }
        for (; link != 0; link = w[volume_cell_at(v, link - 1) + CELL_NEXT]) {
            if (link > handed_out) {
                PROBLEM(f, "slot %llu's chain links to cell %llu, never handed out", (unsigned long long)slot,
                        (unsigned long long)(link - 1));
                break;
            }
            if (on_chain[link]++) {
                PROBLEM(f, "cell %llu is linked twice (slot %llu)", (unsigned long long)(link - 1),
                        (unsigned long long)slot);
                break;
            }
            uint64_t cell_key = w[volume_cell_at(v, link - 1) + CELL_KEY];
            check_placement(pb, cell_key, slot, f);
            found[n++] = cell_key;
        }
    }
    for (uint64_t link = 1; link <= handed_out; link++)
        if (!on_chain[link])
            PROBLEM(f, "cell %llu was handed out but is on no chain", (unsigned long long)(link - 1));
    for (uint64_t i = volume_cell_at(v, handed_out); i < volume_words(v); i++)
        if (w[i] != 0) {
            PROBLEM(f, "the heap beyond the handed-out cells is written (word %llu)", (unsigned long long)i);
            break;
        }
    free(on_chain);
    return n;
}

enum motif_verdict volume_verify(const struct volume *v, const struct problem *pb, int rank, const char *mode)
{
    struct findings f = {.rank = rank, .mode = mode, .problems = 0};
    /* the keys this rank must hold: every rank's keys replayed */
    uint64_t *expected = malloc(v->capacity * sizeof *expected), n_expected = 0;
    uint64_t *found = malloc((v->table + v->capacity) * sizeof *found);
    if (!expected || !found) {
        fprintf(stderr, "hashtable: rank %d: out of memory for --verify\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int r = 0; r < pb->nranks; r++)
        for (uint64_t i = 0; i < pb->inserts; i++) {
            uint64_t key = key_of(pb, r, i);
            if (owner_of(pb, key) == rank)
                expected[n_expected++] = key;
        }
    uint64_t n_found = collect(v, pb, found, &f);
    if (n_found != n_expected)
        PROBLEM(&f, "holds %llu elements, expected %llu", (unsigned long long)n_found,
                (unsigned long long)n_expected);
    /* the same set, each once: merge the sorted lists */
    qsort(expected, n_expected, sizeof *expected, by_value);
    qsort(found, n_found, sizeof *found, by_value);
    uint64_t e = 0, g = 0;
    while (e < n_expected || g < n_found) {
        if (g > 0 && g < n_found && found[g] == found[g - 1]) {
            PROBLEM(&f, "key %#llx is present more than once", (unsigned long long)found[g]);
            g++;
        } else if (g == n_found || (e < n_expected && expected[e] < found[g])) {
            PROBLEM(&f, "key %#llx is missing", (unsigned long long)expected[e]);
            e++;
        } else if (e == n_expected || found[g] < expected[e]) {
            PROBLEM(&f, "key %#llx was never inserted", (unsigned long long)found[g]);
            g++;
        } else {
            e++, g++;
        }
    }
    if (f.problems > PRINTED_PROBLEMS)
        fprintf(stderr, "hashtable: rank %d mode %s: %llu problems in all\n", rank, mode,
                (unsigned long long)f.problems);
    free(expected);
    free(found);
    return f.problems ? MOTIF_FAILED : MOTIF_OK;
}
