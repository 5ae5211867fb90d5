/* OpenSHMEM micro-benchmarks that build unchanged against any OpenSHMEM 1.4
 * or later library (Remora's with oshcc, Open MPI's OSHMEM with its oshcc),
 * so that scripts/shmem-bench can run both in one session.
 *
 *   shmem_bench [--samples S] [--iters N] [--threads 1,2] [--tests put,get,nbi,fadd]
 *
 * Two PEs.  PE 0 (the origin) measures; PE 1 (the target) only prepares and
 * checks its memory, and between steps waits in shmem_long_wait_until (see
 * wait_for: what that costs the origin's threads is the library's).  Tests,
 * each S timed samples of N operations after one untimed warm-up sample,
 * reported as the median sample:
 *   put    shmem_putmem of 8 bytes + shmem_quiet, latency (us)
 *   get    shmem_getmem of 8 bytes, latency (us)
 *   nbi    shmem_ctx_putmem_nbi of 8 bytes, message rate (million/s) with T
 *          threads, each on a SHMEM_CTX_PRIVATE context of its own, SLOTS
 *          puts then shmem_ctx_quiet per round: one line per --threads entry
 *   fadd   shmem_long_atomic_fetch_add latency (us)
 * Every datum is checked: the target checks the last value of every slot
 * the origin wrote, the origin every value it read or fetched.  One line per
 * test: "result <test> <median> <unit> ok" or "... FAIL <wrong values>";
 * the exit status is nonzero when any test failed. */
#include <pthread.h>
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { SLOTS = 256, MAX_THREADS = 16, MAX_SAMPLES = 1000, MAX_STEPS = 3 + MAX_THREADS };

/* Symmetric heap (zeroed by each PE, then a barrier: OSHMEM's shmem_calloc
 * zeroes after its barrier, when a faster PE may have written already): the
 * handshake words on lines of their own, then the data. */
struct board {
    long go;         /* at the target: the last step the origin finished     */
    long pad0[7];
    long ack;        /* at the origin: the step the target is ready for      */
    long bad;        /* at the origin: what the target found wrong last step */
    long pad1[6];
    long counter;    /* fetch_add's word, at the target                      */
    long pad2[7];
    long data[MAX_THREADS * SLOTS];
};

enum test { PUT, GET, NBI, FADD };
struct step {
    enum test test;
    int threads; /* nbi */
};

static struct board *board;
static long samples = 9, iters = 50000;
static int thread_level;

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
            t[smp] = (now() - t0) / (double)iters * 1e6;
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
            t[smp] = (now() - t0) / (double)iters * 1e6;
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
            t[smp] = (now() - t0) / (double)iters * 1e6;
    }
    return median(t, samples);
}

/* nbi: rounds of SLOTS puts per sample, about iters puts per thread */
static long nbi_rounds(void) { return iters / SLOTS > 0 ? iters / SLOTS : 1; }

struct nbi_thread {
    int k, t, threads;
    pthread_barrier_t *bar;
    double *rate; /* by sample: thread 0 writes */
    long bad;
};

/* A round's values: thread t, round r (counted over all samples), slot j. */
static long nbi_value(int k, int t, long r, long j) { return tag(k, (r * MAX_THREADS + t) * SLOTS + j); }

static void *nbi_thread(void *arg)
{
    struct nbi_thread *a = arg;
    shmem_ctx_t ctx;
    long *src = malloc(SLOTS * sizeof *src), *dst = &board->data[a->t * SLOTS], r = 0;
    int made = shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) == 0;
    if (!made || !src) {
        fprintf(stderr, "shmem_bench: nbi thread %d: %s\n", a->t, made ? "out of memory" : "shmem_ctx_create failed");
        a->bad++;
    }
    for (long smp = -1; smp < samples; smp++) {
        pthread_barrier_wait(a->bar);
        double t0 = now();
        for (long i = 0; made && src && i < nbi_rounds(); i++, r++) {
            for (long j = 0; j < SLOTS; j++) /* a source may be reused only after the quiet */
                src[j] = nbi_value(a->k, a->t, r, j);
            for (long j = 0; j < SLOTS; j++)
                shmem_ctx_putmem_nbi(ctx, &dst[j], &src[j], sizeof *src, 1);
            shmem_ctx_quiet(ctx);
        }
        pthread_barrier_wait(a->bar);
        if (a->t == 0 && smp >= 0)
            a->rate[smp] = (double)(a->threads * nbi_rounds() * SLOTS) / (now() - t0) / 1e6;
    }
    if (made)
        shmem_ctx_destroy(ctx);
    free(src);
    return NULL;
}

static double run_nbi(int k, int threads, long *bad)
{
    double rate[MAX_SAMPLES];
    struct nbi_thread a[MAX_THREADS];
    pthread_t id[MAX_THREADS];
    pthread_barrier_t bar;
    if (threads > 1 && thread_level != SHMEM_THREAD_MULTIPLE) {
        fprintf(stderr, "shmem_bench: nbi with %d threads needs SHMEM_THREAD_MULTIPLE (the library gave level %d)\n",
                threads, thread_level);
        ++*bad;
        return 0;
    }
    pthread_barrier_init(&bar, NULL, (unsigned)threads);
    for (int t = 0; t < threads; t++) {
        a[t] = (struct nbi_thread){.k = k, .t = t, .threads = threads, .bar = &bar, .rate = rate};
        pthread_create(&id[t], NULL, nbi_thread, &a[t]);
    }
    for (int t = 0; t < threads; t++) {
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
                bad += board->data[t * SLOTS + j] != nbi_value(k, t, (samples + 1) * nbi_rounds() - 1, j);
        break;
    case FADD:
        bad += board->counter != total;
        break;
    case GET:
        break; /* the origin checks what it read */
    }
    return bad;
}

static const char *test_name(const struct step *st, char *buf, size_t len)
{
    static const char *names[] = {"put", "get", "nbi", "fadd"};
    if (st->test == NBI)
        snprintf(buf, len, "nbi_t%d", st->threads);
    else
        snprintf(buf, len, "%s", names[st->test]);
    return buf;
}

/* Tells the origin that step k's memory is ready, with the count of wrong
 * values the target found in step k - 1 (delivered before the ack: quiet). */
static void report(int k, long bad)
{
    shmem_long_p(&board->bad, bad, 0);
    shmem_quiet();
    shmem_long_p(&board->ack, k + 1, 0);
    shmem_quiet();
}

static void target(const struct step *steps, int n)
{
    long bad = 0;
    for (int k = 0; k < n; k++) {
        prepare(k, &steps[k]);
        report(k, bad);
        wait_for(&board->go, k + 1);
        bad = verify(k, &steps[k]);
    }
    report(n, bad);
}

static int origin(const struct step *steps, int n)
{
    int failed = 0;
    for (int k = 0; k < n; k++) {
        wait_for(&board->ack, k + 1);
        long bad = 0;
        double v;
        const char *unit = "us";
        switch (steps[k].test) {
        case PUT: v = run_put(k, &bad); break;
        case GET: v = run_get(k, &bad); break;
        case FADD: v = run_fadd(k, &bad); break;
        default: v = run_nbi(k, steps[k].threads, &bad), unit = "Mmsg/s"; break;
        }
        shmem_quiet();
        shmem_long_p(&board->go, k + 1, 1);
        shmem_quiet();
        wait_for(&board->ack, k + 2);
        bad += board->bad;
        char name[32];
        printf("result %s %.4f %s %s", test_name(&steps[k], name, sizeof name), v, unit, bad ? "FAIL" : "ok");
        if (bad)
            printf(" %ld", bad);
        printf("\n");
        fflush(stdout);
        failed |= bad != 0;
    }
    return failed;
}

/* ---- command line ---- */
static int parse_steps(const char *tests, const char *threads, struct step *steps)
{
    static const char *names[] = {"put", "get", "nbi", "fadd"};
    int n = 0;
    char list[256], tl[256];
    snprintf(list, sizeof list, "%s", tests);
    for (char *save = NULL, *w = strtok_r(list, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
        int test = -1;
        for (int i = 0; i < 4; i++)
            if (strcmp(w, names[i]) == 0)
                test = i;
        if (test < 0 || n == MAX_STEPS)
            return -1;
        if (test != NBI) {
            steps[n++] = (struct step){.test = (enum test)test};
            continue;
        }
        snprintf(tl, sizeof tl, "%s", threads);
        for (char *s2 = NULL, *t = strtok_r(tl, ",", &s2); t; t = strtok_r(NULL, ",", &s2)) {
            int th = atoi(t);
            if (th < 1 || th > MAX_THREADS || n == MAX_STEPS)
                return -1;
            steps[n++] = (struct step){.test = NBI, .threads = th};
        }
    }
    return n;
}

static int usage(void)
{
    fprintf(stderr, "usage: shmem_bench [--samples S (1-%d)] [--iters N] [--threads 1,2 (up to %d)] "
            "[--tests put,get,nbi,fadd]\n", MAX_SAMPLES, MAX_THREADS);
    return 2;
}

int main(int argc, char **argv)
{
    const char *tests = "put,get,nbi,fadd", *threads = "1,2";
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--samples") == 0)
            samples = atol(argv[i + 1]);
        else if (strcmp(argv[i], "--iters") == 0)
            iters = atol(argv[i + 1]);
        else if (strcmp(argv[i], "--threads") == 0)
            threads = argv[i + 1];
        else if (strcmp(argv[i], "--tests") == 0)
            tests = argv[i + 1];
        else
            return usage();
    }
    struct step steps[MAX_STEPS];
    int nsteps = parse_steps(tests, threads, steps);
    if (argc % 2 == 0 || nsteps <= 0 || samples < 1 || samples > MAX_SAMPLES || iters < 1)
        return usage();

    shmem_init_thread(SHMEM_THREAD_MULTIPLE, &thread_level);
    int me = shmem_my_pe(), rc = 0;
    if (shmem_n_pes() != 2) {
        if (me == 0)
            fprintf(stderr, "shmem_bench: run with 2 PEs (not %d)\n", shmem_n_pes());
        shmem_finalize();
        return 2;
    }
    board = shmem_malloc(sizeof *board);
    if (!board) {
        fprintf(stderr, "shmem_bench: PE %d: shmem_malloc of %zu bytes failed\n", me, sizeof *board);
        shmem_global_exit(2);
    }
    memset(board, 0, sizeof *board);
    shmem_barrier_all();
    if (me == 0) {
        char name[SHMEM_MAX_NAME_LEN];
        int major, minor;
        shmem_info_get_name(name);
        shmem_info_get_version(&major, &minor);
        printf("# %s (OpenSHMEM %d.%d), 2 PEs, thread level %d, %ld samples of %ld\n", name, major, minor,
               thread_level, samples, iters);
        rc = origin(steps, nsteps);
    } else {
        target(steps, nsteps);
    }
    shmem_free(board);
    shmem_finalize();
    return rc;
}
