/* What both modes of shmem-gups share (shmem_gups.h): the workers, the
 * collectives of the result line, the line itself and the problem messages. */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "shmem_gups.h"

double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* ---- workers -------------------------------------------------------------- */

struct crew {
    int threads;
    unsigned long long total;
    void (*body)(const struct worker *, void *);
    void *arg;
    /* ready: every context made; go: every PE's barrier passed; done: every
     * worker has quieted its context */
    pthread_barrier_t ready, go, done;
    double start, end; /* worker 0's clock */
};

struct member {
    struct crew *crew;
    int index;
};

static void work(struct crew *c, int index)
{
    struct worker w = {.index = index,
                       .ctx = SHMEM_CTX_DEFAULT,
                       .first = c->total * (unsigned long long)index / (unsigned long long)c->threads,
                       .end = c->total * (unsigned long long)(index + 1) / (unsigned long long)c->threads};
    int own_ctx = 0;
    if (c->threads > 1) {
        own_ctx = shmem_ctx_create(SHMEM_CTX_PRIVATE, &w.ctx) == 0;
        if (!own_ctx) {
            fprintf(stderr, "shmem-gups: PE %d thread %d: shmem_ctx_create(SHMEM_CTX_PRIVATE) failed, "
                            "using the default context\n", shmem_my_pe(), index);
            w.ctx = SHMEM_CTX_DEFAULT;
        }
    }
    pthread_barrier_wait(&c->ready);
    if (index == 0) {
        /* the tables are ready on every PE, and every PE starts together */
        shmem_barrier_all();
        c->start = now_seconds();
    }
    pthread_barrier_wait(&c->go);
    c->body(&w, c->arg);
    /* the operations of a private context are complete only after its own
     * quiet: shmem_barrier_all completes the default context's */
    shmem_ctx_quiet(w.ctx);
    pthread_barrier_wait(&c->done);
    if (index == 0)
        c->end = now_seconds();
    if (own_ctx)
        shmem_ctx_destroy(w.ctx);
}

static void *work_on_thread(void *p)
{
    struct member *m = p;
    work(m->crew, m->index);
    return NULL;
}

double run_workers(int threads, unsigned long long total, void (*body)(const struct worker *, void *), void *arg)
{
    struct crew c = {.threads = threads, .total = total, .body = body, .arg = arg};
    pthread_barrier_init(&c.ready, NULL, (unsigned)threads);
    pthread_barrier_init(&c.go, NULL, (unsigned)threads);
    pthread_barrier_init(&c.done, NULL, (unsigned)threads);
    pthread_t *tid = calloc((size_t)threads, sizeof *tid);
    struct member *members = calloc((size_t)threads, sizeof *members);
    if (!tid || !members) {
        fprintf(stderr, "shmem-gups: PE %d: out of memory for %d threads\n", shmem_my_pe(), threads);
        shmem_global_exit(1);
    }
    for (int t = 1; t < threads; t++) {
        members[t] = (struct member){.crew = &c, .index = t};
        int rc = pthread_create(&tid[t], NULL, work_on_thread, &members[t]);
        if (rc != 0) {
            fprintf(stderr, "shmem-gups: PE %d: pthread_create: %s\n", shmem_my_pe(), strerror(rc));
            shmem_global_exit(1);
        }
    }
    work(&c, 0);
    for (int t = 1; t < threads; t++)
        pthread_join(tid[t], NULL);
    free(members);
    free(tid);
    pthread_barrier_destroy(&c.ready);
    pthread_barrier_destroy(&c.go);
    pthread_barrier_destroy(&c.done);
    return c.end - c.start;
}

/* ---- collectives ----------------------------------------------------------- */

/* Source and destination of a reduction must be symmetric: static data is. */
static double reduce_doubles[REDUCE_MAX];
static long long reduce_longlongs[REDUCE_MAX];

#if GUPS_SHMEM_1_5
static void reduce_max_symmetric(double *v, int n) { shmem_double_max_reduce(SHMEM_TEAM_WORLD, v, v, (size_t)n); }
static void reduce_sum_symmetric(long long *v, int n)
{
    shmem_longlong_sum_reduce(SHMEM_TEAM_WORLD, v, v, (size_t)n);
}
#else
/* OpenSHMEM 1.4's active-set reductions over all PEs: pSync is set once, and a
 * barrier after each call lets the next reuse it. */
enum { WORK_SIZE = REDUCE_MAX / 2 + 1 > SHMEM_REDUCE_MIN_WRKDATA_SIZE ? REDUCE_MAX / 2 + 1
                                                                      : SHMEM_REDUCE_MIN_WRKDATA_SIZE };
static long reduce_sync[SHMEM_REDUCE_SYNC_SIZE];
static double work_doubles[WORK_SIZE];
static long long work_longlongs[WORK_SIZE];

static void reduce_sync_ready(void)
{
    static int ready;
    if (ready)
        return;
    for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++)
        reduce_sync[i] = SHMEM_SYNC_VALUE;
    shmem_barrier_all();
    ready = 1;
}
static void reduce_max_symmetric(double *v, int n)
{
    reduce_sync_ready();
    shmem_double_max_to_all(v, v, n, 0, 0, shmem_n_pes(), work_doubles, reduce_sync);
    shmem_barrier_all();
}
static void reduce_sum_symmetric(long long *v, int n)
{
    reduce_sync_ready();
    shmem_longlong_sum_to_all(v, v, n, 0, 0, shmem_n_pes(), work_longlongs, reduce_sync);
    shmem_barrier_all();
}
#endif

void reduce_max_double(double *values, int n)
{
    memcpy(reduce_doubles, values, (size_t)n * sizeof *values);
    reduce_max_symmetric(reduce_doubles, n);
    memcpy(values, reduce_doubles, (size_t)n * sizeof *values);
}

void reduce_sum_longlong(long long *values, int n)
{
    memcpy(reduce_longlongs, values, (size_t)n * sizeof *values);
    reduce_sum_symmetric(reduce_longlongs, n);
    memcpy(values, reduce_longlongs, (size_t)n * sizeof *values);
}

/* ---- the result line -------------------------------------------------------- */

void phase_add(struct phases *t, const char *name, double seconds)
{
    for (int i = 0; i < t->n; i++)
        if (strcmp(t->name[i], name) == 0) {
            t->seconds[i] += seconds;
            return;
        }
    if (t->n < REDUCE_MAX) {
        t->name[t->n] = name;
        t->seconds[t->n++] = seconds;
    }
}

int report(const char *mode, const struct phases *t, const char *rate_name, double count, double rate_scale,
           const char *extra, long long problems)
{
    double worst[REDUCE_MAX];
    memcpy(worst, t->seconds, (size_t)t->n * sizeof *worst);
    reduce_max_double(worst, t->n);
    long long verdicts[2] = {problems > 0, problems < 0}; /* PEs that failed, PEs that did not check */
    reduce_sum_longlong(verdicts, 2);
    if (shmem_my_pe() == 0) {
        double total = 0;
        for (int i = 0; i < t->n; i++)
            total += worst[i];
        printf("shmem-gups mode=%s np=%d time=%.6e", mode, shmem_n_pes(), total);
        for (int i = 0; i < t->n; i++)
            printf(" %s=%.6e", t->name[i], worst[i]);
        printf(" %s=%.6e%s%s verify=%s\n", rate_name, count / total / rate_scale, extra ? " " : "", extra ? extra : "",
               verdicts[0] ? "FAILED" : verdicts[1] ? "off" : "ok");
        fflush(stdout);
    }
    return verdicts[0] > 0;
}

/* ---- problems --------------------------------------------------------------- */

enum { PRINTED_PROBLEMS = 10 };

void problem(long long *problems, const char *mode, const char *format, ...)
{
    if ((*problems)++ >= PRINTED_PROBLEMS)
        return;
    va_list ap;
    va_start(ap, format);
    fprintf(stderr, "shmem-gups: PE %d: %s: ", shmem_my_pe(), mode);
    vfprintf(stderr, format, ap);
    fputc('\n', stderr);
    va_end(ap);
}

void problems_summary(long long problems, const char *mode)
{
    if (problems > PRINTED_PROBLEMS)
        fprintf(stderr, "shmem-gups: PE %d: %s: %lld problems in all\n", shmem_my_pe(), mode, problems);
}
