/* rma_micro: single-operation costs of MPI RMA between ranks 0 (origin) and
 * 1 (target), the numbers the engine issues ask for.  Plain MPI: the same
 * binary runs over a host MPI alone and through remora-run.
 *
 *   rma_micro [--iters N] [--repeat R] [--threads T] [--level single|multiple]
 *             [--target coll|recv|compute] [--limit S] [--window KIND] [TEST ...]
 *
 * Tests (all by default): put_flush get acc fop cas lock_unlock fence
 * fence_put (an epoch of fence, one put, fence) pscw (an epoch of start, one
 * put, complete; post and wait at the target) put_bw (1 MiB put + flush)
 * put_handoff (1 MiB put + flush, then a message to the target, which reads
 * the MiB and answers: what a put costs a program that uses the data)
 * fop_rate put_rate (T threads, each on its own slot).  Prints "test value unit" per test on rank 0: the median of R
 * repeats of N operations, N raised where needed so that a repeat lasts at
 * least 20 ms.  Latencies are per operation including its flush; rates count
 * operations of all threads per second.  Data is checked after every test.
 * --level is the thread support asked of MPI_Init_thread (default multiple;
 * more than one thread needs it): libraries may skip their thread locks
 * below it, as a single-threaded program lets them.
 *
 * --target is what the target does while the origin's operations run (a
 * library without hardware RMA must progress them there):
 *   coll     waits in a host collective (MPI_Barrier that the origin joins
 *            after its operations; the default)
 *   recv     waits in MPI_Recv for a message the origin sends after its
 *            operations (and their flushes) completed
 *   compute  computes without any MPI call until the origin's last operation
 *            has completed, which it learns from a flag the origin then
 *            puts into its window memory; a library that progresses
 *            nothing toward it stalls the origin until the target gives up
 *            (after --limit seconds, 5 by default) and enters MPI: the test
 *            prints "inf" then
 * The other ranks (with more than 2: ranks of the simulated nodes, say)
 * wait in the collective.
 *
 * --window is the window the operations go to:
 *   allocate   MPI_Win_allocate (the default)
 *   create     MPI_Win_create over the program's own heap memory (malloc: not
 *              page-aligned, as programs have it)
 *   alloc_mem  MPI_Win_create over MPI_Alloc_mem memory
 *   dynamic    MPI_Win_create_dynamic with heap memory attached; the
 *              operations address it by its MPI_Get_address */
#include <mpi.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SLOT_BYTES 64 /* one cache line per thread slot */
#define BIG (1 << 20)
#define FLAG_OFF (SLOT_BYTES * 64 + BIG) /* the compute state's stop flag */
static double compute_limit = 5; /* seconds a computing target waits for the flag at most (--limit) */

static MPI_Win win;
static char *base;
static MPI_Aint at; /* the target displacement of base: its address in a dynamic window, else 0 */
static enum { WIN_ALLOCATE, WIN_CREATE, WIN_ALLOC_MEM, WIN_DYNAMIC } window_kind = WIN_ALLOCATE;
static int rank, nprocs;
static long iters = 2000;
#define MIN_REPEAT_S 0.02 /* the shortest repeat timed (s) */
static int threads = 1;
static int failures;
static int target; /* the target's rank: the last one */
static enum { AT_COLL, AT_RECV, AT_COMPUTE } target_state = AT_COLL;
static MPI_Comm coll_comm; /* the collective the waiting ranks are in (a dup of world) */

static void check(int ok, const char *test, const char *what)
{
    if (!ok) {
        fprintf(stderr, "rma_micro: %s: %s\n", test, what);
        failures++;
    }
}

static double now(void) { return MPI_Wtime(); }

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* ---- one origin thread's loops (slot = thread index) ---------------------- */

static void put_flush_loop(int slot, long n)
{
    long v = slot + 1;
    for (long i = 0; i < n; i++) {
        MPI_Put(&v, 1, MPI_LONG, target, at + slot * SLOT_BYTES, 1, MPI_LONG, win);
        MPI_Win_flush(target, win);
    }
}

static void put_rate_loop(int slot, long n)
{
    long v = slot + 1;
    for (long i = 0; i < n; i++)
        MPI_Put(&v, 1, MPI_LONG, target, at + slot * SLOT_BYTES, 1, MPI_LONG, win);
    MPI_Win_flush(target, win);
}

static void get_loop(int slot, long n)
{
    long v;
    for (long i = 0; i < n; i++) {
        MPI_Get(&v, 1, MPI_LONG, target, at + slot * SLOT_BYTES, 1, MPI_LONG, win);
        MPI_Win_flush(target, win);
    }
}

static void acc_loop(int slot, long n)
{
    long one = 1;
    for (long i = 0; i < n; i++) {
        MPI_Accumulate(&one, 1, MPI_LONG, target, at + slot * SLOT_BYTES, 1, MPI_LONG, MPI_SUM, win);
        MPI_Win_flush(target, win);
    }
}

static void fop_loop(int slot, long n)
{
    long one = 1, old;
    for (long i = 0; i < n; i++) {
        MPI_Fetch_and_op(&one, &old, MPI_LONG, target, at + slot * SLOT_BYTES, MPI_SUM, win);
        MPI_Win_flush(target, win);
    }
}

static long cas_expected[64]; /* each slot's value at the target, zeroed with it */

static void cas_loop(int slot, long n)
{
    for (long i = 0; i < n; i++) {
        long next = cas_expected[slot] + 1, got;
        MPI_Compare_and_swap(&next, &cas_expected[slot], &got, MPI_LONG, target, at + slot * SLOT_BYTES, win);
        MPI_Win_flush(target, win);
        cas_expected[slot] = got == cas_expected[slot] ? next : got;
    }
}

static void lock_loop(int slot, long n)
{
    (void)slot;
    for (long i = 0; i < n; i++) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, target, 0, win);
        MPI_Win_unlock(target, win);
    }
}

static char big_src[BIG]; /* the origin of put_bw's and put_handoff's 1 MiB puts */

static void put_bw_loop(int slot, long n)
{
    memset(big_src, slot + 1, sizeof big_src);
    for (long i = 0; i < n; i++) {
        MPI_Put(big_src, BIG, MPI_BYTE, target, at + SLOT_BYTES * 64, BIG, MPI_BYTE, win);
        MPI_Win_flush(target, win);
    }
}

/* ---- threads --------------------------------------------------------------- */

struct team {
    void (*loop)(int, long);
    long n;
    pthread_barrier_t start, stop;
};

struct member {
    struct team *team;
    int slot;
};

static void *member_main(void *arg)
{
    struct member *m = arg;
    pthread_barrier_wait(&m->team->start);
    m->team->loop(m->slot, m->team->n);
    pthread_barrier_wait(&m->team->stop);
    return NULL;
}

/* Runs loop on nthreads threads of rank 0, created and waiting before the
 * clock starts (the RMA-MT paper's timing); returns the seconds taken. */
static double run_team(void (*loop)(int, long), long n, int nthreads)
{
    if (nthreads == 1) {
        double t0 = now();
        loop(0, n);
        return now() - t0;
    }
    struct team team = {.loop = loop, .n = n};
    pthread_barrier_init(&team.start, NULL, (unsigned)nthreads + 1);
    pthread_barrier_init(&team.stop, NULL, (unsigned)nthreads + 1);
    pthread_t tid[nthreads];
    struct member m[nthreads];
    for (int t = 0; t < nthreads; t++) {
        m[t] = (struct member){&team, t};
        pthread_create(&tid[t], NULL, member_main, &m[t]);
    }
    double t0 = now(); /* before the release: a descheduled main thread must not miss work */
    pthread_barrier_wait(&team.start);
    pthread_barrier_wait(&team.stop);
    double dt = now() - t0;
    for (int t = 0; t < nthreads; t++)
        pthread_join(tid[t], NULL);
    pthread_barrier_destroy(&team.start);
    pthread_barrier_destroy(&team.stop);
    return dt;
}

/* ---- tests ----------------------------------------------------------------- */

enum kind { PASSIVE_ALL, PASSIVE_NONE, FENCE, FENCE_PUT, PSCW, HANDOFF };
enum unit { USEC, MBPS, MOPS };

struct test {
    const char *name;
    void (*loop)(int, long);
    enum kind kind;
    enum unit unit;
    int threaded;
    long divisor; /* iterations divided by this (large transfers) */
};

static const struct test tests[] = {
    {"put_flush", put_flush_loop, PASSIVE_ALL, USEC, 0, 1},
    {"get", get_loop, PASSIVE_ALL, USEC, 0, 1},
    {"acc", acc_loop, PASSIVE_ALL, USEC, 0, 1},
    {"fop", fop_loop, PASSIVE_ALL, USEC, 0, 1},
    {"cas", cas_loop, PASSIVE_ALL, USEC, 0, 1},
    {"lock_unlock", lock_loop, PASSIVE_NONE, USEC, 0, 1},
    {"fence", NULL, FENCE, USEC, 0, 1},
    {"fence_put", NULL, FENCE_PUT, USEC, 0, 1},
    {"pscw", NULL, PSCW, USEC, 0, 1},
    {"put_bw", put_bw_loop, PASSIVE_ALL, MBPS, 0, 100},
    {"put_handoff", NULL, HANDOFF, MBPS, 0, 100},
    {"fop_rate", fop_loop, PASSIVE_ALL, MOPS, 1, 1},
    {"put_rate", put_rate_loop, PASSIVE_ALL, MOPS, 1, 1},
};

/* The target's stop flag in its window memory, as the computing target reads
 * it: the number of the last round whose operations are done. */
static atomic_long *stop_flag(void) { return (atomic_long *)(base + FLAG_OFF); }
static long round_no; /* rounds begun, counted alike by the origin and the target */
static int stalled;   /* rounds the target computed to the limit (this test) */

/* The target computes (no MPI call) until the origin's flag for this round arrives. */
static void compute_until_flag(void)
{
    double t0 = now(), x = 1.0;
    while (atomic_load_explicit(stop_flag(), memory_order_acquire) < round_no && now() - t0 < compute_limit)
        for (int k = 0; k < 1000; k++)
            x = x * 1.0000001 + 1e-9;
    if (x < 0) /* keeps the computation */
        printf("%g\n", x);
    stalled += now() - t0 >= compute_limit;
}

/* The origin, its operations done: what ends the target's state. */
static void release_target(void)
{
    long one = 1;
    switch (target_state) {
    case AT_RECV: MPI_Send(&one, 1, MPI_LONG, target, 7, MPI_COMM_WORLD); break;
    case AT_COMPUTE:
        MPI_Win_lock(MPI_LOCK_SHARED, target, 0, win);
        MPI_Put(&round_no, 1, MPI_LONG, target, at + FLAG_OFF, 1, MPI_LONG, win);
        MPI_Win_unlock(target, win);
        break;
    case AT_COLL: break;
    }
}

/* The target while the origin's operations run. */
static void target_wait(void)
{
    long got;
    switch (target_state) {
    case AT_RECV: MPI_Recv(&got, 1, MPI_LONG, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE); break;
    case AT_COMPUTE: compute_until_flag(); break;
    case AT_COLL: break;
    }
}

/* n rounds of put_handoff; the target checks the first and last byte of each. */
static double handoff(long n)
{
    long token = 0, sum = 0;
    double t0 = now();
    if (rank == 0) {
        MPI_Win_lock_all(0, win);
        for (long i = 0; i < n; i++) {
            memset(big_src, (int)(i % 100) + 1, sizeof big_src);
            MPI_Put(big_src, BIG, MPI_BYTE, target, at + SLOT_BYTES * 64, BIG, MPI_BYTE, win);
            MPI_Win_flush(target, win);
            MPI_Send(&token, 1, MPI_LONG, target, 8, MPI_COMM_WORLD);
            MPI_Recv(&token, 1, MPI_LONG, target, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        MPI_Win_unlock_all(win);
    } else if (rank == target) {
        const char *got = base + SLOT_BYTES * 64;
        MPI_Win_lock_all(MPI_MODE_NOCHECK, win); /* MPI_Win_sync belongs in a passive-target epoch (MPICH checks) */
        for (long i = 0; i < n; i++) {
            MPI_Recv(&token, 1, MPI_LONG, 0, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Win_sync(win);
            for (size_t k = 0; k < BIG; k += 8)
                sum += *(const long *)(got + k);
            check(got[0] == (char)(i % 100 + 1) && got[BIG - 1] == got[0], "put_handoff", "1 MiB put not at the target");
            MPI_Send(&token, 1, MPI_LONG, 0, 8, MPI_COMM_WORLD);
        }
        MPI_Win_unlock_all(win);
    }
    double dt = now() - t0;
    if (sum == 42) /* keeps the reads */
        printf("%ld\n", sum);
    MPI_Barrier(coll_comm);
    return dt;
}

static double one_repeat(const struct test *t, long n)
{
    double dt = 0;
    round_no++;
    MPI_Barrier(MPI_COMM_WORLD);
    if (t->kind == FENCE) {
        double t0 = now();
        for (long i = 0; i < n; i++)
            MPI_Win_fence(0, win);
        return now() - t0;
    }
    if (t->kind == HANDOFF)
        return handoff(n);
    if (t->kind == FENCE_PUT || t->kind == PSCW) { /* an epoch with one 8-byte put from rank 0 to the target */
        long v = 1;
        MPI_Group world, peer;
        MPI_Comm_group(MPI_COMM_WORLD, &world);
        int other = rank == 0 ? target : 0;
        MPI_Group_incl(world, 1, &other, &peer);
        double t0 = now();
        for (long i = 0; i < n; i++) {
            if (t->kind == FENCE_PUT) {
                MPI_Win_fence(0, win);
                if (rank == 0)
                    MPI_Put(&v, 1, MPI_LONG, target, at, 1, MPI_LONG, win);
                MPI_Win_fence(0, win);
            } else if (rank == 0) {
                MPI_Win_start(peer, 0, win);
                MPI_Put(&v, 1, MPI_LONG, target, at, 1, MPI_LONG, win);
                MPI_Win_complete(win);
            } else if (rank == target) {
                MPI_Win_post(peer, 0, win);
                MPI_Win_wait(win);
            }
        }
        double dt = now() - t0;
        MPI_Group_free(&peer);
        MPI_Group_free(&world);
        MPI_Barrier(MPI_COMM_WORLD);
        return dt;
    }
    if (rank == 0) {
        /* the epoch's lock_all and unlock_all count: a library that makes
         * them wait for a computing target must show that wait */
        double t0 = now();
        if (t->kind == PASSIVE_ALL)
            MPI_Win_lock_all(0, win);
        double locked = now() - t0;
        dt = run_team(t->loop, n, t->threaded ? threads : 1);
        t0 = now();
        if (t->kind == PASSIVE_ALL)
            MPI_Win_unlock_all(win);
        dt += locked + now() - t0;
        release_target();
    } else if (rank == target) {
        target_wait();
    }
    MPI_Barrier(coll_comm);
    return dt;
}

/* The target's slots after a test: what the test must have left there. */
static void verify(const struct test *t, long total_per_slot)
{
    if (rank != target)
        return;
    MPI_Win_lock(MPI_LOCK_SHARED, target, 0, win);
    int nslots = t->threaded ? threads : 1;
    for (int s = 0; s < nslots; s++) {
        long v = *(long *)(base + s * SLOT_BYTES);
        if (t->loop == acc_loop || t->loop == fop_loop || t->loop == cas_loop)
            check(v == total_per_slot, t->name, "counter at the target is not the number of operations");
        else if (t->loop == put_flush_loop || t->loop == put_rate_loop)
            check(v == s + 1, t->name, "put value not at the target");
    }
    if (t->loop == put_bw_loop)
        check(base[SLOT_BYTES * 64] == 1 && base[SLOT_BYTES * 64 + BIG - 1] == 1, t->name, "1 MiB put not at the target");
    MPI_Win_unlock(target, win);
}

static void reset_target(void)
{
    MPI_Win_fence(0, win);
    if (rank == target)
        memset(base, 0, SLOT_BYTES * 64);
    memset(cas_expected, 0, sizeof cas_expected);
    MPI_Win_fence(0, win);
}

static void run(const struct test *t, int repeat)
{
    long n = iters / t->divisor > 0 ? iters / t->divisor : 1;
    double samples[repeat];
    reset_target();
    one_repeat(t, n / 10 + 1); /* warm-up: connections, caches */
    long done = n / 10 + 1;
    /* A repeat shorter than a few scheduler time slices times the scheduler
     * (a thread woken late, a core shared with the target), not the library:
     * untimed repeats lengthen n until one lasts MIN_REPEAT_S on rank 0. */
    for (;;) {
        double dt = one_repeat(t, n);
        done += n;
        long longer = dt >= MIN_REPEAT_S ? 0 : dt * 100 < MIN_REPEAT_S ? n * 100 : (long)((double)n * 1.2 * MIN_REPEAT_S / dt);
        MPI_Bcast(&longer, 1, MPI_LONG, 0, MPI_COMM_WORLD);
        if (!longer)
            break;
        n = longer;
    }
    for (int r = 0; r < repeat; r++) {
        samples[r] = one_repeat(t, n);
        done += n;
    }
    verify(t, done);
    int stalls;
    MPI_Allreduce(&stalled, &stalls, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    stalled = 0;
    if (rank != 0)
        return;
    if (stalls) {
        printf("%-12s %10s %s (the target computed %.0f s without the origin's last operation: nothing "
               "progressed it)\n", t->name, t->unit == USEC ? "inf" : "0", t->unit == USEC ? "us" : t->unit == MBPS ? "MB/s" : "Mops/s",
               compute_limit);
        fflush(stdout);
        return;
    }
    qsort(samples, (size_t)repeat, sizeof *samples, cmp_double);
    double med = samples[repeat / 2];
    int nthreads = t->threaded ? threads : 1;
    switch (t->unit) {
    case USEC:
        printf("%-12s %10.4f us\n", t->name, med / (double)n * 1e6);
        break;
    case MBPS:
        printf("%-12s %10.1f MB/s\n", t->name, (double)n * BIG / med / 1e6);
        break;
    case MOPS:
        printf("%-12s %10.3f Mops/s (%d threads)\n", t->name, (double)n * nthreads / med / 1e6, nthreads);
        break;
    }
    fflush(stdout);
}

static int window_from_name(const char *name)
{
    static const char *const names[] = {"allocate", "create", "alloc_mem", "dynamic"};
    for (int k = 0; k < 4; k++)
        if (!strcmp(name, names[k]))
            return k;
    return -1;
}

/* Sets win, base and at: a window of `bytes` of the chosen kind on every rank. */
static void window_open(MPI_Aint bytes)
{
    switch (window_kind) {
    case WIN_ALLOCATE: MPI_Win_allocate(bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win); return;
    case WIN_ALLOC_MEM: MPI_Alloc_mem(bytes, MPI_INFO_NULL, &base); break;
    case WIN_CREATE:
    case WIN_DYNAMIC:
        if (!(base = malloc((size_t)bytes)))
            MPI_Abort(MPI_COMM_WORLD, 3);
        break;
    }
    if (window_kind != WIN_DYNAMIC) {
        MPI_Win_create(base, bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
        return;
    }
    MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_attach(win, base, bytes);
    MPI_Aint mine;
    MPI_Get_address(base, &mine);
    MPI_Aint all[nprocs];
    MPI_Allgather(&mine, 1, MPI_AINT, all, 1, MPI_AINT, MPI_COMM_WORLD);
    at = all[target];
}

static void window_close(void)
{
    if (window_kind == WIN_DYNAMIC)
        MPI_Win_detach(win, base);
    MPI_Win_free(&win);
    if (window_kind == WIN_ALLOC_MEM)
        MPI_Free_mem(base);
    else if (window_kind != WIN_ALLOCATE)
        free(base);
}

int main(int argc, char **argv)
{
    int provided, repeat = 5, level = MPI_THREAD_MULTIPLE;
    for (int i = 1; i + 1 < argc; i++) /* before MPI_Init_thread, which needs it */
        if (!strcmp(argv[i], "--level"))
            level = !strcmp(argv[i + 1], "single") ? MPI_THREAD_SINGLE : !strcmp(argv[i + 1], "multiple") ? level : -1;
    MPI_Init_thread(&argc, &argv, level < 0 ? MPI_THREAD_SINGLE : level, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    const char *chosen[32];
    int nchosen = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--iters") && i + 1 < argc)
            iters = atol(argv[++i]);
        else if (!strcmp(argv[i], "--repeat") && i + 1 < argc)
            repeat = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
            threads = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--level") && i + 1 < argc && level >= 0)
            i++; /* read above */
        else if (!strcmp(argv[i], "--limit") && i + 1 < argc)
            compute_limit = atof(argv[++i]);
        else if (!strcmp(argv[i], "--target") && i + 1 < argc && !strcmp(argv[i + 1], "coll"))
            target_state = AT_COLL, i++;
        else if (!strcmp(argv[i], "--target") && i + 1 < argc && !strcmp(argv[i + 1], "recv"))
            target_state = AT_RECV, i++;
        else if (!strcmp(argv[i], "--target") && i + 1 < argc && !strcmp(argv[i + 1], "compute"))
            target_state = AT_COMPUTE, i++;
        else if (!strcmp(argv[i], "--window") && i + 1 < argc && window_from_name(argv[i + 1]) >= 0)
            window_kind = window_from_name(argv[++i]);
        else if (argv[i][0] != '-' && nchosen < 32)
            chosen[nchosen++] = argv[i];
        else {
            if (rank == 0)
                fprintf(stderr, "usage: rma_micro [--iters N] [--repeat R] [--threads T] [--level single|multiple] "
                                "[--target coll|recv|compute] [--limit S] [--window allocate|create|alloc_mem|dynamic] [TEST ...]\n");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    if (nprocs < 2 || iters < 1 || repeat < 1 || threads < 1 || threads > 64 ||
        (threads > 1 && provided < MPI_THREAD_MULTIPLE)) {
        if (rank == 0)
            fprintf(stderr, "rma_micro: needs 2 ranks, positive counts, 1-64 threads (MPI_THREAD_MULTIPLE for more than 1)\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    target = nprocs - 1;
    MPI_Comm_dup(MPI_COMM_WORLD, &coll_comm);
    window_open(FLAG_OFF + SLOT_BYTES);
    memset(base, 0, FLAG_OFF + SLOT_BYTES);
    for (size_t k = 0; k < sizeof tests / sizeof *tests; k++) {
        int want = nchosen == 0;
        for (int c = 0; c < nchosen; c++)
            want |= !strcmp(chosen[c], tests[k].name);
        if (want)
            run(&tests[k], repeat);
    }
    window_close();
    MPI_Comm_free(&coll_comm);
    int all;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    return all != 0;
}
