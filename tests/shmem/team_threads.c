/* Collectives from several threads at once (SHMEM_THREAD_MULTIPLE), each
 * thread on a team of its own (copies of the world and reversed worlds, so
 * team PE numbers differ between threads): sum reductions, broadcasts from a
 * moving root, fcollects, and puts through a private context of the team
 * with team PE numbers, completed by ctx_quiet and ordered by team_sync;
 * every element checked in every iteration. */
#include <pthread.h>

#include "coll_util.h"

#define THREADS 4
#define ITERS 40
#define N 16

struct job {
    int id;
    shmem_team_t team;
    long *src, *dst;
    int *box;
    int errors;
};

#define JOB_EXPECT(cond, ...)                                                                                      \
    do {                                                                                                           \
        if (!(cond) && j->errors++ < 5) {                                                                          \
            fprintf(stderr, "PE %d thread %d iteration %d: ", me, j->id, it);                                      \
            fprintf(stderr, __VA_ARGS__);                                                                          \
            fputc('\n', stderr);                                                                                   \
        }                                                                                                          \
    } while (0)

static long value(int w, int it, int id, int k) { return (long)w * 100000 + it * 100 + id * 20 + k; }

static void collectives(struct job *j, int it, int n, int me)
{
    for (int k = 0; k < N; k++)
        j->src[k] = value(me, it, j->id, k);
    JOB_EXPECT(shmem_long_sum_reduce(j->team, j->dst, j->src, N) == 0, "sum_reduce failed");
    for (int k = 0; k < N; k++) {
        long want = 0;
        for (int i = 0; i < n; i++)
            want += value(wpe(j->team, i), it, j->id, k);
        JOB_EXPECT(j->dst[k] == want, "sum_reduce element %d: %ld, not %ld", k, j->dst[k], want);
    }
    int root = it % n;
    JOB_EXPECT(shmem_long_broadcast(j->team, j->dst, j->src, N, root) == 0, "broadcast failed");
    for (int k = 0; k < N; k++)
        JOB_EXPECT(j->dst[k] == value(wpe(j->team, root), it, j->id, k), "broadcast element %d", k);
    JOB_EXPECT(shmem_long_fcollect(j->team, j->dst, j->src, N) == 0, "fcollect failed");
    for (int i = 0; i < n; i++)
        for (int k = 0; k < N; k++)
            JOB_EXPECT(j->dst[i * N + k] == value(wpe(j->team, i), it, j->id, k), "fcollect element %d of %d", k, i);
}

static void *run(void *arg)
{
    struct job *j = arg;
    int n = shmem_team_n_pes(j->team), t = shmem_team_my_pe(j->team), me = shmem_my_pe(), it = -1;
    int next = (t + 1) % n, prev = (t + n - 1) % n;
    shmem_ctx_t ctx;
    JOB_EXPECT(shmem_team_create_ctx(j->team, SHMEM_CTX_PRIVATE, &ctx) == 0, "no private context of the team");
    for (it = 0; it < ITERS; it++) {
        collectives(j, it, n, me);
        shmem_ctx_int_p(ctx, &j->box[t], it * 1000 + me, next);
        shmem_ctx_quiet(ctx);
        JOB_EXPECT(shmem_team_sync(j->team) == 0, "team_sync failed");
        JOB_EXPECT(j->box[prev] == it * 1000 + wpe(j->team, prev), "the put of team PE %d: %d", prev, j->box[prev]);
        shmem_team_sync(j->team); /* read before the next iteration writes */
    }
    shmem_ctx_destroy(ctx);
    return NULL;
}

int main(void)
{
    int provided = -1;
    if (shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided) != 0 || provided != SHMEM_THREAD_MULTIPLE) {
        fprintf(stderr, "SHMEM_THREAD_MULTIPLE is not provided (%d)\n", provided);
        return 1;
    }
    int n = shmem_n_pes();
    struct job jobs[THREADS];
    pthread_t threads[THREADS];
    for (int i = 0; i < THREADS; i++) {
        jobs[i] = (struct job){.id = i};
        int rc = i % 2 ? shmem_team_split_strided(SHMEM_TEAM_WORLD, n - 1, -1, n, NULL, 0, &jobs[i].team)
                       : shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, n, NULL, 0, &jobs[i].team);
        EXPECT(rc == 0, "team %d", i);
        jobs[i].src = shmem_malloc(N * sizeof(long));
        jobs[i].dst = shmem_malloc((size_t)n * N * sizeof(long));
        jobs[i].box = shmem_calloc((size_t)n, sizeof(int));
    }
    for (int i = 0; i < THREADS; i++)
        pthread_create(&threads[i], NULL, run, &jobs[i]);
    for (int i = 0; i < THREADS; i++) {
        pthread_join(threads[i], NULL);
        errors += jobs[i].errors;
    }
    shmem_barrier_all();
    for (int i = 0; i < THREADS; i++) {
        shmem_team_destroy(jobs[i].team);
        shmem_free(jobs[i].src);
        shmem_free(jobs[i].dst);
        shmem_free(jobs[i].box);
    }
    return finish("collectives from threads on their own teams");
}
