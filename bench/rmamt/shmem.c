/* rmamt-shmem: the RMA-MT suite's OpenSHMEM benchmarks.  Plain OpenSHMEM
 * that builds unchanged against any OpenSHMEM 1.4 or later library (Remora's
 * with its oshcc, Open MPI's OSHMEM with /usr/bin/oshcc), so that
 * scripts/shmem-bench can run both in one session.
 *
 *   rmamt-shmem [--samples S] [--iters N] [--coll-iters N] [--threads 1,2]
 *               [--tests put,get,nbi,add,fadd,signal,barrier,reduce]
 *
 * Point-to-point tests run between PEs 0 and 1: PE 0 (the origin) measures;
 * PE 1 (the target) prepares and checks its memory and between steps waits in
 * shmem_long_wait_until (see wait_for: what that costs the origin's threads is
 * the library's); further PEs only wait.  They are meant for 2 PEs.
 * Collective tests run on every PE, at any number of PEs >= 2.  Each test is
 * S timed samples after one untimed warm-up sample, reported as the median
 * sample (a collective sample's time is the slowest PE's):
 *   put      shmem_putmem of 8 bytes + shmem_quiet, latency (us), N per sample
 *   get      shmem_getmem of 8 bytes, latency (us)
 *   nbi      shmem_ctx_putmem_nbi of 8 bytes, message rate (million/s) with T
 *            threads, each on a SHMEM_CTX_PRIVATE context of its own, SLOTS
 *            puts then shmem_ctx_quiet per round: one line per --threads entry
 *   add      shmem_ctx_long_atomic_add of 1, rate (million/s), as nbi: each
 *            thread on its own context adds to a counter word of its own
 *   fadd     shmem_long_atomic_fetch_add latency (us)
 *   signal   ping-pong of shmem_putmem_signal (8 bytes, SHMEM_SIGNAL_SET) and
 *            shmem_signal_wait_until: half the round trip (us).  OpenSHMEM 1.5
 *            or later only; with an older library the line says n/a
 *   barrier  shmem_barrier_all latency (us), every PE; --coll-iters per sample
 *   reduce   8-byte sum reduction latency (us), every PE: shmem_long_sum_reduce
 *            on SHMEM_TEAM_WORLD with a 1.5 or later library (Remora), else
 *            shmem_long_sum_to_all with pSync and pWrk (OSHMEM, 1.4)
 * Every datum is checked: the target checks the last value of every slot the
 * origin wrote and the counters it added to, the origin every value it read
 * or fetched, each side of the ping-pong every ball it received; a reduction
 * checks every result, and the warm-up sample of barrier makes each PE put a
 * word into the next PE before each barrier and check its own after it.
 * One line per test:
 *   result <test> <median> <unit> ok|FAIL|n/a errors=<wrong values> pes=<PEs> routine=<what was timed>
 * (<test> is nbi_t<T> and add_t<T> for the rates; <median> is "-" for n/a);
 * the exit status is nonzero when any test failed. */
#include <pthread.h>
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Signals and teams came with OpenSHMEM 1.5 (OSHMEM is 1.4). */
#if SHMEM_MAJOR_VERSION * 100 + SHMEM_MINOR_VERSION >= 105
#define HAVE_1_5 1
#define REDUCE_ROUTINE "shmem_long_sum_reduce(SHMEM_TEAM_WORLD)"
#else
#define HAVE_1_5 0
#define REDUCE_ROUTINE "shmem_long_sum_to_all(pSync,pWrk)"
#endif

enum { SLOTS = 256, MAX_THREADS = 16, MAX_SAMPLES = 1000, MAX_STEPS = 64, LINE = 8 /* longs in a cache line */ };

enum test { PUT, GET, NBI, ADD, FADD, SIGNAL, BARRIER, REDUCE, NTESTS };
static const struct test_info {
    const char *name, *unit, *routine;
    int rate;       /* a rate with T threads, one line per thread count */
    int collective; /* every PE takes part */
    int supported;
} tests[NTESTS] = {
    [PUT] = {"put", "us", "shmem_putmem+shmem_quiet", 0, 0, 1},
    [GET] = {"get", "us", "shmem_getmem", 0, 0, 1},
    [NBI] = {"nbi", "Mmsg/s", "shmem_ctx_putmem_nbi+shmem_ctx_quiet", 1, 0, 1},
    [ADD] = {"add", "Mops/s", "shmem_ctx_long_atomic_add+shmem_ctx_quiet", 1, 0, 1},
    [FADD] = {"fadd", "us", "shmem_long_atomic_fetch_add", 0, 0, 1},
    [SIGNAL] = {"signal", "us", "shmem_putmem_signal+shmem_signal_wait_until", 0, 0, HAVE_1_5},
    [BARRIER] = {"barrier", "us", "shmem_barrier_all", 0, 1, 1},
    [REDUCE] = {"reduce", "us", REDUCE_ROUTINE, 0, 1, 1},
};

struct step {
    enum test test;
    int threads; /* rates */
};

/* Symmetric heap (zeroed by each PE, then a barrier: OSHMEM's shmem_calloc
 * zeroes after its barrier, when a faster PE may have written already): the
 * handshake and the words each test updates on lines of their own, then the
 * data. */
struct board {
    long go;         /* at PEs > 0: the last point-to-point step PE 0 finished                    */
    long pad0[LINE - 1];
    long ack;        /* at PE 0: 2k + 1 when PE 1 is ready for step k, 2k + 2 when it checked it */
    long bad;        /* at PE 0: what PE 1 found wrong in its last step                          */
    long pad1[LINE - 2];
    long counter;    /* fetch_add's word, at the target                                          */
    long pad2[LINE - 1];
    uint64_t signal; /* the ping-pong's signal, at each side                                     */
    long ball;       /* and its data                                                             */
    long pad3[LINE - 2];
    long left[2];    /* barrier check: written by the previous PE, alternately                   */
    long pad4[LINE - 2];
    long src[2], dst[2]; /* reduce, alternately: a PE returning from a reduction does not
                            know that the others are done with its source */
#if !HAVE_1_5
    long pwrk[2][SHMEM_REDUCE_MIN_WRKDATA_SIZE > 1 ? SHMEM_REDUCE_MIN_WRKDATA_SIZE : 1];
    long psync[2][SHMEM_REDUCE_SYNC_SIZE];
#endif
    long counters[MAX_THREADS * LINE]; /* add's words, one line per thread, at the target */
    long data[MAX_THREADS * SLOTS];
};

/* A collective step's results of one PE, gathered at PE 0. */
struct gathered {
    long bad;
    double t[MAX_SAMPLES];
};

static struct board *board;
static struct gathered *gathered; /* npes entries */
static long samples = 9, iters = 50000, coll_iters = 2000;
static int thread_level, me, npes;

/* A value no other step, slot or round writes: step k's sequence number s. */
static long tag(int k, long s) { return ((long)(k + 1) << 40) | s; }

/* The last sequence number below total that lands in slot j (of `slots`), or -1. */
static long last_seq(long total, long j, long slots)
{
    return total > j ? j + (total - 1 - j) / slots * slots : -1;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, long n)
{
    qsort(v, (size_t)n, sizeof *v, by_value);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Microseconds per operation of a sample of n operations that began at t0. */
static double us_per_op(double t0, long n) { return (now() - t0) / (double)n * 1e6; }

/* Waits until the local symmetric word reaches value, the library's way:
 * Remora's wait spins briefly and then sleeps until the word changes;
 * OSHMEM's spins driving its progress, which the target must (shmem_long_test
 * with naps stalled OSHMEM: a private context's first puts, and puts to
 * static data, need the target's progress). */
static void wait_for(long *word, long value) { shmem_long_wait_until(word, SHMEM_CMP_GE, value); }

/* ---- the origin's side: each returns the median; *bad counts wrong values ---- */
static double run_put(int k, long *bad)
{
    double t[MAX_SAMPLES];
    long s = 0;
    (void)bad; /* the target checks what arrived */
    for (long smp = -1; smp < samples; smp++) {
        double t0 = now();
        for (long i = 0; i < iters; i++, s++) {
            long v = tag(k, s);
            shmem_putmem(&board->data[s % SLOTS], &v, sizeof v, 1);
            shmem_quiet();
        }
        if (smp >= 0)
            t[smp] = us_per_op(t0, iters);
    }
    return median(t, samples);
}

static double run_get(int k, long *bad)
{
    double t[MAX_SAMPLES];
    long got[SLOTS];
    long want = 0; /* the sum of a sample's values: every one read counts */
    for (long i = 0; i < iters; i++)
        want += tag(k, i % SLOTS);
    for (long smp = -1; smp < samples; smp++) {
        memset(got, 0xff, sizeof got);
        long sum = 0;
        double t0 = now();
        for (long i = 0; i < iters; i++) {
            shmem_getmem(&got[i % SLOTS], &board->data[i % SLOTS], sizeof *got, 1);
            sum += got[i % SLOTS];
        }
        if (smp >= 0)
            t[smp] = us_per_op(t0, iters);
        for (long j = 0; j < SLOTS && j < iters; j++)
            *bad += got[j] != tag(k, j);
        *bad += sum != want;
    }
    return median(t, samples);
}

static double run_fadd(int k, long *bad)
{
    double t[MAX_SAMPLES];
    long s = 0;
    (void)k;
    for (long smp = -1; smp < samples; smp++) {
        double t0 = now();
        for (long i = 0; i < iters; i++, s++)
            *bad += shmem_long_atomic_fetch_add(&board->counter, 1, 1) != s;
        if (smp >= 0)
            t[smp] = us_per_op(t0, iters);
    }
    return median(t, samples);
}

/* The ping-pong, run by PE 0 (which serves and times) and PE 1 (which
 * returns): each waits for the other's signal, checks the ball and sends its
 * own.  The signal is the ball's tag, which only grows, so SHMEM_CMP_GE needs
 * no reset between steps; a PE's ball is overwritten only after it answered. */
static double run_signal(int k, long *bad)
{
#if HAVE_1_5
    double t[MAX_SAMPLES];
    long s = 0;
    for (long smp = -1; smp < samples; smp++) {
        double t0 = now();
        for (long i = 0; i < iters; i++, s++) {
            long v = tag(k, s);
            if (me == 0)
                shmem_putmem_signal(&board->ball, &v, sizeof v, &board->signal, (uint64_t)v, SHMEM_SIGNAL_SET, 1);
            shmem_signal_wait_until(&board->signal, SHMEM_CMP_GE, (uint64_t)v);
            *bad += board->ball != v;
            if (me == 1)
                shmem_putmem_signal(&board->ball, &v, sizeof v, &board->signal, (uint64_t)v, SHMEM_SIGNAL_SET, 0);
        }
        if (smp >= 0)
            t[smp] = us_per_op(t0, 2 * iters);
    }
    return me == 0 ? median(t, samples) : 0;
#else
    (void)k, (void)bad;
    return 0; /* never called: the step is n/a */
#endif
}

/* rates: rounds of SLOTS operations per sample, about iters per thread */
static long rate_rounds(void) { return iters / SLOTS > 0 ? iters / SLOTS : 1; }

struct rate_thread {
    int k, t, threads;
    enum test test;
    pthread_barrier_t *bar;
    double *rate; /* by sample: thread 0 writes */
    long bad;
};

/* A round's values: thread t, round r (counted over all samples), slot j. */
static long nbi_value(int k, int t, long r, long j) { return tag(k, (r * MAX_THREADS + t) * SLOTS + j); }

static void *rate_thread(void *arg)
{
    struct rate_thread *a = arg;
    shmem_ctx_t ctx;
    long *src = malloc(SLOTS * sizeof *src), *dst = &board->data[a->t * SLOTS], r = 0;
    long *counter = &board->counters[a->t * LINE];
    int made = shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) == 0;
    if (!made || !src) {
        fprintf(stderr, "rmamt-shmem: %s thread %d: %s\n", tests[a->test].name, a->t,
                made ? "out of memory" : "shmem_ctx_create failed");
        a->bad++;
    }
    for (long smp = -1; smp < samples; smp++) {
        pthread_barrier_wait(a->bar);
        double t0 = now();
        for (long i = 0; made && src && i < rate_rounds(); i++, r++) {
            if (a->test == NBI) {
                for (long j = 0; j < SLOTS; j++) /* a source may be reused only after the quiet */
                    src[j] = nbi_value(a->k, a->t, r, j);
                for (long j = 0; j < SLOTS; j++)
                    shmem_ctx_putmem_nbi(ctx, &dst[j], &src[j], sizeof *src, 1);
            } else {
                for (long j = 0; j < SLOTS; j++)
                    shmem_ctx_long_atomic_add(ctx, counter, 1, 1);
            }
            shmem_ctx_quiet(ctx);
        }
        pthread_barrier_wait(a->bar);
        if (a->t == 0 && smp >= 0)
            a->rate[smp] = (double)(a->threads * rate_rounds() * SLOTS) / (now() - t0) / 1e6;
    }
    if (made)
        shmem_ctx_destroy(ctx);
    free(src);
    return NULL;
}

static double run_rate(int k, const struct step *st, long *bad)
{
    double rate[MAX_SAMPLES];
    struct rate_thread a[MAX_THREADS];
    pthread_t id[MAX_THREADS];
    pthread_barrier_t bar;
    if (st->threads > 1 && thread_level != SHMEM_THREAD_MULTIPLE) {
        fprintf(stderr, "rmamt-shmem: %s with %d threads needs SHMEM_THREAD_MULTIPLE (the library gave level %d)\n",
                tests[st->test].name, st->threads, thread_level);
        ++*bad;
        return 0;
    }
    pthread_barrier_init(&bar, NULL, (unsigned)st->threads);
    for (int t = 0; t < st->threads; t++) {
        a[t] = (struct rate_thread){.k = k, .t = t, .threads = st->threads, .test = st->test, .bar = &bar,
                                    .rate = rate};
        pthread_create(&id[t], NULL, rate_thread, &a[t]);
    }
    for (int t = 0; t < st->threads; t++) {
        pthread_join(id[t], NULL);
        *bad += a[t].bad;
    }
    pthread_barrier_destroy(&bar);
    return median(rate, samples);
}

/* ---- the target's side ---- */
static void prepare(int k, const struct step *st)
{
    for (long j = 0; j < MAX_THREADS * SLOTS; j++)
        board->data[j] = st->test == GET ? tag(k, j) : -1;
    for (long j = 0; j < MAX_THREADS * LINE; j++)
        board->counters[j] = 0;
    board->counter = 0;
}

static long verify(int k, const struct step *st)
{
    long bad = 0, total = (samples + 1) * iters;
    switch (st->test) {
    case PUT:
        for (long j = 0; j < SLOTS; j++) {
            long s = last_seq(total, j, SLOTS);
            bad += board->data[j] != (s < 0 ? -1 : tag(k, s));
        }
        break;
    case NBI:
        for (int t = 0; t < st->threads; t++)
            for (long j = 0; j < SLOTS; j++)
                bad += board->data[t * SLOTS + j] != nbi_value(k, t, (samples + 1) * rate_rounds() - 1, j);
        break;
    case ADD:
        for (int t = 0; t < MAX_THREADS; t++)
            bad += board->counters[t * LINE] != (t < st->threads ? (samples + 1) * rate_rounds() * SLOTS : 0);
        break;
    case FADD:
        bad += board->counter != total;
        break;
    default:
        break; /* the origin checks what it read, each side of the ping-pong what it received */
    }
    return bad;
}

/* Tells PE 0 that PE 1 reached `state` of a step (2k + 1: ready, 2k + 2:
 * checked), with the count of wrong values it found (delivered before the
 * ack: quiet). */
static void ack(long state, long bad)
{
    shmem_long_p(&board->bad, bad, 0);
    shmem_quiet();
    shmem_long_p(&board->ack, state, 0);
    shmem_quiet();
}

/* ---- collectives, on every PE ---- */
static long reduce_once(long s)
{
    int b = (int)(s & 1);
    long want = s * npes * npes + (long)npes * (npes - 1) / 2, failed = 0;
    board->src[b] = s * npes + me;
#if HAVE_1_5
    failed = shmem_long_sum_reduce(SHMEM_TEAM_WORLD, &board->dst[b], &board->src[b], 1) != 0;
#else
    shmem_long_sum_to_all(&board->dst[b], &board->src[b], 1, 0, 0, npes, board->pwrk[b], board->psync[b]);
#endif
    return failed + (board->dst[b] != want);
}

/* The warm-up sample of barrier checks it: each PE puts round i's tag into
 * the next PE before the barrier and finds the previous PE's after it.  Two
 * words alternate: the previous PE writes round i + 2's only after the barrier
 * of round i + 1, which waits for this PE's check of round i. */
static long checked_barriers(int k)
{
    long bad = 0;
    for (long i = 0; i < coll_iters; i++) {
        shmem_long_p(&board->left[i & 1], tag(k, i), (me + 1) % npes);
        shmem_barrier_all();
        bad += board->left[i & 1] != tag(k, i);
    }
    return bad;
}

/* Returns at PE 0 the median over samples of the slowest PE's time per
 * operation, and the wrong values of every PE in *bad. */
static double run_collective(int k, const struct step *st, long *bad)
{
    struct gathered mine = {0};
    long s = 0;
    shmem_barrier_all(); /* every PE is done with the previous step */
    for (long smp = -1; smp < samples; smp++) {
        double t0 = now();
        if (st->test == BARRIER && smp < 0)
            mine.bad += checked_barriers(k);
        else if (st->test == BARRIER)
            for (long i = 0; i < coll_iters; i++)
                shmem_barrier_all();
        else
            for (long i = 0; i < coll_iters; i++, s++)
                mine.bad += reduce_once(s);
        if (smp >= 0)
            mine.t[smp] = us_per_op(t0, coll_iters);
    }
    shmem_putmem(&gathered[me], &mine, sizeof mine, 0);
    shmem_barrier_all(); /* PE 0 reads the results before its next step's first barrier: no other is needed */
    if (me != 0)
        return 0;
    double slowest[MAX_SAMPLES];
    for (long smp = 0; smp < samples; smp++) {
        slowest[smp] = 0;
        for (int pe = 0; pe < npes; pe++)
            slowest[smp] = gathered[pe].t[smp] > slowest[smp] ? gathered[pe].t[smp] : slowest[smp];
    }
    for (int pe = 0; pe < npes; pe++)
        *bad += gathered[pe].bad;
    return median(slowest, samples);
}

/* ---- the steps ---- */
static void print_result(const struct step *st, double v, long bad)
{
    const struct test_info *ti = &tests[st->test];
    char name[32], value[32];
    if (ti->rate)
        snprintf(name, sizeof name, "%s_t%d", ti->name, st->threads);
    else
        snprintf(name, sizeof name, "%s", ti->name);
    if (ti->supported)
        snprintf(value, sizeof value, "%.4f", v);
    else
        snprintf(value, sizeof value, "-");
    printf("result %s %s %s %s errors=%ld pes=%d routine=%s\n", name, value, ti->unit,
           !ti->supported ? "n/a" : bad ? "FAIL" : "ok", bad, npes, ti->routine);
    fflush(stdout);
}

/* PE 0: measures the point-to-point steps, prints every step. */
static int origin(const struct step *steps, int n)
{
    int failed = 0;
    for (int k = 0; k < n; k++) {
        const struct step *st = &steps[k];
        long bad = 0;
        double v = 0;
        if (tests[st->test].collective) {
            v = run_collective(k, st, &bad);
        } else if (tests[st->test].supported) {
            wait_for(&board->ack, 2L * k + 1);
            switch (st->test) {
            case PUT: v = run_put(k, &bad); break;
            case GET: v = run_get(k, &bad); break;
            case FADD: v = run_fadd(k, &bad); break;
            case SIGNAL: v = run_signal(k, &bad); break;
            default: v = run_rate(k, st, &bad); break;
            }
            shmem_quiet();
            for (int pe = 1; pe < npes; pe++)
                shmem_long_p(&board->go, k + 1, pe);
            shmem_quiet();
            wait_for(&board->ack, 2L * k + 2);
            bad += board->bad;
        }
        print_result(st, v, bad);
        failed |= bad != 0;
    }
    return failed;
}

/* The other PEs: PE 1 is the point-to-point target, the others wait. */
static void follower(const struct step *steps, int n)
{
    for (int k = 0; k < n; k++) {
        const struct step *st = &steps[k];
        long bad = 0;
        if (tests[st->test].collective) {
            run_collective(k, st, &bad);
        } else if (tests[st->test].supported && me == 1) {
            prepare(k, st);
            ack(2L * k + 1, 0);
            if (st->test == SIGNAL)
                run_signal(k, &bad);
            wait_for(&board->go, k + 1);
            ack(2L * k + 2, bad + verify(k, st));
        } else if (tests[st->test].supported) {
            wait_for(&board->go, k + 1);
        }
    }
}

/* ---- command line ---- */
static int parse_steps(const char *list, const char *threads, struct step *steps)
{
    int n = 0;
    char tl[256], wl[256];
    snprintf(wl, sizeof wl, "%s", list);
    for (char *save = NULL, *w = strtok_r(wl, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
        int test = -1;
        for (int i = 0; i < NTESTS; i++)
            if (strcmp(w, tests[i].name) == 0)
                test = i;
        if (test < 0 || n == MAX_STEPS)
            return -1;
        if (!tests[test].rate) {
            steps[n++] = (struct step){.test = (enum test)test};
            continue;
        }
        snprintf(tl, sizeof tl, "%s", threads);
        for (char *s2 = NULL, *t = strtok_r(tl, ",", &s2); t; t = strtok_r(NULL, ",", &s2)) {
            int th = atoi(t);
            if (th < 1 || th > MAX_THREADS || n == MAX_STEPS)
                return -1;
            steps[n++] = (struct step){.test = (enum test)test, .threads = th};
        }
    }
    return n;
}

static int usage(void)
{
    fprintf(stderr, "usage: rmamt-shmem [--samples S (1-%d)] [--iters N] [--coll-iters N] [--threads 1,2 (up to %d)] "
            "[--tests put,get,nbi,add,fadd,signal,barrier,reduce]\n", MAX_SAMPLES, MAX_THREADS);
    return 2;
}

int main(int argc, char **argv)
{
    const char *list = "put,get,nbi,add,fadd,signal,barrier,reduce", *threads = "1,2";
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--samples") == 0)
            samples = atol(argv[i + 1]);
        else if (strcmp(argv[i], "--iters") == 0)
            iters = atol(argv[i + 1]);
        else if (strcmp(argv[i], "--coll-iters") == 0)
            coll_iters = atol(argv[i + 1]);
        else if (strcmp(argv[i], "--threads") == 0)
            threads = argv[i + 1];
        else if (strcmp(argv[i], "--tests") == 0)
            list = argv[i + 1];
        else
            return usage();
    }
    struct step steps[MAX_STEPS];
    int nsteps = parse_steps(list, threads, steps);
    if (argc % 2 == 0 || nsteps <= 0 || samples < 1 || samples > MAX_SAMPLES || iters < 1 || coll_iters < 1)
        return usage();

    shmem_init_thread(SHMEM_THREAD_MULTIPLE, &thread_level);
    me = shmem_my_pe();
    npes = shmem_n_pes();
    int rc = 0;
    if (npes < 2) {
        fprintf(stderr, "rmamt-shmem: run with 2 PEs or more (not %d)\n", npes);
        shmem_finalize();
        return 2;
    }
    board = shmem_align(64, sizeof *board);
    gathered = shmem_malloc((size_t)npes * sizeof *gathered);
    if (!board || !gathered) {
        fprintf(stderr, "rmamt-shmem: PE %d: shmem_malloc of %zu bytes failed\n", me,
                sizeof *board + (size_t)npes * sizeof *gathered);
        shmem_global_exit(2);
    }
    memset(board, 0, sizeof *board);
#if !HAVE_1_5
    for (int b = 0; b < 2; b++)
        for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++)
            board->psync[b][i] = SHMEM_SYNC_VALUE;
#endif
    shmem_barrier_all();
    if (me == 0) {
        char name[SHMEM_MAX_NAME_LEN];
        int major, minor;
        shmem_info_get_name(name);
        shmem_info_get_version(&major, &minor);
        printf("# %s (OpenSHMEM %d.%d), %d PEs, thread level %d, %ld samples of %ld (collectives: %ld)\n", name,
               major, minor, npes, thread_level, samples, iters, coll_iters);
        rc = origin(steps, nsteps);
    } else {
        follower(steps, nsteps);
    }
    shmem_free(gathered);
    shmem_free(board);
    shmem_finalize();
    return rc;
}
