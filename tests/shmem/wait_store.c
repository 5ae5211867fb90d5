/* Waits end when the word changes by a plain store, the ways a program may
 * change it on the node (issue 32: they slept forever on the doorbell, which
 * only Remora's own writes ring):
 *   threads   two threads of a PE hand a flag back and forth: each waits
 *             with shmem_long_wait_until for its turn and stores the next
 *             value with a plain store, then shmem_quiet (which rings the
 *             node's waiters) or nothing at all (the bounded sleeps);
 *   shmem_ptr two PEs of a node do the same through shmem_ptr: each stores
 *             into the other's word and waits on its own.
 * Registered with REMORA_SPIN_US=0 too, where every wait sleeps at once.
 * Prints the mean hand-off time of each (the wake-up latency). */
#include <pthread.h>
#include <time.h>

#include "shtest.h"

#define ROUNDS_QUIET 300
#define ROUNDS_PLAIN 100

static long *flag;     /* symmetric: the threads' flag, and the PEs' word */
static int with_quiet; /* store + shmem_quiet, or the store alone */
static int rounds;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Thread t takes the turns of values t, t + 2, ...: waits for v, stores v + 1. */
static void *player(void *arg)
{
    long t = (long)(intptr_t)arg;
    for (long v = t; v < 2L * rounds; v += 2) {
        shmem_long_wait_until(&flag[0], SHMEM_CMP_EQ, v);
        __atomic_store_n(&flag[0], v + 1, __ATOMIC_RELAXED);
        if (with_quiet)
            shmem_quiet();
    }
    return NULL;
}

static void threads(int quiet)
{
    with_quiet = quiet, rounds = quiet ? ROUNDS_QUIET : ROUNDS_PLAIN;
    flag[0] = 0;
    pthread_t th;
    double t0 = now();
    pthread_create(&th, NULL, player, (void *)(intptr_t)1);
    player((void *)(intptr_t)0);
    pthread_join(th, NULL);
    double dt = now() - t0;
    SHT_CHECK(flag[0] == 2L * rounds, "the threads' flag is %ld, not %ld", flag[0], 2L * rounds);
    if (shmem_my_pe() == 0)
        printf("threads, plain store%s: %.1f us per hand-off\n", quiet ? " + shmem_quiet" : "",
               1e6 * dt / (2.0 * rounds));
}

/* PEs 2k and 2k+1 when both are on one node (shmem_ptr works between them). */
static void pointers(int quiet)
{
    int me = shmem_my_pe(), peer = me ^ 1;
    int n = quiet ? ROUNDS_QUIET : ROUNDS_PLAIN;
    flag[1] = 0;
    long *there = peer < shmem_n_pes() ? shmem_ptr(&flag[1], peer) : NULL;
    sht_barrier();
    if (there) {
        double t0 = now();
        for (long v = me & 1; v < 2L * n; v += 2) {
            if (v > 0 || (me & 1))
                shmem_long_wait_until(&flag[1], SHMEM_CMP_EQ, v);
            __atomic_store_n(there, v + 1, __ATOMIC_RELAXED);
            if (quiet)
                shmem_quiet();
        }
        double dt = now() - t0;
        if (me == 0)
            printf("PEs through shmem_ptr, plain store%s: %.1f us per hand-off\n", quiet ? " + shmem_quiet" : "",
                   1e6 * dt / (2.0 * n));
    }
    sht_barrier();
}

int main(void)
{
    int provided;
    shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided);
    flag = shmem_calloc(2, sizeof(long));
    SHT_CHECK(flag != NULL, "shmem_calloc returned NULL");
    if (flag && provided == SHMEM_THREAD_MULTIPLE) {
        threads(1);
        threads(0);
    }
    if (flag) {
        pointers(1);
        pointers(0);
    }
    shmem_free(flag);
    return sht_finish("wait_store");
}
