/* Worker threads that exist and wait before the clock starts (the RMA-MT
 * paper's timing): the main thread releases a round and waits for its end.
 *
 * Release and join are a thread pool's: a waiter spins while the job's busy
 * threads fit the cores (ranks on this node x threads per rank), and sleeps
 * on a futex otherwise, or after SPIN_NS of spinning.  Sleeping at every
 * round (pthread barriers) would time the kernel's wake-ups, which on a
 * virtual machine with idle cores cost tens of microseconds and vary by 5x,
 * instead of the MPI calls; spinning with more threads than cores would take
 * the core from a thread that has work.  Every configuration runs the same
 * code, so the ratios compare the MPIs. */
#define _GNU_SOURCE
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "rmamt.h"

#define SPIN_NS 200000 /* longest spin before sleeping (0.2 ms) */

/* A word that one side bumps and the other waits on, with a count of sleepers
 * so a bump wakes nobody in the kernel when nobody sleeps. */
struct signal {
    _Atomic uint32_t value;
    _Atomic uint32_t sleepers;
} __attribute__((aligned(64)));

struct member {
    struct team *team;
    int index;
    pthread_t tid;
};

struct team {
    int n, stop, spin;
    void (*fn)(int, void *);
    void *arg;
    struct signal start;  /* rounds released                           */
    struct signal done;   /* workers that finished the current round     */
    struct member *m;
};

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void bump(struct signal *s)
{
    atomic_fetch_add(&s->value, 1);
    if (atomic_load(&s->sleepers))
        syscall(SYS_futex, &s->value, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

/* Wait until s->value is no longer `seen`. */
static void await(struct team *t, struct signal *s, uint32_t seen)
{
    if (t->spin) {
        uint64_t end = 0;
        for (unsigned i = 1; atomic_load_explicit(&s->value, memory_order_acquire) == seen; i++) {
#if defined(__x86_64__) || defined(__i386__)
            __builtin_ia32_pause();
#endif
            if ((i & 255) == 0) {
                uint64_t now = now_ns();
                if (!end)
                    end = now + SPIN_NS;
                else if (now >= end)
                    break;
            }
        }
    }
    while (atomic_load_explicit(&s->value, memory_order_acquire) == seen) {
        atomic_fetch_add(&s->sleepers, 1);
        if (atomic_load(&s->value) == seen)
            syscall(SYS_futex, &s->value, FUTEX_WAIT_PRIVATE, seen, NULL, NULL, 0);
        atomic_fetch_sub(&s->sleepers, 1);
    }
}

static void *member_main(void *p)
{
    struct member *m = p;
    struct team *t = m->team;
    for (uint32_t round = 0;; round++) {
        await(t, &t->start, round);
        if (t->stop)
            return NULL;
        t->fn(m->index, t->arg);
        bump(&t->done);
    }
}

/* This rank's index among the job's ranks on this node, and their number
 * (found at the first team, which every rank makes). */
static void node_place(int *index, int *ranks)
{
    static int my_index, node_ranks;
    MPI_Comm node;
    if (!node_ranks && MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) == MPI_SUCCESS) {
        MPI_Comm_rank(node, &my_index);
        MPI_Comm_size(node, &node_ranks);
        MPI_Comm_free(&node);
    }
    *index = my_index;
    *ranks = node_ranks ? node_ranks : 1;
}

/* Ranks of the job on this node times threads per rank: do the busy threads fit the cores? */
static int fits_cores(int n)
{
    int index, ranks;
    node_place(&index, &ranks);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    return (long)ranks * (n + 1) <= cores; /* the main thread waits busy too */
}

/* The cores this process may use, as the first team found them (before
 * --bind pinned the main thread); their number, 0 if unknown. */
static int allowed_cpus(int cpus[CPU_SETSIZE])
{
    static cpu_set_t allowed;
    static int known;
    if (!known && sched_getaffinity(0, sizeof allowed, &allowed) != 0)
        return 0;
    known = 1;
    int c = 0;
    for (int i = 0; i < CPU_SETSIZE; i++)
        if (CPU_ISSET(i, &allowed))
            cpus[c++] = i;
    return c;
}

static void pin(pthread_t thread, int cpu)
{
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    pthread_setaffinity_np(thread, sizeof one, &one);
}

/* --bind: a rank's threads stay on the rank's share of the cores, one
 * thread per core while the share lasts (the main thread on its first core,
 * worker i on the next ones, round robin), as a launcher that binds each
 * rank to its cores places them.  The share is an equal slice of the cores
 * the process may use (one core, shared, when the ranks outnumber them).
 * Unbound, the kernel places the threads at random: on 2 cores with 2 ranks
 * of 3 threads, whether a rank's workers land beside its own main thread or
 * beside the other rank's decides a fence round (8 or 15-20 us, per job). */
static void bind_team(struct team *t)
{
    int cpus[CPU_SETSIZE], c = allowed_cpus(cpus), index, ranks;
    if (c == 0)
        return;
    node_place(&index, &ranks);
    int first = ranks <= c ? index * c / ranks : index % c;
    int share = ranks <= c ? (index + 1) * c / ranks - first : 1;
    for (int i = 0; i <= t->n; i++) /* i == 0: the main thread */
        pin(i ? t->m[i - 1].tid : pthread_self(), cpus[first + i % share]);
}

/* --spread: worker i of the rank with index r on the node goes on core
 * (r * n + i) mod cores; main threads stay free.  The flush modes' workers
 * each run their own chain of operations at once, and this gives them a core
 * each while there are cores, as an idle node's kernel would.  Left to the
 * kernel on 2 cores, where the other rank's main thread waits in a barrier,
 * the two workers of a rank were woken on one core in about half the jobs
 * (2-thread 1 MiB put: 4.8-10 GB/s instead of 12-16). */
static void spread_team(struct team *t)
{
    int cpus[CPU_SETSIZE], c = allowed_cpus(cpus), index, ranks;
    if (c == 0)
        return;
    node_place(&index, &ranks);
    for (int i = 0; i < t->n; i++)
        pin(t->m[i].tid, cpus[((long)index * t->n + i) % c]);
}

struct team *team_create(int n, void (*fn)(int, void *), void *arg, enum placement place)
{
    struct team *t = aligned_alloc(64, (sizeof *t + 63) / 64 * 64);
    *t = (struct team){.n = n, .fn = fn, .arg = arg, .spin = fits_cores(n)};
    t->m = calloc((size_t)n, sizeof *t->m);
    for (int i = 0; i < n; i++) {
        t->m[i] = (struct member){t, i, 0};
        pthread_create(&t->m[i].tid, NULL, member_main, &t->m[i]);
    }
    if (place == PLACE_BIND)
        bind_team(t);
    else if (place == PLACE_SPREAD)
        spread_team(t);
    return t;
}

/* Bumping start publishes everything the main thread wrote before (seq_cst). */
void team_release(struct team *t) { bump(&t->start); }

/* Each worker bumps done once per round: wait for all n bumps of this round. */
void team_wait(struct team *t)
{
    uint32_t target = (atomic_load(&t->start.value)) * (uint32_t)t->n;
    for (uint32_t seen; (seen = atomic_load_explicit(&t->done.value, memory_order_acquire)) != target;)
        await(t, &t->done, seen);
    watchdog_tick();
}

void team_destroy(struct team *t)
{
    t->stop = 1;
    bump(&t->start);
    for (int i = 0; i < t->n; i++)
        pthread_join(t->m[i].tid, NULL);
    free(t->m);
    free(t);
}
