/* rmamt: the multi-threaded RMA benchmark suite (after the RMA-MT paper).
 * Plain MPI: it runs on any MPI and does not depend on Remora. */
#ifndef RMAMT_H
#define RMAMT_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum bench { B_LATENCY, B_BANDWIDTH, B_MSGRATE, B_HALO, B_TWOSIDED };
enum sync_mode { S_FENCE, S_PSCW, S_LOCK, S_LOCKALL, S_FLUSH, S_FLUSH_LOCAL, S_FLUSH_ALL, S_FLUSH_LOCAL_ALL };
enum op { O_PUT, O_GET, O_ACC, O_GACC, O_FOP, O_CAS };
enum win_kind { W_ALLOCATE, W_CREATE, W_DYNAMIC, W_SHARED };
enum pattern_kind { P_LATENCY, P_BANDWIDTH, P_MSGRATE, P_HALO }; /* for twosided */
enum format { F_TABLE, F_CSV, F_JSON };
enum placement { PLACE_KERNEL, PLACE_BIND, PLACE_SPREAD }; /* where the threads run: free, --bind, --spread */

#define MAX_LIST 32

struct options {
    enum bench bench;
    enum pattern_kind pattern;     /* twosided: which pattern (--pattern) */
    enum sync_mode sync;
    enum op op;
    enum win_kind win;
    int threads[MAX_LIST], nthreads;
    size_t sizes[MAX_LIST];
    int nsizes;
    long iterations, warmup;
    int window;                    /* operations per thread per epoch (bandwidth, msgrate, halo) */
    int repeat;
    int neighbors;                 /* halo: 6 (faces), 18 or 26 */
    int thread_per_neighbor;       /* halo: one thread per neighbour */
    int thread_comms;              /* twosided: a communicator per thread */
    enum placement place;
    int verify, inject_corruption, inject_hang;
    double timeout;
    enum format format;
    const char *output;
};

/* cli.c */
int parse_options(int argc, char **argv, struct options *o, char *err, size_t errlen);
const char *bench_name(enum bench b);
const char *sync_name(enum sync_mode s);
const char *op_name(enum op o);
const char *win_name(enum win_kind w);
const char *pattern_name(enum pattern_kind p);
void usage(FILE *f);

/* stats.c */
struct stats { double median, mean, stddev, min, max; };
struct stats summarize(double *v, int n);

/* One measured point: the metric of each repeat. */
struct point {
    int threads;
    size_t size;
    const char *metric; /* "latency_us", "bandwidth_MBps", "msgrate_Mmsgs" */
    struct stats s;
    long errors;        /* verification mismatches (all ranks) */
};

/* pattern.c: the value of element k of what (origin, thread) sends in round r */
uint64_t pattern(int origin, int thread, long round, size_t k);
/* the pattern stream of (origin, thread, round) as bytes, and its check: the
 * offset of the first wrong byte (its expected value in *want), or size */
void fill_pattern(unsigned char *buf, size_t size, int origin, int thread, long round);
size_t check_pattern(const unsigned char *buf, size_t size, int origin, int thread, long round, unsigned char *want);
/* where a check fails: prints what, where, expected and got, once per run */
void report_mismatch(const char *what, int origin, int thread, long round, size_t k, uint64_t want, uint64_t got);

/* watchdog.c: --timeout */
void watchdog_start(double seconds);
void watchdog_doing(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void watchdog_tick(void); /* a round finished: the run makes progress */

/* onesided.c / twosided.c: one repeat of one point; returns the metric */
double run_onesided(const struct options *o, int threads, size_t size, long *errors);
double run_twosided(const struct options *o, int threads, size_t size, long *errors);

/* grid.c: the rank `sign` (+1/-1) steps along halo direction 0..25 */
int halo_neighbor(int direction, int sign);

/* team.c: threads created and waiting before the clock starts */
struct team;
struct team *team_create(int n, void (*fn)(int thread, void *arg), void *arg, enum placement place);
void team_release(struct team *t);  /* start one round on every thread */
void team_wait(struct team *t);     /* until every thread finished the round */
void team_destroy(struct team *t);

/* output.c */
void output_points(const struct options *o, const struct point *p, int n, FILE *f);

#endif
