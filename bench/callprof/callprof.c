/* callprof: how long a program spends inside each MPI synchronisation and RMA
 * call, per rank.  A PMPI interposer loaded ahead of the MPI library (and of
 * Remora) by scripts/callprof; at MPI_Finalize each rank prints
 *
 *   callprof rank R: MPI_Win_fence 660 calls, 13.340 us each, 8.804 ms in all
 *
 * for every call it saw.  It answers whether a benchmark's time goes to the
 * MPI library or elsewhere (thread hand-offs, the scheduler): compare the sum
 * of a round's calls with the round's time.  Each call adds two clock reads
 * (tens of ns) to what it measures.  Thread-safe: counters are atomic. */
#include <mpi.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

/* X(name, parameters, arguments): every call measured */
#define CALLPROF_CALLS(X)                                                                                   \
    X(MPI_Win_fence, (int a, MPI_Win w), (a, w))                                                          \
    X(MPI_Win_post, (MPI_Group g, int a, MPI_Win w), (g, a, w))                                           \
    X(MPI_Win_start, (MPI_Group g, int a, MPI_Win w), (g, a, w))                                          \
    X(MPI_Win_complete, (MPI_Win w), (w))                                                                 \
    X(MPI_Win_wait, (MPI_Win w), (w))                                                                     \
    X(MPI_Win_lock, (int type, int rank, int a, MPI_Win w), (type, rank, a, w))                           \
    X(MPI_Win_unlock, (int rank, MPI_Win w), (rank, w))                                                   \
    X(MPI_Win_lock_all, (int a, MPI_Win w), (a, w))                                                       \
    X(MPI_Win_unlock_all, (MPI_Win w), (w))                                                               \
    X(MPI_Win_flush, (int rank, MPI_Win w), (rank, w))                                                    \
    X(MPI_Win_flush_local, (int rank, MPI_Win w), (rank, w))                                              \
    X(MPI_Win_flush_all, (MPI_Win w), (w))                                                                \
    X(MPI_Put, (const void *o, int oc, MPI_Datatype ot, int r, MPI_Aint d, int tc, MPI_Datatype tt, MPI_Win w), \
      (o, oc, ot, r, d, tc, tt, w))                                                                       \
    X(MPI_Get, (void *o, int oc, MPI_Datatype ot, int r, MPI_Aint d, int tc, MPI_Datatype tt, MPI_Win w),       \
      (o, oc, ot, r, d, tc, tt, w))                                                                       \
    X(MPI_Accumulate,                                                                                     \
      (const void *o, int oc, MPI_Datatype ot, int r, MPI_Aint d, int tc, MPI_Datatype tt, MPI_Op op, MPI_Win w), \
      (o, oc, ot, r, d, tc, tt, op, w))                                                                   \
    X(MPI_Get_accumulate,                                                                                 \
      (const void *o, int oc, MPI_Datatype ot, void *res, int resc, MPI_Datatype rt, int r, MPI_Aint d, int tc, \
       MPI_Datatype tt, MPI_Op op, MPI_Win w),                                                            \
      (o, oc, ot, res, resc, rt, r, d, tc, tt, op, w))                                                      \
    X(MPI_Fetch_and_op, (const void *o, void *res, MPI_Datatype t, int r, MPI_Aint d, MPI_Op op, MPI_Win w), \
      (o, res, t, r, d, op, w))                                                                           \
    X(MPI_Compare_and_swap,                                                                               \
      (const void *o, const void *c, void *res, MPI_Datatype t, int r, MPI_Aint d, MPI_Win w),            \
      (o, c, res, t, r, d, w))                                                                            \
    X(MPI_Barrier, (MPI_Comm c), (c))

enum {
#define CALLPROF_INDEX(name, params, args) IDX_##name,
    CALLPROF_CALLS(CALLPROF_INDEX) NCALLS
};

static const char *const names[NCALLS] = {
#define CALLPROF_NAME(name, params, args) #name,
    CALLPROF_CALLS(CALLPROF_NAME)};

static _Atomic uint64_t calls[NCALLS], nanos[NCALLS];

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#define CALLPROF_WRAP(name, params, args)                                                                 \
    int name params                                                                                       \
    {                                                                                                     \
        uint64_t t0 = now_ns();                                                                           \
        int rc = P##name args;                                                                            \
        atomic_fetch_add_explicit(&nanos[IDX_##name], now_ns() - t0, memory_order_relaxed);               \
        atomic_fetch_add_explicit(&calls[IDX_##name], 1, memory_order_relaxed);                           \
        return rc;                                                                                        \
    }
CALLPROF_CALLS(CALLPROF_WRAP)

int MPI_Finalize(void)
{
    int rank;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < NCALLS; i++) {
        uint64_t n = atomic_load(&calls[i]), ns = atomic_load(&nanos[i]);
        if (n)
            fprintf(stderr, "callprof rank %d: %s %llu calls, %.3f us each, %.3f ms in all\n", rank, names[i],
                    (unsigned long long)n, ns / 1e3 / (double)n, ns / 1e6);
    }
    return PMPI_Finalize();
}
