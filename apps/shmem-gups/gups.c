/* shmem-gups --mode gups: HPCC RandomAccess on OpenSHMEM atomics (main.c
 * describes it): random updates of a table spread over the PEs, each an atomic
 * on the owner's word, and the exact check by replaying every PE's stream. */
#include <stdio.h>
#include <stdlib.h>

#include "shmem_gups.h"

struct gups {
    const struct options *o;
    unsigned long long *table; /* symmetric: 2^log_table words on every PE */
    uint64_t mask;             /* 2^log_table - 1 */
    int npes;
};

/* PE pe's stream is splitmix64's from a seed of its own: update i is
 * mix64(seed + (i + 1) * gamma), so a worker starts anywhere in the stream and
 * any PE can replay any other's. */
static uint64_t stream_seed(int pe) { return mix64(0x5348474D5550ull + (uint64_t)pe); }
static uint64_t stream_value(uint64_t seed, unsigned long long i)
{
    return mix64(seed + (i + 1) * 0x9E3779B97F4A7C15ull);
}

/* where update r goes: a word from its low bits (log_table <= 31), the owner
 * from its high 32 bits, so the two are independent */
static int owner_of(const struct gups *g, uint64_t r) { return (int)((r >> 32) % (uint64_t)g->npes); }

/* word w of PE pe before any update: its global index, as HPCC's */
static unsigned long long initial_value(const struct gups *g, int pe, uint64_t w)
{
    return ((unsigned long long)pe << g->o->log_table) + w;
}

static void apply_locally(enum gups_op op, unsigned long long *word, unsigned long long value)
{
    if (op == OP_XOR)
        *word ^= value;
    else
        *word += value;
}

/* the value --inject-corruption changes: PE 0's first update, one bit off */
static unsigned long long update_value(const struct options *o, int me, unsigned long long i, uint64_t r)
{
    return r ^ (unsigned long long)(o->inject_corruption && me == 0 && i == 0);
}

/* one update on the owner's word, on ctx; fetched: where --fetch nbi puts the old value */
static void update(const struct options *o, shmem_ctx_t ctx, unsigned long long *word, unsigned long long value,
                   int owner, unsigned long long *fetched)
{
    switch (o->fetch) {
    case FETCH_NONE:
        if (o->op == OP_XOR)
            shmem_ctx_ulonglong_atomic_xor(ctx, word, value, owner);
        else
            shmem_ctx_ulonglong_atomic_add(ctx, word, value, owner);
        break;
    case FETCH_BLOCKING:
        if (o->op == OP_XOR)
            *fetched = shmem_ctx_ulonglong_atomic_fetch_xor(ctx, word, value, owner);
        else
            *fetched = shmem_ctx_ulonglong_atomic_fetch_add(ctx, word, value, owner);
        break;
    case FETCH_NBI:
#if GUPS_SHMEM_1_5
        if (o->op == OP_XOR)
            shmem_ctx_ulonglong_atomic_fetch_xor_nbi(ctx, fetched, word, value, owner);
        else
            shmem_ctx_ulonglong_atomic_fetch_add_nbi(ctx, fetched, word, value, owner);
#endif
        break;
    }
}

/* a worker's share of this PE's updates, with a quiet every --batch of them */
static void issue_updates(const struct worker *w, void *arg)
{
    const struct gups *g = arg;
    const struct options *o = g->o;
    int me = shmem_my_pe();
    uint64_t seed = stream_seed(me);
    /* --fetch nbi: the old values of a batch land here until its quiet */
    unsigned long long batch = o->batch ? o->batch : 1, in_batch = 0;
    unsigned long long *fetched = malloc((o->fetch == FETCH_NBI ? batch : 1) * sizeof *fetched);
    if (!fetched) {
        fprintf(stderr, "shmem-gups: PE %d: out of memory for a batch of %llu\n", me, batch);
        shmem_global_exit(1);
    }
    for (unsigned long long i = w->first; i < w->end; i++) {
        uint64_t r = stream_value(seed, i);
        update(o, w->ctx, &g->table[r & g->mask], update_value(o, me, i, r), owner_of(g, r),
               &fetched[o->fetch == FETCH_NBI ? in_batch : 0]);
        if (o->batch && ++in_batch == o->batch) {
            shmem_ctx_quiet(w->ctx);
            in_batch = 0;
        }
    }
    free(fetched);
}

/* every word of this PE's table against the replay of every PE's stream */
static long long verify(const struct gups *g)
{
    const struct options *o = g->o;
    int me = shmem_my_pe();
    uint64_t words = g->mask + 1;
    long long problems = 0;
    unsigned long long *expected = malloc(words * sizeof *expected);
    if (!expected) {
        fprintf(stderr, "shmem-gups: PE %d: out of memory for --verify\n", me);
        shmem_global_exit(1);
    }
    for (uint64_t w = 0; w < words; w++)
        expected[w] = initial_value(g, me, w);
    /* atomic updates all happen, and XOR and wrapping addition commute: the
     * order the network applied them in does not matter */
    for (int pe = 0; pe < g->npes; pe++) {
        uint64_t seed = stream_seed(pe);
        for (unsigned long long i = 0; i < o->updates; i++) {
            uint64_t r = stream_value(seed, i);
            if (owner_of(g, r) == me)
                apply_locally(o->op, &expected[r & g->mask], r);
        }
    }
    unsigned long long wrong = 0;
    for (uint64_t w = 0; w < words; w++)
        if (g->table[w] != expected[w]) {
            wrong++;
            problem(&problems, "gups", "word %llu is %#llx, expected %#llx", (unsigned long long)w, g->table[w],
                    expected[w]);
        }
    if (wrong)
        fprintf(stderr, "shmem-gups: PE %d: gups: %llu of %llu words wrong\n", me, wrong, (unsigned long long)words);
    problems_summary(problems, "gups");
    free(expected);
    return problems;
}

int run_gups(const struct options *o)
{
    struct gups g = {.o = o, .mask = (1ull << o->log_table) - 1, .npes = shmem_n_pes()};
    int me = shmem_my_pe();
    g.table = shmem_malloc((g.mask + 1) * sizeof *g.table);
    if (!g.table) {
        if (me == 0)
            fprintf(stderr, "shmem-gups: shmem_malloc of a table of 2^%d words failed\n", o->log_table);
        return 1;
    }
    for (uint64_t w = 0; w <= g.mask; w++)
        g.table[w] = initial_value(&g, me, w);

    struct phases t = {0};
    phase_add(&t, "update", run_workers(o->threads, o->updates, issue_updates, &g));
    double t0 = now_seconds();
    shmem_barrier_all();
    phase_add(&t, "sync", now_seconds() - t0);

    long long problems = o->verify ? verify(&g) : -1;
    int failed = report("gups", &t, "gups", (double)o->updates * g.npes, 1e9, NULL, problems);
    shmem_free(g.table);
    return failed;
}
