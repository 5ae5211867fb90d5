/* What MPI_Win_complete must have done when the target's MPI_Win_wait
 * returns, and when complete itself returns, whoever issued the epoch's
 * operations:
 *  - every put (many small ones, a strided one, a 4 KiB one) and the
 *    accumulate of the epoch is in the target's memory after its wait;
 *  - a get of the epoch has its data at the origin after complete;
 *  - the same when a helper thread of the origin issued all of them (its
 *    own communication resources) and the main thread calls complete, and
 *    when that helper thread has ended before complete.
 * Across nodes Remora sends complete's notification behind the epoch's
 * data instead of flushing first: a notification that overtakes the data,
 * or leaves some of it gathered and unsent, fails the target's checks, and
 * one that does not wait for a get's reply fails the origin's.
 * Ring: rank r accesses r+1 and exposes to r-1, every window kind. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

#define NPUT 64       /* single puts of one long */
#define NSTRIDED 32   /* longs of the strided put, every other slot */
#define BIG 512       /* longs of the 4 KiB put */
#define AT_STRIDED NPUT
#define AT_BIG (AT_STRIDED + 2 * NSTRIDED)
#define AT_COUNTER (AT_BIG + BIG)
#define AT_READ (AT_COUNTER + 1) /* what the target exposes to its origin's get */
#define NSLOTS (AT_READ + 1)

static long iters = 30;

struct epoch {
    mtest_win *w;
    int target;
    long it;
    long src[NPUT + 2 * NSTRIDED + BIG]; /* the origin's buffers stay valid until complete */
    long one, got;
};

static long value(long it, int origin, long k) { return it * 100000 + origin * 1000 + k; }

/* The epoch's operations toward e->target, from whichever thread calls it. */
static void issue(struct epoch *e)
{
    int me = mtest.rank;
    for (long k = 0; k < NPUT; k++) {
        e->src[k] = value(e->it, me, k);
        MTEST_MPI(MPI_Put(&e->src[k], 1, MPI_LONG, e->target, mtest_disp(e->w, e->target, k * sizeof(long)), 1,
                          MPI_LONG, e->w->win));
    }
    MPI_Datatype every_other;
    MPI_Type_vector(NSTRIDED, 1, 2, MPI_LONG, &every_other);
    MPI_Type_commit(&every_other);
    long *strided = e->src + NPUT, *big = strided + 2 * NSTRIDED;
    for (long k = 0; k < 2 * NSTRIDED; k++)
        strided[k] = value(e->it, me, AT_STRIDED + k);
    MTEST_MPI(MPI_Put(strided, 1, every_other, e->target, mtest_disp(e->w, e->target, AT_STRIDED * sizeof(long)), 1,
                      every_other, e->w->win));
    MPI_Type_free(&every_other);
    for (long k = 0; k < BIG; k++)
        big[k] = value(e->it, me, AT_BIG + k);
    MTEST_MPI(MPI_Put(big, BIG, MPI_LONG, e->target, mtest_disp(e->w, e->target, AT_BIG * sizeof(long)), BIG,
                      MPI_LONG, e->w->win));
    e->one = 1;
    MTEST_MPI(MPI_Accumulate(&e->one, 1, MPI_LONG, e->target, mtest_disp(e->w, e->target, AT_COUNTER * sizeof(long)),
                             1, MPI_LONG, MPI_SUM, e->w->win));
    e->got = -1;
    MTEST_MPI(MPI_Get(&e->got, 1, MPI_LONG, e->target, mtest_disp(e->w, e->target, AT_READ * sizeof(long)), 1,
                      MPI_LONG, e->w->win));
}

static void *issue_main(void *arg)
{
    issue(arg);
    return NULL;
}

/* The helper thread, kept across epochs: issues when told, then reports. */
struct helper {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    struct epoch *job; /* set by the main thread, cleared by the helper when issued */
    int quit;
};

static void *helper_main(void *arg)
{
    struct helper *h = arg;
    pthread_mutex_lock(&h->lock);
    for (;;) {
        while (!h->job && !h->quit)
            pthread_cond_wait(&h->cond, &h->lock);
        if (h->quit)
            break;
        issue(h->job);
        h->job = NULL;
        pthread_cond_broadcast(&h->cond);
    }
    pthread_mutex_unlock(&h->lock);
    return NULL;
}

static void by_helper(struct helper *h, struct epoch *e)
{
    pthread_mutex_lock(&h->lock);
    h->job = e;
    pthread_cond_broadcast(&h->cond);
    while (h->job)
        pthread_cond_wait(&h->cond, &h->lock);
    pthread_mutex_unlock(&h->lock);
}

static void ring(mtest_win *w, struct helper *h)
{
    int me = mtest.rank, n = mtest.size, right = (me + 1) % n, left = (me + n - 1) % n;
    long *mem = (long *)w->base;
    MPI_Group world, to, from;
    MPI_Win_get_group(w->win, &world);
    MPI_Group_incl(world, 1, &right, &to);
    MPI_Group_incl(world, 1, &left, &from);
    memset(mem, 0, NSLOTS * sizeof(long));
    MPI_Barrier(MPI_COMM_WORLD);
    for (long it = 0; it < iters; it++) {
        mem[AT_READ] = value(it, me, AT_READ); /* before the post: the origin's get reads it */
        MTEST_MPI(MPI_Win_post(from, 0, w->win));
        MTEST_MPI(MPI_Win_start(to, 0, w->win));
        struct epoch e = {.w = w, .target = right, .it = it};
        const char *who = it % 3 == 0 ? "this thread" : it % 3 == 1 ? "a helper thread" : "a thread that ended";
        if (it % 3 == 0) {
            issue(&e);
        } else if (it % 3 == 1) {
            by_helper(h, &e);
        } else {
            pthread_t t;
            pthread_create(&t, NULL, issue_main, &e);
            pthread_join(t, NULL);
        }
        MTEST_MPI(MPI_Win_complete(w->win));
        MTEST_CHECK(e.got == value(it, right, AT_READ), "epoch %ld (%s): the get brought %ld after complete", it, who,
                    e.got);
        MTEST_MPI(MPI_Win_wait(w->win));
        long bad = -1;
        for (long k = 0; k < AT_COUNTER && bad < 0; k++) {
            int gap = k >= AT_STRIDED && k < AT_BIG && (k - AT_STRIDED) % 2; /* the strided put skips it: 0 */
            if (mem[k] != (gap ? 0 : value(it, left, k)))
                bad = k;
        }
        MTEST_CHECK(bad < 0, "epoch %ld (issued by %s): slot %ld is %ld after wait", it, who, bad,
                    bad < 0 ? 0 : mem[bad]);
        MTEST_CHECK(mem[AT_COUNTER] == it + 1, "epoch %ld: the accumulated counter is %ld after wait, not %ld", it,
                    mem[AT_COUNTER], it + 1);
    }
    MPI_Group_free(&to);
    MPI_Group_free(&from);
    MPI_Group_free(&world);
}

int main(int argc, char **argv)
{
    mtest_init(&argc, &argv, MPI_THREAD_MULTIPLE);
    iters = mtest_arg_long(argc, argv, "--iters", iters);
    mtest_win_kind kinds[MTEST_NKINDS];
    int nkinds = mtest_win_kinds(argc, argv, kinds);
    struct helper h = {.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER};
    pthread_t helper;
    pthread_create(&helper, NULL, helper_main, &h);
    for (int k = 0; k < nkinds; k++) {
        mtest_set_context("%s window", mtest_win_kind_name(kinds[k]));
        mtest_win w;
        mtest_win_open(&w, kinds[k], NSLOTS * sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD);
        ring(&w, &h);
        mtest_win_close(&w);
    }
    pthread_mutex_lock(&h.lock);
    h.quit = 1;
    pthread_cond_broadcast(&h.cond);
    pthread_mutex_unlock(&h.lock);
    pthread_join(helper, NULL);
    return mtest_finish();
}
