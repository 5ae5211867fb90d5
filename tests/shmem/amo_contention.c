/* Atomics under contention, checked exactly:
 *   - every PE fetch_adds 1 to one heap word at PE 0: the values returned,
 *     over all PEs, are 0 .. total-1 each exactly once; and incs one static
 *     word at PE 0: it ends at the count;
 *   - the same fetch_add from 4 threads per PE (SHMEM_THREAD_MULTIPLE);
 *   - a compare_swap ring: PE p may move the word at PE 0 from k*n+p to
 *     k*n+p+1 only, so the PEs take turns in order; a lost or doubled update
 *     stops the ring (the test's time limit) or shows in the final value;
 *   - a swap chain: every PE swaps distinct values into one word; the values
 *     swapped out plus the final one are the initial value and every value
 *     swapped in, each exactly once. */
#include <pthread.h>
#include <string.h>

#include "shtest.h"

#define ITERS 1000
#define THREADS 4
#define THREAD_ITERS 500
#define RING_ROUNDS 10
#define SWAPS 50

static long ring;          /* static data: atomics through the static region */
static long inc_counter;
static long swap_word = -1;

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

/* PE 0: all[0..count) sorted is first, first+1, ... (each once). */
static void expect_permutation(const char *what, long *all, size_t count, long first)
{
    qsort(all, count, sizeof *all, cmp_long);
    size_t bad = 0;
    for (size_t i = 0; i < count; i++)
        if (all[i] != first + (long)i && bad++ < 5)
            SHT_CHECK(0, "%s: sorted value %zu is %ld, expected %ld", what, i, all[i], first + (long)i);
    SHT_CHECK(bad == 0, "%s: %zu of %zu values wrong", what, bad, count);
}

/* Gathers every PE's `count` values at PE 0. */
static long *gather(const long *mine, int count)
{
    long *all = shmem_my_pe() == 0 ? malloc(sizeof(long) * (size_t)count * (size_t)shmem_n_pes()) : NULL;
    MPI_Gather(mine, count, MPI_LONG, all, count, MPI_LONG, 0, MPI_COMM_WORLD);
    return all;
}

static void fetch_add_all(long *word)
{
    long got[ITERS];
    for (int i = 0; i < ITERS; i++) {
        got[i] = shmem_long_atomic_fetch_add(word, 1, 0);
        shmem_long_atomic_inc(&inc_counter, 0);
    }
    sht_barrier();
    long *all = gather(got, ITERS);
    if (shmem_my_pe() == 0) {
        expect_permutation("fetch_add from every PE", all, (size_t)ITERS * (size_t)shmem_n_pes(), 0);
        SHT_CHECK(*word == (long)ITERS * shmem_n_pes(), "fetch_add: the word is %ld", *word);
        SHT_CHECK(inc_counter == (long)ITERS * shmem_n_pes(), "inc: the word is %ld", inc_counter);
    }
    free(all);
}

struct thread_arg {
    long *word;
    long got[THREAD_ITERS];
};

static void *thread_main(void *p)
{
    struct thread_arg *a = p;
    for (int i = 0; i < THREAD_ITERS; i++)
        a->got[i] = shmem_long_atomic_fetch_add(a->word, 1, 0);
    return NULL;
}

static void fetch_add_threads(long *word)
{
    static struct thread_arg args[THREADS];
    pthread_t th[THREADS];
    for (int t = 0; t < THREADS; t++) {
        args[t].word = word;
        pthread_create(&th[t], NULL, thread_main, &args[t]);
    }
    long mine[THREADS * THREAD_ITERS];
    for (int t = 0; t < THREADS; t++) {
        pthread_join(th[t], NULL);
        memcpy(mine + t * THREAD_ITERS, args[t].got, sizeof args[t].got);
    }
    sht_barrier();
    long *all = gather(mine, THREADS * THREAD_ITERS);
    if (shmem_my_pe() == 0)
        expect_permutation("fetch_add from 4 threads per PE", all,
                           (size_t)THREADS * THREAD_ITERS * (size_t)shmem_n_pes(), 0);
    free(all);
}

static void compare_swap_ring(void)
{
    int me = shmem_my_pe(), npes = shmem_n_pes();
    for (long k = 0; k < RING_ROUNDS; k++) {
        long mine = k * npes + me, old;
        while ((old = shmem_long_atomic_compare_swap(&ring, mine, mine + 1, 0)) != mine) {
            if (old > mine) {
                SHT_CHECK(0, "compare_swap ring: the word passed %ld (it is %ld) without this PE", mine, old);
                return;
            }
        }
    }
    sht_barrier();
    if (me == 0)
        SHT_CHECK(ring == (long)RING_ROUNDS * npes, "compare_swap ring ends at %ld, expected %ld", ring,
                  (long)RING_ROUNDS * npes);
}

static void swap_chain(void)
{
    int me = shmem_my_pe(), npes = shmem_n_pes();
    long out[SWAPS];
    for (int i = 0; i < SWAPS; i++)
        out[i] = shmem_long_atomic_swap(&swap_word, (long)i * npes + me, 0);
    sht_barrier();
    long *all = gather(out, SWAPS);
    if (me == 0) {
        size_t count = (size_t)SWAPS * (size_t)npes;
        all = realloc(all, (count + 1) * sizeof *all);
        all[count] = swap_word; /* swapped out: -1 and all but the last value swapped in */
        expect_permutation("swap chain", all, count + 1, -1);
    }
    free(all);
}

int main(void)
{
    int provided = -1;
    if (shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided) != 0 || provided != SHMEM_THREAD_MULTIPLE) {
        fprintf(stderr, "shmem_init_thread(SHMEM_THREAD_MULTIPLE) gave %d\n", provided);
        return 1;
    }
    long *words = shmem_calloc(2, sizeof(long));
    SHT_CHECK(words != NULL, "shmem_calloc returned NULL");
    if (words) {
        fetch_add_all(&words[0]);
        fetch_add_threads(&words[1]);
        compare_swap_ring();
        swap_chain();
    }
    sht_barrier();
    shmem_free(words);
    return sht_finish("amo_contention");
}
