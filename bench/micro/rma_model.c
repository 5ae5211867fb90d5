/* rma_model: the per-call costs behind foMPI's performance models
 * (Gerstenberger et al., "Enabling highly-scalable remote memory access
 * programming with MPI-3 One Sided", Section 3), measured the way foMPI
 * measures them: a sample times one call at every process, its value is the
 * maximum over the processes, and the result is the median of the samples.
 * Plain MPI: the same binary runs over a host MPI alone and through
 * remora-run.  scripts/models runs it over sizes and process counts and fits
 * the models.
 *
 *   rma_model [--samples N] [--batch B] [--sizes S,S,...] [--k K,K,...] [CALL ...]
 *
 * A sample is the mean of B calls (default 10), each timed alone; N samples
 * (default 100).
 *
 * Calls (all by default):
 *   put get acc  rank 0 to rank 1 inside a lock_all epoch, each with its
 *                MPI_Win_flush, for every size of --sizes (acc: MPI_SUM of
 *                doubles, size/8 of them)
 *   fence        MPI_Win_fence at every process (after a barrier)
 *   pscw         post, start, complete and wait, timed one by one, in a ring
 *                where every process has the k nearest processes (k/2 on
 *                each side) as its access and exposure group, for every k
 *                of --k that fits p (even k, or k = p - 1)
 *   lock         rank 0 on rank 1: exclusive lock, its unlock, shared lock,
 *                its unlock; lock_all and unlock_all; flush with nothing
 *                outstanding and win_sync inside a lock_all epoch
 *   create       MPI_Win_allocate and MPI_Win_create of 4 KiB per process,
 *                collective time (MPI_Win_free not timed)
 *   memory       what each window costs each process: 64 windows of 4 KiB
 *                per process of each flavour (allocate, create, dynamic,
 *                allocate_shared), each used by one fence epoch with a put
 *                to either ring neighbour (not dynamic); the change of the
 *                process's Rss and Pss, of its shared and private resident
 *                pages (/proc/self/smaps_rollup) and of the bytes malloc has
 *                handed out, divided by 64, averaged over the processes
 *
 * Output, one line per result on rank 0 (time in microseconds, memory in KiB):
 *   call=put p=2 s=8 k=0 us=0.412
 *   call=mem_allocate p=4 rss_kib=4.1 pss_kib=2.0 shared_kib=4.0 private_kib=0.1 heap_kib=9.5
 * The cost of reading the clock (median of empty timed regions, printed as
 * call=clock) is subtracted from every time.  The target's data is checked
 * after the put, get and acc sweeps. */
#include <malloc.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_LIST 64
#define WIN_BYTES (1 << 20)
#define SMALL_WIN 4096
#define MEM_WINDOWS 64

static int rank, nprocs, failures;
static int samples = 100, batch = 10;
static double clock_cost; /* seconds */

static double monotonic(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The clock: the CPU's time-stamp counter where there is one, as foMPI's
 * RDTSC (a virtual machine's clock_gettime may tick in 10 ns steps, the size
 * of the calls measured here), calibrated against CLOCK_MONOTONIC. */
#if defined(__x86_64__)
#include <x86intrin.h>
static double tick_seconds;
static double now(void)
{
    _mm_lfence(); /* the counter is read after what came before */
    return (double)__rdtsc() * tick_seconds;
}
static void calibrate(void)
{
    double t0 = monotonic(), t1;
    unsigned long long c0 = __rdtsc();
    while ((t1 = monotonic()) - t0 < 0.02)
        ;
    tick_seconds = (t1 - t0) / (double)(__rdtsc() - c0);
}
#else
static double now(void) { return monotonic(); }
static void calibrate(void) {}
#endif

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median over the samples of the maximum over the processes, less the
 * clock's cost, in microseconds; a sample is the sum of per_sample calls
 * each timed alone (so that a clock ticking in steps as long as the call
 * averages out).  Collective. */
static double summarise(double *t, int n, int per_sample)
{
    for (int i = 0; i < n; i++)
        t[i] /= per_sample;
    double *worst = malloc(sizeof *worst * (size_t)n);
    MPI_Allreduce(t, worst, n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    qsort(worst, (size_t)n, sizeof *worst, cmp_double);
    double med = worst[n / 2] - clock_cost;
    free(worst);
    return (med > 0 ? med : 0) * 1e6;
}

static void print_time(const char *call, long s, int k, double us)
{
    if (rank == 0)
        printf("call=%s p=%d s=%ld k=%d us=%.4f\n", call, nprocs, s, k, us);
}

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "rma_model: rank %d: %s\n", rank, what);
        failures++;
    }
}

/* the clock's cost: the mean of many empty timed regions (a mean, as the
 * clock may tick in steps longer than one reading; interrupted ones left out) */
static void measure_clock(void)
{
    calibrate();
    double sum = 0;
    int n = 0;
    for (int i = 0; i < 10000; i++) {
        double t0 = now(), dt = now() - t0;
        if (dt < 1e-6) {
            sum += dt;
            n++;
        }
    }
    clock_cost = n ? sum / n : 0;
    double all;
    MPI_Allreduce(&clock_cost, &all, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    clock_cost = all;
    print_time("clock", 0, 0, clock_cost * 1e6);
}

/* ---- communication: put, get, acc over sizes (rank 0 -> rank 1) ------------- */

enum transfer { PUT, GET, ACC };

static void transfer_sweep(MPI_Win win, char *base, enum transfer op, const long *sizes, int nsizes)
{
    static const char *names[] = {"put", "get", "acc"};
    char *buf = malloc(WIN_BYTES);
    double *t = calloc((size_t)samples, sizeof *t);
    for (int z = 0; z < nsizes; z++) {
        long s = sizes[z];
        memset(t, 0, sizeof *t * (size_t)samples);
        MPI_Win_fence(0, win);
        if (rank == 1)
            memset(base, op == GET ? 0x5a : 0, (size_t)s); /* what a get must read */
        MPI_Win_fence(0, win);
        if (rank == 0) {
            for (long i = 0; i < s; i++)
                buf[i] = (char)(i * 7 + 1);
            for (long i = 0; op == ACC && i < s / 8; i++)
                ((double *)buf)[i] = 1.0;
            MPI_Win_lock_all(0, win);
            for (int j = 0; j < samples * batch; j++) {
                double t0 = now();
                if (op == PUT)
                    MPI_Put(buf, (int)s, MPI_BYTE, 1, 0, (int)s, MPI_BYTE, win);
                else if (op == GET)
                    MPI_Get(buf, (int)s, MPI_BYTE, 1, 0, (int)s, MPI_BYTE, win);
                else
                    MPI_Accumulate(buf, (int)(s / 8), MPI_DOUBLE, 1, 0, (int)(s / 8), MPI_DOUBLE, MPI_SUM, win);
                MPI_Win_flush(1, win);
                t[j / batch] += now() - t0;
            }
            MPI_Win_unlock_all(win);
        }
        MPI_Win_fence(0, win);
        if (rank == 1 && op == PUT)
            check(base[0] == 1 && base[s - 1] == (char)((s - 1) * 7 + 1), "put: data not at the target");
        if (rank == 1 && op == ACC && s >= 8)
            check(((double *)base)[s / 8 - 1] == samples * batch, "acc: the target's sum is not the number of accumulates");
        if (rank == 0 && op == GET)
            check(buf[0] == 0x5a && buf[s - 1] == 0x5a, "get: did not read the target's data");
        MPI_Win_fence(0, win);
        print_time(names[op], s, 0, summarise(t, samples, batch));
    }
    free(t);
    free(buf);
}

/* ---- synchronisation ----------------------------------------------------- */

static void fence_test(MPI_Win win)
{
    double *t = calloc((size_t)samples, sizeof *t);
    MPI_Win_fence(0, win);
    for (int j = 0; j < samples * batch; j++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = now();
        MPI_Win_fence(0, win);
        t[j / batch] += now() - t0;
    }
    print_time("fence", 0, 0, summarise(t, samples, batch));
    free(t);
}

/* the k nearest processes on a ring (k/2 on each side; k = p - 1: all others) */
static MPI_Group ring_group(int k)
{
    int members[MAX_LIST], n = 0;
    for (int d = 1; n < k && d < nprocs; d++) {
        int fwd = (rank + d) % nprocs, back = (rank - d + nprocs) % nprocs;
        members[n++] = fwd;
        if (back != fwd && n < k)
            members[n++] = back;
    }
    MPI_Group world, g;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, n, members, &g);
    MPI_Group_free(&world);
    return g;
}

static void pscw_test(MPI_Win win, const long *ks, int nks)
{
    double *t[4];
    static const char *names[4] = {"post", "start", "complete", "wait"};
    for (int c = 0; c < 4; c++)
        t[c] = calloc((size_t)samples, sizeof *t[c]);
    for (int z = 0; z < nks; z++) {
        int k = (int)ks[z];
        /* a symmetric group: k even, or every other process */
        if (k < 1 || k > nprocs - 1 || (k % 2 && k != nprocs - 1))
            continue;
        MPI_Group g = ring_group(k);
        for (int j = 0; j < samples * batch; j++) {
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = now();
            MPI_Win_post(g, 0, win);
            t[0][j / batch] += now() - t0;
            MPI_Barrier(MPI_COMM_WORLD); /* every post is out: start does not wait */
            t0 = now();
            MPI_Win_start(g, 0, win);
            t[1][j / batch] += now() - t0;
            t0 = now();
            MPI_Win_complete(win);
            t[2][j / batch] += now() - t0;
            MPI_Barrier(MPI_COMM_WORLD); /* every complete is done: wait does not wait */
            t0 = now();
            MPI_Win_wait(win);
            t[3][j / batch] += now() - t0;
        }
        MPI_Group_free(&g);
        for (int c = 0; c < 4; c++)
            print_time(names[c], 0, k, summarise(t[c], samples, batch));
    }
    for (int c = 0; c < 4; c++)
        free(t[c]);
}

static void lock_test(MPI_Win win)
{
    enum { EXCL, UNLOCK_EXCL, SHARED, UNLOCK_SHARED, LOCK_ALL, UNLOCK_ALL, FLUSH, WIN_SYNC, NCALLS };
    static const char *names[NCALLS] = {"lock_excl", "unlock_excl", "lock_shared", "unlock_shared",
                                        "lock_all", "unlock_all", "flush", "win_sync"};
    double *t[NCALLS];
    for (int c = 0; c < NCALLS; c++)
        t[c] = calloc((size_t)samples, sizeof *t[c]);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        for (int j = 0; j < samples * batch; j++) {
            for (int type = 0; type < 2; type++) {
                int c = type == 0 ? EXCL : SHARED;
                double t0 = now();
                MPI_Win_lock(type == 0 ? MPI_LOCK_EXCLUSIVE : MPI_LOCK_SHARED, 1, 0, win);
                double t1 = now();
                MPI_Win_unlock(1, win);
                t[c + 1][j / batch] += now() - t1;
                t[c][j / batch] += t1 - t0;
            }
            double t0 = now();
            MPI_Win_lock_all(0, win);
            double t1 = now();
            MPI_Win_flush(1, win);
            double t2 = now();
            MPI_Win_sync(win);
            double t3 = now();
            MPI_Win_unlock_all(win);
            t[UNLOCK_ALL][j / batch] += now() - t3;
            t[LOCK_ALL][j / batch] += t1 - t0;
            t[FLUSH][j / batch] += t2 - t1;
            t[WIN_SYNC][j / batch] += t3 - t2;
        }
    }
    for (int c = 0; c < NCALLS; c++) {
        print_time(names[c], 0, 0, summarise(t[c], samples, batch));
        free(t[c]);
    }
}

static void create_test(void)
{
    int n = samples < 50 ? samples : 50; /* creation is slow: fewer samples */
    double ta[n], tc[n];
    static char mem[SMALL_WIN];
    for (int i = 0; i < n; i++) {
        MPI_Win win;
        void *base;
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = now();
        MPI_Win_allocate(SMALL_WIN, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
        ta[i] = now() - t0;
        MPI_Win_free(&win);
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = now();
        MPI_Win_create(mem, SMALL_WIN, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
        tc[i] = now() - t0;
        MPI_Win_free(&win);
    }
    print_time("win_allocate", SMALL_WIN, 0, summarise(ta, n, 1));
    print_time("win_create", SMALL_WIN, 0, summarise(tc, n, 1));
}

/* ---- memory per window ----------------------------------------------------- */

enum { RSS, PSS, SHARED, PRIVATE, HEAP, NMEM };

/* the process's resident memory in KiB (smaps_rollup: the sum over its mappings) */
static void resident(double kib[NMEM])
{
    memset(kib, 0, sizeof(double) * NMEM);
    FILE *f = fopen("/proc/self/smaps_rollup", "r");
    if (!f) {
        check(0, "cannot read /proc/self/smaps_rollup");
        return;
    }
    char line[256];
    double v;
    while (fgets(line, sizeof line, f)) {
        char key[64];
        if (sscanf(line, "%63[^:]: %lf kB", key, &v) != 2)
            continue;
        if (!strcmp(key, "Rss"))
            kib[RSS] = v;
        else if (!strcmp(key, "Pss"))
            kib[PSS] = v;
        else if (!strcmp(key, "Shared_Clean") || !strcmp(key, "Shared_Dirty"))
            kib[SHARED] += v;
        else if (!strcmp(key, "Private_Clean") || !strcmp(key, "Private_Dirty"))
            kib[PRIVATE] += v;
    }
    fclose(f);
    /* the bytes malloc has handed out: unlike pages, not lowered by reusing what an earlier test freed */
    struct mallinfo2 mi = mallinfo2();
    kib[HEAP] = (double)(mi.uordblks + mi.hblkhd) / 1024;
}

enum flavour { ALLOCATE, CREATE, DYNAMIC, SHARED_FLAVOUR, NFLAVOURS };

static void memory_test(void)
{
    static const char *names[NFLAVOURS] = {"mem_allocate", "mem_create", "mem_dynamic", "mem_allocate_shared"};
    MPI_Win wins[MEM_WINDOWS];
    char *user[MEM_WINDOWS];
    for (int f = 0; f < NFLAVOURS; f++) {
        double before[NMEM], after[NMEM], delta[NMEM], sum[NMEM];
        for (int w = 0; w < MEM_WINDOWS; w++) { /* the user's memory, resident, is not the window's cost */
            user[w] = (f == CREATE || f == DYNAMIC) ? malloc(SMALL_WIN) : NULL;
            if (user[w])
                memset(user[w], 1, SMALL_WIN);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        resident(before);
        for (int w = 0; w < MEM_WINDOWS; w++) {
            void *base = NULL;
            if (f == ALLOCATE)
                MPI_Win_allocate(SMALL_WIN, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &wins[w]);
            else if (f == SHARED_FLAVOUR)
                MPI_Win_allocate_shared(SMALL_WIN, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &wins[w]);
            else if (f == CREATE)
                MPI_Win_create(user[w], SMALL_WIN, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &wins[w]);
            else {
                MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &wins[w]);
                MPI_Win_attach(wins[w], user[w], SMALL_WIN);
            }
            if (base)
                memset(base, 1, SMALL_WIN); /* the window's memory is resident, as in use */
        }
        /* an epoch on each window with a put to each ring neighbour, as a
         * halo exchange: state created lazily for the targets used counts too */
        char byte = 1;
        for (int w = 0; w < MEM_WINDOWS; w++) {
            MPI_Win_fence(0, wins[w]);
            for (int d = -1; d <= 1 && f != DYNAMIC; d += 2)
                MPI_Put(&byte, 1, MPI_BYTE, (rank + d + nprocs) % nprocs, 0, 1, MPI_BYTE, wins[w]);
            MPI_Win_fence(0, wins[w]);
        }
        resident(after);
        for (int w = 0; w < MEM_WINDOWS; w++) {
            MPI_Win_fence(0, wins[w]);
            if (f == DYNAMIC)
                MPI_Win_detach(wins[w], user[w]);
            MPI_Win_free(&wins[w]);
            free(user[w]);
        }
        for (int m = 0; m < NMEM; m++)
            delta[m] = (after[m] - before[m]) / MEM_WINDOWS;
        MPI_Reduce(delta, sum, NMEM, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
        if (rank == 0)
            printf("call=%s p=%d rss_kib=%.2f pss_kib=%.2f shared_kib=%.2f private_kib=%.2f heap_kib=%.2f\n", names[f],
                   nprocs, sum[RSS] / nprocs, sum[PSS] / nprocs, sum[SHARED] / nprocs, sum[PRIVATE] / nprocs,
                   sum[HEAP] / nprocs);
    }
}

/* ---- main -------------------------------------------------------------------- */

static int parse_list(const char *s, long *out)
{
    int n = 0;
    char *end;
    while (*s && n < MAX_LIST) {
        out[n++] = strtol(s, &end, 10);
        if (end == s || out[n - 1] < 1)
            return -1;
        s = *end == ',' ? end + 1 : end;
        if (*end && *end != ',')
            return -1;
    }
    return n;
}

static int wanted(const char *name, char **chosen, int nchosen)
{
    if (nchosen == 0)
        return 1;
    for (int c = 0; c < nchosen; c++)
        if (!strcmp(chosen[c], name))
            return 1;
    return 0;
}

int main(int argc, char **argv)
{
    long sizes[MAX_LIST] = {8, 64, 512, 4096, 32768, 262144}, ks[MAX_LIST] = {2, 4, 8, 16, 32, 64};
    int nsizes = 6, nks = 6, nchosen = 0, bad = 0;
    char *chosen[32];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--batch") && i + 1 < argc)
            bad |= (batch = atoi(argv[++i])) < 1;
        else if (!strcmp(argv[i], "--samples") && i + 1 < argc)
            bad |= (samples = atoi(argv[++i])) < 1;
        else if (!strcmp(argv[i], "--sizes") && i + 1 < argc)
            bad |= (nsizes = parse_list(argv[++i], sizes)) < 1;
        else if (!strcmp(argv[i], "--k") && i + 1 < argc)
            bad |= (nks = parse_list(argv[++i], ks)) < 1;
        else if (argv[i][0] != '-' && nchosen < 32)
            chosen[nchosen++] = argv[i];
        else
            bad = 1;
    }
    for (int z = 0; z < nsizes && !bad; z++)
        bad |= sizes[z] > WIN_BYTES;
    if (bad || nprocs < 2) {
        if (rank == 0)
            fprintf(stderr, "usage: rma_model [--samples N] [--batch B] [--sizes S,...] [--k K,...] "
                            "[put get acc fence pscw lock create memory]  (2 or more processes, sizes up to 1 MiB)\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    measure_clock();
    char *base;
    MPI_Win win;
    MPI_Win_allocate(WIN_BYTES, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    memset(base, 0, WIN_BYTES);
    static const char *transfers[] = {"put", "get", "acc"};
    for (int op = PUT; op <= ACC; op++)
        if (wanted(transfers[op], chosen, nchosen))
            transfer_sweep(win, base, (enum transfer)op, sizes, nsizes);
    if (wanted("fence", chosen, nchosen))
        fence_test(win);
    if (wanted("pscw", chosen, nchosen))
        pscw_test(win, ks, nks);
    if (wanted("lock", chosen, nchosen))
        lock_test(win);
    MPI_Win_free(&win);
    if (wanted("create", chosen, nchosen))
        create_test();
    if (wanted("memory", chosen, nchosen))
        memory_test();
    int all;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    return all != 0;
}
