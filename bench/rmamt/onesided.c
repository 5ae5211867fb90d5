/* The one-sided benchmarks: latency and bandwidth (ranks 0 -> 1), message
 * rate (ranks < P/2 -> rank + P/2) and halo (every rank to its neighbours
 * in a periodic 3D grid).  A round is one epoch: the main thread opens it,
 * releases the threads (each issues its operations, and in the flush modes
 * its flush), waits for them and closes it; the clock runs from before the
 * opening to after the closing.  With verification (the default) every round
 * is checked - at the target for put and the accumulates, at the origin for
 * get and the fetching operations - between two barriers outside the clock. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layout.h"
#include "rmamt.h"

/* One transfer stream: this rank's thread `thread` sends `batch` operations
 * per round to `target`, into the slots slot0 .. slot0+batch-1 there. */
struct stream {
    int target, thread, slot0;
};

/* What arrives here: slot s holds what (origin, thread) sent. */
struct incoming {
    int origin, thread;
};

struct run {
    const struct options *o;
    size_t size;              /* bytes per operation */
    int threads, batch, nslots;
    struct layout lay;        /* where slot s lies (layout.h)                      */
    MPI_Win win;
    unsigned char *base;      /* my window memory */
    MPI_Aint *remote;         /* dynamic: each rank's region address; else 0 */
    struct stream *streams;   /* mine, grouped by thread */
    int nstreams;
    struct incoming *in;      /* per slot of my window (origin -1: unused) */
    unsigned char *obuf, *rbuf; /* per (thread, batch element): origin and result buffers */
    uint64_t *sums;           /* accumulates: expected value of my slots / of my results */
    uint64_t *rsums;
    MPI_Group origins, targets;
    long round;               /* epoch modes: the round being run                 */
    long first, last;         /* flush modes: the rounds each thread runs, [first, last) */
    long errors;              /* atomic: threads add */
    int rank;
};

static size_t nelem(const struct run *r) { return r->lay.nelem; }
static int fetching(enum op op) { return op == O_GACC || op == O_FOP || op == O_CAS; }

/* --inject-corruption spoils the last round: the flush modes check only its result */
static long last_round(const struct run *r) { return r->o->warmup + r->o->iterations - 1; }

static unsigned char *slot(const struct run *r, unsigned char *buf, int s) { return buf + slot_offset(&r->lay, s); }

static uint64_t *sum_of(const struct run *r, uint64_t *sums, int s, size_t k) { return sums + sum_index(&r->lay, s, k); }

static int groups(const struct run *r) { return r->nslots / r->batch; }

/* Zeroed, line-aligned memory of `bytes`, and a line of slack past it. */
static void *zeroed_lines(size_t bytes)
{
    void *p = aligned_alloc(RMAMT_LINE, bytes + RMAMT_LINE);
    if (p)
        memset(p, 0, bytes + RMAMT_LINE);
    return p;
}

/* ---- roles ---------------------------------------------------------------- */

static int add_rank(int *list, int n, int r)
{
    for (int i = 0; i < n; i++)
        if (list[i] == r)
            return n;
    list[n] = r;
    return n + 1;
}

/* Streams, incoming slots and PSCW groups of this rank for the benchmark. */
static void plan(struct run *r, int size)
{
    const struct options *o = r->o;
    int me = r->rank, T = r->threads, B = r->batch;
    int *tg = calloc((size_t)size, sizeof *tg), *og = calloc((size_t)size, sizeof *og), nt = 0, no = 0;
    r->streams = calloc((size_t)T * 26 + 1, sizeof *r->streams);
    if (o->bench == B_HALO) {
        int nn = o->neighbors;
        r->nslots = nn * B;
        r->in = malloc(sizeof *r->in * (size_t)r->nslots);
        for (int d = 0; d < nn; d++) {
            int to = halo_neighbor(d, +1), from = halo_neighbor(d, -1);
            r->streams[r->nstreams++] = (struct stream){to, d % T, d * B};
            for (int b = 0; b < B; b++)
                r->in[d * B + b] = (struct incoming){from, d % T};
            nt = add_rank(tg, nt, to);
            no = add_rank(og, no, from);
        }
    } else {
        int half = size / 2, target = -1, origin = -1;
        if (o->bench == B_MSGRATE) {
            target = me < half ? me + half : -1;
            origin = me >= half && me < 2 * half ? me - half : -1;
        } else {
            target = me == 0 ? 1 : -1;
            origin = me == 1 ? 0 : -1;
        }
        r->nslots = T * B;
        r->in = malloc(sizeof *r->in * (size_t)r->nslots);
        for (int t = 0; t < T; t++) {
            if (target >= 0)
                r->streams[r->nstreams++] = (struct stream){target, t, t * B};
            for (int b = 0; b < B; b++)
                r->in[t * B + b] = (struct incoming){origin, t};
        }
        if (target >= 0)
            nt = add_rank(tg, nt, target);
        if (origin >= 0)
            no = add_rank(og, no, origin);
    }
    MPI_Group world;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, nt, tg, &r->targets);
    MPI_Group_incl(world, no, og, &r->origins);
    MPI_Group_free(&world);
    free(tg);
    free(og);
}

/* ---- windows ---------------------------------------------------------------- */

static int make_window(struct run *r, int size)
{
    /* whole 64-byte lines (also because MPICH 4.0.2 misplaces RMA to ranks > 0
     * of MPI_Win_allocate windows whose size is not a multiple of 16) */
    MPI_Aint bytes = (MPI_Aint)layout_bytes(&r->lay, groups(r));
    r->remote = calloc((size_t)size, sizeof *r->remote);
    switch (r->o->win) {
    case W_ALLOCATE:
        return MPI_Win_allocate(bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &r->base, &r->win);
    case W_SHARED: {
        MPI_Comm node;
        int n;
        MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
        MPI_Comm_size(node, &n);
        MPI_Comm_free(&node);
        if (n != size) {
            if (r->rank == 0)
                fprintf(stderr, "rmamt: --window shared needs every rank on one node\n");
            return MPI_ERR_OTHER;
        }
        return MPI_Win_allocate_shared(bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &r->base, &r->win);
    }
    case W_CREATE:
        r->base = aligned_alloc(RMAMT_LINE, (size_t)bytes + RMAMT_LINE);
        return MPI_Win_create(r->base, bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &r->win);
    case W_DYNAMIC: {
        r->base = aligned_alloc(RMAMT_LINE, (size_t)bytes + RMAMT_LINE);
        int rc = MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &r->win);
        if (rc == MPI_SUCCESS)
            rc = MPI_Win_attach(r->win, r->base, bytes + 1);
        MPI_Aint mine;
        MPI_Get_address(r->base, &mine);
        MPI_Allgather(&mine, 1, MPI_AINT, r->remote, 1, MPI_AINT, MPI_COMM_WORLD);
        return rc;
    }
    }
    return MPI_ERR_OTHER;
}

static void free_window(struct run *r)
{
    if (r->o->win == W_DYNAMIC)
        MPI_Win_detach(r->win, r->base);
    MPI_Win_free(&r->win);
    if (r->o->win == W_CREATE || r->o->win == W_DYNAMIC)
        free(r->base);
}

/* ---- one thread's operations --------------------------------------------- */

static int passive_flush_modes(enum sync_mode s) { return s >= S_FLUSH; }

static void thread_flush(const struct run *r, int target)
{
    switch (r->o->sync) {
    case S_FLUSH: MPI_Win_flush(target, r->win); break;
    case S_FLUSH_LOCAL: MPI_Win_flush_local(target, r->win); break;
    case S_FLUSH_ALL: MPI_Win_flush_all(r->win); break;
    case S_FLUSH_LOCAL_ALL: MPI_Win_flush_local_all(r->win); break;
    default: break;
    }
}

/* Fill the origin buffer of (stream, b) for this round (one corrupt element with --inject-corruption). */
static void fill_origin(struct run *r, const struct stream *s, int b, unsigned char *buf, long round)
{
    if (r->o->op == O_CAS) {
        uint64_t next = (uint64_t)round + 1;
        memcpy(buf, &next, 8);
    } else if (r->o->op == O_PUT) {
        fill_pattern(buf, r->size, r->rank, s->thread, round);
    } else if (r->o->op != O_GET) {
        for (size_t k = 0; k < nelem(r); k++) {
            uint64_t v = pattern(r->rank, s->thread, round, k);
            memcpy(buf + 8 * k, &v, 8);
        }
    }
    if (r->o->inject_corruption && r->o->op != O_GET && round == last_round(r) && b == 0 && s == r->streams)
        buf[0] ^= 0x10;
}

static void issue(struct run *r, const struct stream *s, int b, unsigned char *obuf, unsigned char *rbuf, long round)
{
    MPI_Aint disp = r->remote[s->target] + (MPI_Aint)slot_offset(&r->lay, s->slot0 + b);
    int n = (int)r->size, e = (int)nelem(r);
    uint64_t compare = (uint64_t)round;
    switch (r->o->op) {
    case O_PUT: MPI_Put(obuf, n, MPI_BYTE, s->target, disp, n, MPI_BYTE, r->win); break;
    case O_GET: MPI_Get(rbuf, n, MPI_BYTE, s->target, disp, n, MPI_BYTE, r->win); break;
    case O_ACC: MPI_Accumulate(obuf, e, MPI_UINT64_T, s->target, disp, e, MPI_UINT64_T, MPI_SUM, r->win); break;
    case O_GACC:
        MPI_Get_accumulate(obuf, e, MPI_UINT64_T, rbuf, e, MPI_UINT64_T, s->target, disp, e, MPI_UINT64_T, MPI_SUM,
                           r->win);
        break;
    case O_FOP: MPI_Fetch_and_op(obuf, rbuf, MPI_UINT64_T, s->target, disp, MPI_SUM, r->win); break;
    case O_CAS: MPI_Compare_and_swap(obuf, &compare, rbuf, MPI_UINT64_T, s->target, disp, r->win); break;
    }
}

/* ---- epochs (main thread) ------------------------------------------------ */

/* Is stream i the first of its target (one lock per target)? */
static int first_for_target(const struct run *r, int i)
{
    for (int j = 0; j < i; j++)
        if (r->streams[j].target == r->streams[i].target)
            return 0;
    return 1;
}

static void open_epoch(struct run *r)
{
    int n;
    switch (r->o->sync) {
    case S_FENCE: MPI_Win_fence(0, r->win); break;
    case S_PSCW:
        MPI_Group_size(r->origins, &n);
        if (n)
            MPI_Win_post(r->origins, 0, r->win);
        MPI_Group_size(r->targets, &n);
        if (n)
            MPI_Win_start(r->targets, 0, r->win);
        break;
    case S_LOCK:
        for (int i = 0; i < r->nstreams; i++)
            if (first_for_target(r, i))
                MPI_Win_lock(MPI_LOCK_SHARED, r->streams[i].target, 0, r->win);
        break;
    case S_LOCKALL:
        if (r->nstreams)
            MPI_Win_lock_all(0, r->win);
        break;
    default: break;
    }
}

static void close_epoch(struct run *r)
{
    int n;
    switch (r->o->sync) {
    case S_FENCE: MPI_Win_fence(0, r->win); break;
    case S_PSCW:
        MPI_Group_size(r->targets, &n);
        if (n)
            MPI_Win_complete(r->win);
        MPI_Group_size(r->origins, &n);
        if (n)
            MPI_Win_wait(r->win);
        break;
    case S_LOCK:
        for (int i = 0; i < r->nstreams; i++)
            if (first_for_target(r, i))
                MPI_Win_unlock(r->streams[i].target, r->win);
        break;
    case S_LOCKALL:
        if (r->nstreams)
            MPI_Win_unlock_all(r->win);
        break;
    default: break;
    }
}

/* ---- verification -------------------------------------------------------- */

static void reset(struct run *r)
{
    /* get reads a constant pattern; the accumulates and CAS start from 0 */
    for (int s = 0; s < r->nslots; s++) {
        if (r->o->op == O_GET)
            fill_pattern(slot(r, r->base, s), r->size, r->rank, r->in[s].thread, 0);
        else
            memset(slot(r, r->base, s), 0, r->size);
    }
    memset(r->sums, 0, sizeof *r->sums * sums_count(&r->lay, groups(r)));
    memset(r->rsums, 0, sizeof *r->rsums * sums_count(&r->lay, groups(r)));
}

/* My slots after rounds [first, last] of their origins (sums: since round 0). */
static void check_target(struct run *r, long first, long last)
{
    enum op op = r->o->op;
    if (op == O_GET)
        return;
    for (int s = 0; s < r->nslots; s++) {
        const struct incoming *in = &r->in[s];
        if (in->origin < 0)
            continue;
        unsigned char *p = slot(r, r->base, s);
        if (op == O_PUT) {
            unsigned char want;
            size_t k = check_pattern(p, r->size, in->origin, in->thread, last, &want);
            if (k < r->size) {
                report_mismatch("put data at the target", in->origin, in->thread, last, k, want, p[k]);
                r->errors++;
            }
            continue;
        }
        for (size_t k = 0; k < nelem(r); k++) {
            uint64_t *sum = sum_of(r, r->sums, s, k), got;
            for (long q = first; q <= last; q++)
                *sum = op == O_CAS ? (uint64_t)q + 1 : *sum + pattern(in->origin, in->thread, q, k);
            memcpy(&got, p + 8 * k, 8);
            if (got != *sum) {
                report_mismatch(op == O_CAS ? "compare-and-swap value at the target" : "accumulated value at the target",
                                in->origin, in->thread, last, k, *sum, got);
                r->errors++;
                break;
            }
        }
    }
}

/* What get and the fetching operations of round `round` brought to this
 * origin, for the streams of `thread` (-1: all). */
static void check_origin(struct run *r, int thread, long round)
{
    enum op op = r->o->op;
    if (op != O_GET && !fetching(op))
        return;
    for (int i = 0; i < r->nstreams; i++) {
        const struct stream *s = &r->streams[i];
        if (thread >= 0 && s->thread != thread)
            continue;
        for (int b = 0; b < r->batch; b++) {
            unsigned char *rb = slot(r, r->rbuf, s->slot0 + b);
            if (op == O_GET) {
                if (r->o->inject_corruption && round == last_round(r) && i == 0 && b == 0)
                    rb[0] ^= 0x10; /* as if the transfer had brought a wrong byte */
                unsigned char want;
                size_t k = check_pattern(rb, r->size, s->target, s->thread, 0, &want);
                if (k < r->size) {
                    report_mismatch("get data at the origin", s->target, s->thread, round, k, want, rb[k]);
                    __atomic_fetch_add(&r->errors, 1, __ATOMIC_RELAXED);
                }
                continue;
            }
            for (size_t k = 0; k < nelem(r); k++) {
                uint64_t *before = sum_of(r, r->rsums, s->slot0 + b, k), got;
                memcpy(&got, rb + 8 * k, 8);
                uint64_t want = op == O_CAS ? (uint64_t)round : *before;
                if (got != want) {
                    report_mismatch("fetched value at the origin", r->rank, s->thread, round, k, want, got);
                    __atomic_fetch_add(&r->errors, 1, __ATOMIC_RELAXED);
                    break;
                }
                if (op != O_CAS)
                    *before += pattern(r->rank, s->thread, round, k);
            }
        }
    }
}

/* After an epoch (the round's, or lock_all's in the flush modes): everything
 * complete at the targets, then checked there. */
static void verify_targets(struct run *r, long first, long last)
{
    if (r->o->sync == S_FLUSH_LOCAL || r->o->sync == S_FLUSH_LOCAL_ALL)
        MPI_Win_flush_all(r->win); /* flush_local completes at the origin only */
    MPI_Barrier(MPI_COMM_WORLD);
    int locked = r->o->sync == S_LOCK || r->o->sync == S_LOCKALL;
    if (locked)
        MPI_Win_lock(MPI_LOCK_SHARED, r->rank, 0, r->win);
    else if (passive_flush_modes(r->o->sync))
        MPI_Win_sync(r->win);
    check_target(r, first, last);
    if (locked)
        MPI_Win_unlock(r->rank, r->win);
    MPI_Barrier(MPI_COMM_WORLD);
}

/* ---- one thread's work ------------------------------------------------------- */

static void one_round(struct run *r, int thread, long round)
{
    int latency = r->o->bench == B_LATENCY, flushing = passive_flush_modes(r->o->sync);
    for (int i = 0; i < r->nstreams; i++) {
        const struct stream *s = &r->streams[i];
        if (s->thread != thread)
            continue;
        for (int b = 0; b < r->batch; b++) {
            unsigned char *ob = slot(r, r->obuf, s->slot0 + b), *rb = slot(r, r->rbuf, s->slot0 + b);
            fill_origin(r, s, b, ob, round);
            issue(r, s, b, ob, rb, round);
            if (latency)
                thread_flush(r, s->target);
        }
        if (!latency)
            thread_flush(r, s->target);
    }
    if (flushing && r->o->verify)
        check_origin(r, thread, round);
    if (flushing && thread == 0)
        watchdog_tick(); /* the flush modes run all rounds in one release */
}

/* Epoch modes: the round the main thread opened.  Flush modes: all rounds
 * [first, last) in one go, each operation completed by the thread's flush. */
static void thread_work(int thread, void *arg)
{
    struct run *r = arg;
    if (!passive_flush_modes(r->o->sync)) {
        one_round(r, thread, r->round);
        return;
    }
    for (long q = r->first; q < r->last; q++)
        one_round(r, thread, q);
}

/* ---- one repeat ------------------------------------------------------------ */

double run_onesided(const struct options *o, int threads, size_t size, long *errors)
{
    int nprocs;
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    struct run r = {.o = o, .size = size, .threads = threads, .batch = o->bench == B_LATENCY ? 1 : o->window};
    MPI_Comm_rank(MPI_COMM_WORLD, &r.rank);
    if (o->bench == B_HALO && o->thread_per_neighbor)
        r.threads = threads = o->neighbors;
    plan(&r, nprocs);
    r.lay = layout_make(r.batch, size);
    if (make_window(&r, nprocs) != MPI_SUCCESS) {
        *errors = -1;
        return 0;
    }
    r.obuf = zeroed_lines(layout_bytes(&r.lay, groups(&r)));
    r.rbuf = zeroed_lines(layout_bytes(&r.lay, groups(&r)));
    r.sums = zeroed_lines(sizeof *r.sums * sums_count(&r.lay, groups(&r)));
    r.rsums = zeroed_lines(sizeof *r.rsums * sums_count(&r.lay, groups(&r)));
    if (passive_flush_modes(o->sync))
        MPI_Win_lock_all(0, r.win);
    if (passive_flush_modes(o->sync))
        MPI_Win_sync(r.win);
    reset(&r);
    if (passive_flush_modes(o->sync))
        MPI_Win_sync(r.win);
    MPI_Barrier(MPI_COMM_WORLD);
    struct team *team = team_create(threads, thread_work, &r, o->place);
    double elapsed = 0;
    long rounds = o->warmup + o->iterations;
    if (passive_flush_modes(o->sync)) {
        /* one lock_all epoch: warm-up rounds, then the timed ones */
        r.first = 0;
        r.last = o->warmup;
        team_release(team);
        team_wait(team);
        r.first = o->warmup;
        r.last = rounds;
        double t0 = MPI_Wtime();
        team_release(team);
        team_wait(team);
        elapsed = MPI_Wtime() - t0;
        if (o->verify && rounds > 0)
            verify_targets(&r, 0, rounds - 1);
    } else {
        for (r.round = 0; r.round < rounds; r.round++) {
            double t0 = MPI_Wtime();
            open_epoch(&r);
            team_release(team);
            team_wait(team);
            close_epoch(&r);
            if (r.round >= o->warmup)
                elapsed += MPI_Wtime() - t0;
            if (o->verify) {
                check_origin(&r, -1, r.round);
                verify_targets(&r, r.round, r.round);
            }
        }
    }
    team_destroy(team);
    if (passive_flush_modes(o->sync))
        MPI_Win_unlock_all(r.win);
    free_window(&r);
    long all_errors;
    MPI_Allreduce(&r.errors, &all_errors, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    *errors = all_errors;
    double slowest;
    MPI_Allreduce(&elapsed, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    long ops = (long)r.nstreams * r.batch * o->iterations, all_ops;
    MPI_Allreduce(&ops, &all_ops, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    free(r.obuf);
    free(r.rbuf);
    free(r.sums);
    free(r.rsums);
    free(r.streams);
    free(r.in);
    free(r.remote);
    MPI_Group_free(&r.origins);
    MPI_Group_free(&r.targets);
    if (slowest <= 0)
        return 0;
    switch (o->bench) {
    case B_LATENCY: return slowest / (double)o->iterations * 1e6;
    case B_BANDWIDTH: return (double)all_ops * (double)size / slowest / 1e6;
    default: return (double)all_ops / slowest / 1e6;
    }
}
