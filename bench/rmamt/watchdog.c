/* --timeout: a thread that, if the run is not over in time, says what the
 * process was doing and exits with status 3 (the launcher ends the job). */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "rmamt.h"

static char doing[256] = "starting";
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

void watchdog_doing(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    pthread_mutex_lock(&lock);
    vsnprintf(doing, sizeof doing, fmt, ap);
    pthread_mutex_unlock(&lock);
    va_end(ap);
}

static void *watch(void *arg)
{
    double s = *(double *)arg;
    struct timespec ts = {(time_t)s, (long)((s - (time_t)s) * 1e9)};
    while (nanosleep(&ts, &ts) != 0)
        ;
    int rank = -1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    pthread_mutex_lock(&lock);
    fprintf(stderr, "rmamt: HANG: rank %d still running after %.0f s (--timeout), while %s\n", rank, s, doing);
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
