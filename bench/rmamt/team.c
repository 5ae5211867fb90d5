/* Worker threads that exist and wait before the clock starts (the RMA-MT
 * paper's timing): the main thread releases a round and waits for its end. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <unistd.h>

#include "rmamt.h"

struct member {
    struct team *team;
    int index;
    pthread_t tid;
};

struct team {
    int n, stop;
    void (*fn)(int, void *);
    void *arg;
    pthread_barrier_t start, end;
    struct member *m;
};

static void *member_main(void *p)
{
    struct member *m = p;
    struct team *t = m->team;
    for (;;) {
        pthread_barrier_wait(&t->start);
        if (t->stop)
            return NULL;
        t->fn(m->index, t->arg);
        pthread_barrier_wait(&t->end);
    }
}

struct team *team_create(int n, void (*fn)(int, void *), void *arg, int bind)
{
    struct team *t = calloc(1, sizeof *t);
    t->n = n;
    t->fn = fn;
    t->arg = arg;
    t->m = calloc((size_t)n, sizeof *t->m);
    pthread_barrier_init(&t->start, NULL, (unsigned)n + 1);
    pthread_barrier_init(&t->end, NULL, (unsigned)n + 1);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    for (int i = 0; i < n; i++) {
        t->m[i] = (struct member){t, i, 0};
        pthread_create(&t->m[i].tid, NULL, member_main, &t->m[i]);
        if (bind && cores > 0) {
            cpu_set_t set;
            CPU_ZERO(&set);
            CPU_SET((int)(i % cores), &set);
            pthread_setaffinity_np(t->m[i].tid, sizeof set, &set);
        }
    }
    return t;
}

void team_release(struct team *t) { pthread_barrier_wait(&t->start); }
void team_wait(struct team *t) { pthread_barrier_wait(&t->end); }

void team_destroy(struct team *t)
{
    t->stop = 1;
    pthread_barrier_wait(&t->start);
    for (int i = 0; i < t->n; i++)
        pthread_join(t->m[i].tid, NULL);
    pthread_barrier_destroy(&t->start);
    pthread_barrier_destroy(&t->end);
    free(t->m);
    free(t);
}
