/* shmem-gups's pieces (main.c describes the program): the run's options, the
 * workers (threads, each with a context of its own), the collective helpers
 * that work with OpenSHMEM 1.4 and 1.5+ alike, the result line, and the two
 * modes. */
#ifndef SHMEM_GUPS_H
#define SHMEM_GUPS_H

#include <shmem.h>
#include <stdint.h>

/* The 1.5 routines used where the library has them: team reductions and the
 * non-blocking fetching atomics (--fetch nbi).  Open MPI's OSHMEM is 1.4. */
#if SHMEM_MAJOR_VERSION > 1 || (SHMEM_MAJOR_VERSION == 1 && SHMEM_MINOR_VERSION >= 5)
#define GUPS_SHMEM_1_5 1
#else
#define GUPS_SHMEM_1_5 0
#endif

/* Every word other PEs update is an unsigned long long: OpenSHMEM 1.4 has the
 * standard atomics (add, compare_swap, fetch_inc, set) for it but not for
 * uint64_t, and the bitwise ones for both; here it is the 64-bit word. */
_Static_assert(sizeof(unsigned long long) == 8, "unsigned long long must be a 64-bit word");

enum gups_op { OP_XOR, OP_ADD };
enum gups_fetch { FETCH_NONE, FETCH_BLOCKING, FETCH_NBI };

struct options {
    int do_gups, do_hash; /* --mode */
    int threads;
    int verify;
    int inject_corruption;
    /* gups */
    int log_table;              /* 2^log_table words per PE */
    unsigned long long updates; /* per PE */
    unsigned long long batch;   /* updates between quiets, 0: one quiet at the end */
    enum gups_op op;
    enum gups_fetch fetch;
    /* hash */
    unsigned long long inserts; /* keys per PE */
    unsigned long long slots;   /* table slots per PE */
    unsigned long long probes;  /* slots tried before the overflow area */
};

/* splitmix64's finalizer: a bijection of the 64-bit integers with mix(0) = 0 */
static inline uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* A worker: one of a PE's --threads threads, with the context its operations
 * go on, and the share [first, end) of the PE's work it does. */
struct worker {
    int index;
    shmem_ctx_t ctx;
    unsigned long long first, end;
};
/* Runs body(worker, arg) on `threads` threads of this PE (the calling thread
 * is worker 0) over [0, total) split in contiguous shares; each thread
 * creates a SHMEM_CTX_PRIVATE context first (the default context when there is
 * one thread, or when the creation fails: with a message), and quiets it after
 * body.  Collective: every PE calls it.  Returns the seconds from the
 * shmem_barrier_all that starts every PE's workers at once to the moment this
 * PE's last worker had quieted (contexts and threads are made before). */
double run_workers(int threads, unsigned long long total, void (*body)(const struct worker *, void *), void *arg);

double now_seconds(void);

/* Collectives over all PEs, in place (OpenSHMEM 1.5 team reductions, or the
 * 1.4 active-set ones); at most REDUCE_MAX elements. */
enum { REDUCE_MAX = 8 };
void reduce_max_double(double *values, int n);
void reduce_sum_longlong(long long *values, int n);

/* The time of a run's phases, at most REDUCE_MAX (names: string literals). */
struct phases {
    int n;
    const char *name[REDUCE_MAX];
    double seconds[REDUCE_MAX];
};
void phase_add(struct phases *t, const char *name, double seconds);

/* The result line of a run, in the format of apps/common/motif.h (each phase
 * the maximum over the PEs, time= their sum) with the rate (count / time) and
 * PE 0's extra fields (NULL: none) before the verdict, printed by PE 0:
 *   shmem-gups mode=gups np=4 time=... update=... sync=... gups=... verify=ok
 * rate_scale divides the rate (1e9 for GUP/s).  problems: this PE's count of
 * what verification found wrong, or -1 when not verified.  Collective; returns
 * nonzero when some PE found a problem. */
int report(const char *mode, const struct phases *t, const char *rate_name, double count, double rate_scale,
           const char *extra, long long problems);

/* Prints one problem verification found, on stderr, prefixed with the PE and
 * the mode; only the first few of a PE's problems are printed, all counted. */
void problem(long long *problems, const char *mode, const char *format, ...)
    __attribute__((format(printf, 3, 4)));
/* after a verification: how many problems there were in all, if some were not printed */
void problems_summary(long long problems, const char *mode);

/* the modes: one run each, verified unless --no-verify; nonzero on failure */
int run_gups(const struct options *o);
int run_hash(const struct options *o);

#endif
