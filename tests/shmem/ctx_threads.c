/* Contexts with threads (SHMEM_THREAD_MULTIPLE): 4 threads per PE, each with
 * its own SHMEM_CTX_PRIVATE context, put rounds of data into their own
 * region at the right neighbour, ctx_quiet, then raise the region's flag
 * with an atomic on the same context.  The neighbour's thread of the same
 * number waits for the flag and checks the region at once: ctx_quiet must
 * have completed that context's puts.  It then acknowledges on its own
 * context, and the writer waits for that before the next round.  The
 * threads also check shmem_ctx_get_team and that each context is its own. */
#include <pthread.h>
#include <string.h>

#include "shtest.h"

#define THREADS 4
#define WORDS 4096 /* longs per region per round */
#define ROUNDS 30

struct region {
    long data[WORDS];
    long flag, ack;
};

static struct region *regions; /* symmetric: THREADS regions per PE */
static shmem_ctx_t contexts[THREADS];
static pthread_barrier_t all_threads;

/* While every thread holds its context: each is valid, not the default, its own. */
static void check_contexts(void)
{
    for (int t = 0; t < THREADS; t++) {
        SHT_CHECK(contexts[t] != SHMEM_CTX_INVALID && contexts[t] != SHMEM_CTX_DEFAULT, "thread %d's context is %p",
                  t, (void *)contexts[t]);
        for (int u = 0; u < t; u++)
            SHT_CHECK(contexts[t] != contexts[u], "threads %d and %d have one context", u, t);
    }
}

static long value(int pe, int t, int round, size_t k)
{
    return (long)pe << 40 | (long)t << 32 | (long)round << 20 | (long)k;
}

static void *thread_main(void *arg)
{
    int t = (int)(intptr_t)arg, me = shmem_my_pe(), npes = shmem_n_pes();
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    shmem_ctx_t ctx;
    if (shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) != 0) {
        SHT_CHECK(0, "thread %d: shmem_ctx_create(SHMEM_CTX_PRIVATE) failed", t);
        ctx = SHMEM_CTX_INVALID;
    }
    contexts[t] = ctx;
    pthread_barrier_wait(&all_threads);
    if (t == 0)
        check_contexts();
    if (ctx == SHMEM_CTX_INVALID)
        return NULL; /* the others hang waiting for this thread: the time limit ends the test */
    shmem_team_t team = SHMEM_TEAM_INVALID;
    SHT_CHECK(shmem_ctx_get_team(ctx, &team) == 0 && team == SHMEM_TEAM_WORLD, "thread %d: ctx_get_team", t);
    struct region *mine = &regions[t];
    static _Thread_local long src[WORDS];
    for (int r = 0; r < ROUNDS; r++) {
        for (size_t k = 0; k < WORDS; k++)
            src[k] = value(me, t, r, k);
        /* in two pieces, so the quiet has more than one put to complete */
        shmem_ctx_long_put(ctx, mine->data, src, WORDS / 2, right);
        shmem_ctx_long_put_nbi(ctx, mine->data + WORDS / 2, src + WORDS / 2, WORDS - WORDS / 2, right);
        shmem_ctx_quiet(ctx);
        shmem_ctx_long_atomic_set(ctx, &mine->flag, r + 1, right);
        shmem_ctx_quiet(ctx);
        /* the left neighbour's thread t writes into my region t */
        shmem_long_wait_until(&mine->flag, SHMEM_CMP_GE, r + 1);
        size_t bad = 0;
        for (size_t k = 0; k < WORDS; k++)
            bad += mine->data[k] != value(left, t, r, k);
        SHT_CHECK(bad == 0, "thread %d round %d: %zu of %d words from PE %d missing after its ctx_quiet", t, r, bad,
                  WORDS, left);
        shmem_ctx_long_atomic_set(ctx, &mine->ack, r + 1, left);
        shmem_ctx_quiet(ctx);
        shmem_long_wait_until(&mine->ack, SHMEM_CMP_GE, r + 1);
    }
    shmem_ctx_destroy(ctx);
    return NULL;
}

int main(void)
{
    int provided = -1;
    if (shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided) != 0 || provided != SHMEM_THREAD_MULTIPLE) {
        fprintf(stderr, "shmem_init_thread(SHMEM_THREAD_MULTIPLE) gave %d\n", provided);
        return 1;
    }
    regions = shmem_calloc(THREADS, sizeof *regions);
    SHT_CHECK(regions != NULL, "shmem_calloc returned NULL");
    if (regions) {
        pthread_t th[THREADS];
        pthread_barrier_init(&all_threads, NULL, THREADS);
        for (int t = 0; t < THREADS; t++)
            pthread_create(&th[t], NULL, thread_main, (void *)(intptr_t)t);
        for (int t = 0; t < THREADS; t++)
            pthread_join(th[t], NULL);
        pthread_barrier_destroy(&all_threads);
    }
    sht_barrier();
    shmem_free(regions);
    return sht_finish("ctx_threads");
}
