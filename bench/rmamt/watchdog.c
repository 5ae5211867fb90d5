/* --timeout: a thread that, when the run has made no progress for that long,
 * says what the process was doing and exits with status 3 (the launcher ends
 * the job).  Progress is a finished step (a watchdog_doing() call, one per
 * measurement) or a finished round (watchdog_tick()), so a slow run on a
 * loaded machine, with many threads on few cores, is reported as slow by its
 * timings, and only a round that never ends is a hang. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "rmamt.h"

static char doing[256] = "starting";
static unsigned long steps;  /* watchdog_doing() calls so far */
static _Atomic unsigned long rounds; /* watchdog_tick() calls so far */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* Called once per round from the timed loops: a plain load and store, no
 * locked add (7 ns of a 50 ns fetch_and_op round).  Ticks of two threads at
 * once may lose one; the watchdog needs only to see the count change. */
void watchdog_tick(void)
{
    atomic_store_explicit(&rounds, atomic_load_explicit(&rounds, memory_order_relaxed) + 1, memory_order_relaxed);
}

void watchdog_doing(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    pthread_mutex_lock(&lock);
    vsnprintf(doing, sizeof doing, fmt, ap);
    steps++;
    pthread_mutex_unlock(&lock);
    va_end(ap);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void *watch(void *arg)
{
    double limit = *(double *)arg;
    unsigned long seen = (unsigned long)-1;
    double since = now();
    for (;;) {
        struct timespec tick = {0, 100 * 1000 * 1000};
        nanosleep(&tick, NULL);
        pthread_mutex_lock(&lock);
        unsigned long progress = steps + atomic_load_explicit(&rounds, memory_order_relaxed);
        if (progress != seen) {
            seen = progress;
            since = now();
        } else if (now() - since >= limit) {
            break;  /* keeps the lock: no one rewrites `doing` while it is printed */
        }
        pthread_mutex_unlock(&lock);
    }
    int rank = -1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    fprintf(stderr, "rmamt: HANG: rank %d made no progress for %.0f s (--timeout), while %s\n", rank, limit,
            doing);
    fflush(stderr);
    _exit(3);
    return NULL;
}

void watchdog_start(double seconds)
{
    static double s;
    static pthread_t t;
    s = seconds;
    pthread_create(&t, NULL, watch, &s);
    pthread_detach(t);
}
