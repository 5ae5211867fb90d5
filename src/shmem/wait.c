/* Point-to-point synchronization: wait_until, test and their set forms.
 *
 * A wait spins (driving the transport's progress) and then sleeps in the
 * kernel on this PE's doorbell: the first 64 bytes of its heap, which every
 * PE of the node maps and rings after each put or atomic into this PE
 * (ops.h), which shmem_quiet and shmem_fence ring at every PE of the node
 * (ctx.c: after stores through shmem_ptr or by another thread), and which
 * the network transport rings after it has carried out requests into this
 * PE's memory (remora_net_watch: software RMA, UCX over TCP).
 *
 * A plain store by another thread of this PE, or by another PE through
 * shmem_ptr, rings nothing until a quiet, and a program may leave the quiet
 * out: so no sleep is unbounded.  After the spin budget the sleeps last
 * REMORA_SHMEM_WAIT_MIN_US and double up to REMORA_SHMEM_WAIT_MAX_US (50 us
 * and 1 ms by default), each followed by a look at the words: a wait that
 * nobody rings ends within about 1 ms of the change, and costs its core
 * about a thousand wake-ups a second while it lasts.  Hardware RMA from
 * another node rings nothing either: when some PEs are on other nodes, a
 * sleep lasts at most REMORA_NET_RECHECK_US as well.
 *
 * The _any forms return every satisfying index in turn over a series of
 * calls (the spec's fairness): a thread's scan starts after the index it
 * returned last. */
#include <stdint.h>
#include <stdlib.h>

#include "core/spin.h"
#include "shmem/api.h"
#include "shmem/ops.h"

static struct remora_doorbell *my_bell(void) { return (struct remora_doorbell *)remora_shmem.heap.base; }

/* How long sleeps without a ring last (ns): min, doubling up to max. */
static uint64_t sleep_min_ns, sleep_max_ns;

static uint64_t env_us(const char *name, uint64_t dflt)
{
    const char *s = getenv(name);
    char *end;
    unsigned long long v = s && *s ? strtoull(s, &end, 10) : 0;
    return s && *s && !*end && v > 0 ? (uint64_t)v : dflt;
}

static void sleep_bounds(void)
{
    if (__atomic_load_n(&sleep_max_ns, __ATOMIC_RELAXED))
        return;
    uint64_t lo = env_us("REMORA_SHMEM_WAIT_MIN_US", 50) * 1000u, hi = env_us("REMORA_SHMEM_WAIT_MAX_US", 1000) * 1000u;
    if (remora_shmem.nlocal != remora_shmem.n_pes) { /* hardware RMA rings nothing either */
        uint64_t net = (uint64_t)remora_ctx.config.net_recheck_us * 1000u;
        if (net < hi)
            hi = net;
    }
    __atomic_store_n(&sleep_min_ns, lo < hi ? lo : hi, __ATOMIC_RELAXED);
    __atomic_store_n(&sleep_max_ns, hi, __ATOMIC_RELAXED);
}

/* Wait until cond holds: spin for the budget (driving progress), then sleep
 * on the doorbell for bounded, growing times, looking again after each; a
 * ring starts the spinning again (more rings are likely to follow). */
#define WAIT_UNTIL(cond)                                                                                  \
    do {                                                                                                  \
        struct remora_doorbell *bell_ = my_bell();                                                        \
        unsigned budgets_ = remora_shmem.nlocal == remora_shmem.n_pes ? 1 : REMORA_NET_WAIT_BUDGETS;       \
        struct remora_wait wt_;                                                                           \
        uint64_t nap_ = 0;                                                                                \
        sleep_bounds();                                                                                   \
        test_progress();                                                                                  \
        remora_wait_init(&wt_);                                                                           \
        while (!(cond)) {                                                                                 \
            if (!remora_wait_spun(&wt_, budgets_)) {                                                      \
                remora_wait_round(&wt_);                                                                  \
                continue;                                                                                 \
            }                                                                                             \
            nap_ = !nap_ ? sleep_min_ns : nap_ * 2 > sleep_max_ns ? sleep_max_ns : nap_ * 2;              \
            uint32_t seen_ = remora_doorbell_enter(bell_);                                                \
            remora_progress_pause();                                                                      \
            int timed_out_ = !(cond) && remora_doorbell_sleep(bell_, seen_, nap_);                        \
            remora_doorbell_leave(bell_);                                                                 \
            remora_progress();                                                                            \
            if (!timed_out_) /* rung: spin a whole budget again, or every later ring is a syscall */      \
                wt_.sleep_at = 0, nap_ = 0;                                                               \
        }                                                                                                 \
    } while (0)

/* The word at p as a signed or unsigned 64-bit value (an atomic load). */
static inline int64_t load(const void *p, size_t size, int is_signed)
{
    uint64_t v = remora_mapped_load(p, size, __ATOMIC_ACQUIRE);
    if (!is_signed || size == 8)
        return (int64_t)v;
    unsigned shift = 64 - 8 * (unsigned)size; /* sign-extend the narrow word */
    return (int64_t)(v << shift) >> shift;
}

static inline int holds(const void *ivar, size_t size, int is_signed, int cmp, const void *value)
{
    int64_t a = load(ivar, size, is_signed), b = load(value, size, is_signed);
    int c = is_signed || size < 8 ? (a > b) - (a < b) : ((uint64_t)a > (uint64_t)b) - ((uint64_t)a < (uint64_t)b);
    switch (cmp) {
    case SHMEM_CMP_EQ: return c == 0;
    case SHMEM_CMP_NE: return c != 0;
    case SHMEM_CMP_GT: return c > 0;
    case SHMEM_CMP_GE: return c >= 0;
    case SHMEM_CMP_LT: return c < 0;
    case SHMEM_CMP_LE: return c <= 0;
    }
    return -1;
}

static void check_cmp(const char *routine, int cmp)
{
    if (cmp < SHMEM_CMP_EQ || cmp > SHMEM_CMP_LE)
        remora_shmem_abort(routine, "%d is not a comparison (SHMEM_CMP_EQ ... SHMEM_CMP_LE)", cmp);
}

/* A test looks once, but first lets the network carry out what is due:
 * what this thread gathered toward other PEs (the transport batches
 * non-fetching atomics, and a PE's atomics on itself go through the network
 * too when the job spans nodes) leaves, and requests toward this PE are
 * served; a polling loop would never see them otherwise.  A wait does the
 * same once before it spins (the spinning progresses the rest). */
static inline void test_progress(void)
{
    if (remora_shmem.use_net) {
        remora_serve();
        remora_progress();
    }
}

int remora_shmem_compare(const void *ivar, size_t size, int is_signed, int cmp, const void *value)
{
    check_cmp("shmem_test", cmp);
    test_progress();
    return holds(ivar, size, is_signed, cmp, value);
}

void remora_shmem_wait_until(const char *routine, const void *ivar, size_t size, int is_signed, int cmp,
                             const void *value)
{
    check_cmp(routine, cmp);
    WAIT_UNTIL(holds(ivar, size, is_signed, cmp, value));
}

/* Where this thread's next _any scan starts: after the index it returned last. */
static _Thread_local size_t any_next;

/* One pass over the set: how many of the selected words hold (and which, for
 * some: written to indices; for any: in *first the first one at or after
 * `start`, cyclically). */
static size_t scan(const char *ivars, size_t size, int is_signed, size_t nelems, const int *status, size_t *indices,
                   int cmp, const char *values, int vector, size_t start, size_t *first, size_t *selected)
{
    size_t n = 0, wrapped = SIZE_MAX;
    *selected = 0;
    *first = SIZE_MAX;
    for (size_t i = 0; i < nelems; i++) {
        if (status && status[i])
            continue;
        (*selected)++;
        if (holds(ivars + i * size, size, is_signed, cmp, values + (vector ? i * size : 0))) {
            if (i >= start && *first == SIZE_MAX)
                *first = i;
            if (i < start && wrapped == SIZE_MAX)
                wrapped = i;
            if (indices)
                indices[n] = i;
            n++;
        }
    }
    if (*first == SIZE_MAX)
        *first = wrapped;
    return n;
}

size_t remora_shmem_wait_set(const char *routine, enum remora_shmem_wait_kind kind, int test, const void *ivars,
                             size_t size, int is_signed, size_t nelems, const int *status, size_t *indices, int cmp,
                             const void *values, int vector)
{
    check_cmp(routine, cmp);
    size_t first, selected, n, start = kind == REMORA_WAIT_ANY && any_next < nelems ? any_next : 0;
    int done;
#define PASS()                                                                                            \
    (n = scan(ivars, size, is_signed, nelems, status, kind == REMORA_WAIT_SOME ? indices : NULL, cmp, values, \
              vector, start, &first, &selected),                                                          \
     done = kind == REMORA_WAIT_ALL ? n == selected : (selected == 0 || n > 0))
    if (test) {
        test_progress();
        PASS();
    } else {
        WAIT_UNTIL(PASS());
    }
#undef PASS
    switch (kind) {
    case REMORA_WAIT_ALL: return (size_t)done;
    case REMORA_WAIT_ANY:
        if (first != SIZE_MAX)
            any_next = first + 1;
        return first;
    default: return n;
    }
}

/* ---- deprecated untyped forms (long) --------------------------------------------- */
void pshmem_wait_until(long *ivar, int cmp, long cmp_value)
{
    remora_shmem_wait_until("shmem_wait_until", ivar, sizeof *ivar, 1, cmp, &cmp_value);
}
REMORA_SHMEM_ALIAS(shmem_wait_until);

void pshmem_wait(long *ivar, long cmp_value)
{
    remora_shmem_wait_until("shmem_wait", ivar, sizeof *ivar, 1, SHMEM_CMP_NE, &cmp_value);
}
REMORA_SHMEM_ALIAS(shmem_wait);
