/* Point-to-point synchronization: wait_until, test and their set forms.
 *
 * A wait spins (driving the transport's progress) and then sleeps in the
 * kernel on this PE's doorbell: the first 64 bytes of its heap, which every
 * PE of the node maps and rings after each put or atomic into this PE
 * (ops.h), and which the network transport rings after it has carried out
 * requests into this PE's memory (remora_net_watch: software RMA, UCX over
 * TCP).  Hardware RMA from another node rings nothing: when some PEs are on
 * other nodes, a sleep lasts at most REMORA_NET_RECHECK_US before the wait
 * looks again. */
#include <stdint.h>

#include "core/spin.h"
#include "shmem/api.h"
#include "shmem/ops.h"

static struct remora_doorbell *my_bell(void) { return (struct remora_doorbell *)remora_shmem.heap.base; }

/* 0 (sleep until rung) when every PE is on this node */
static uint64_t recheck_ns(void)
{
    return remora_shmem.nlocal == remora_shmem.n_pes ? 0 : (uint64_t)remora_ctx.config.net_recheck_us * 1000u;
}

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

int remora_shmem_compare(const void *ivar, size_t size, int is_signed, int cmp, const void *value)
{
    check_cmp("shmem_test", cmp);
    return holds(ivar, size, is_signed, cmp, value);
}

void remora_shmem_wait_until(const char *routine, const void *ivar, size_t size, int is_signed, int cmp,
                             const void *value)
{
    check_cmp(routine, cmp);
    REMORA_WAIT_UNTIL_RECHECK(my_bell(), recheck_ns(), holds(ivar, size, is_signed, cmp, value));
}

/* One pass over the set: how many of the selected words hold (and which, for
 * some: written to indices; for any: the first one in *first). */
static size_t scan(const char *ivars, size_t size, int is_signed, size_t nelems, const int *status, size_t *indices,
                   int cmp, const char *values, int vector, size_t *first, size_t *selected)
{
    size_t n = 0;
    *selected = 0;
    *first = SIZE_MAX;
    for (size_t i = 0; i < nelems; i++) {
        if (status && status[i])
            continue;
        (*selected)++;
        if (holds(ivars + i * size, size, is_signed, cmp, values + (vector ? i * size : 0))) {
            if (*first == SIZE_MAX)
                *first = i;
            if (indices)
                indices[n] = i;
            n++;
        }
    }
    return n;
}

size_t remora_shmem_wait_set(const char *routine, enum remora_shmem_wait_kind kind, int test, const void *ivars,
                             size_t size, int is_signed, size_t nelems, const int *status, size_t *indices, int cmp,
                             const void *values, int vector)
{
    check_cmp(routine, cmp);
    size_t first, selected, n;
    int done;
#define PASS()                                                                                            \
    (n = scan(ivars, size, is_signed, nelems, status, kind == REMORA_WAIT_SOME ? indices : NULL, cmp, values, \
              vector, &first, &selected),                                                                 \
     done = kind == REMORA_WAIT_ALL ? n == selected : (selected == 0 || n > 0))
    if (test) {
        PASS();
    } else {
        REMORA_WAIT_UNTIL_RECHECK(my_bell(), recheck_ns(), PASS());
    }
#undef PASS
    switch (kind) {
    case REMORA_WAIT_ALL: return (size_t)done;
    case REMORA_WAIT_ANY: return first;
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
