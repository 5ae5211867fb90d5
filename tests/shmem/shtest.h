/* What the OpenSHMEM tests share: failure counting, a barrier that does not
 * depend on the collectives, the spec's type tables as X-macro lists, and the
 * ending every test program has.
 *
 * A test fails when any PE counts an error (its exit status is nonzero, and
 * so is the job's) or when it hangs (scripts/mpirun's --timeout). */
#ifndef SHTEST_H
#define SHTEST_H

#include <mpi.h>
#include <shmem.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* The spec's type tables (OpenSHMEM 1.6, tables of standard RMA types,
 * standard/extended/bitwise AMO types and point-to-point synchronization
 * types), as X(id, C type). */
#define SHT_RMA_TYPES(X)                                                                                      \
    X(float, float) X(double, double) X(longdouble, long double) X(char, char) X(schar, signed char)          \
    X(short, short) X(int, int) X(long, long) X(longlong, long long) X(uchar, unsigned char)                  \
    X(ushort, unsigned short) X(uint, unsigned int) X(ulong, unsigned long)                                   \
    X(ulonglong, unsigned long long) X(int8, int8_t) X(int16, int16_t) X(int32, int32_t) X(int64, int64_t)    \
    X(uint8, uint8_t) X(uint16, uint16_t) X(uint32, uint32_t) X(uint64, uint64_t) X(size, size_t)             \
    X(ptrdiff, ptrdiff_t)
#define SHT_AMO_STANDARD(X)                                                                                   \
    X(int, int) X(long, long) X(longlong, long long) X(uint, unsigned int) X(ulong, unsigned long)            \
    X(ulonglong, unsigned long long) X(int32, int32_t) X(int64, int64_t) X(uint32, uint32_t)                  \
    X(uint64, uint64_t) X(size, size_t) X(ptrdiff, ptrdiff_t)
/* the extended table is the standard one plus these two */
#define SHT_AMO_EXTENDED_ONLY(X) X(float, float) X(double, double)
#define SHT_AMO_BITWISE(X)                                                                                    \
    X(uint, unsigned int) X(ulong, unsigned long) X(ulonglong, unsigned long long) X(int32, int32_t)          \
    X(int64, int64_t) X(uint32, uint32_t) X(uint64, uint64_t)
#define SHT_SYNC_TYPES(X) SHT_AMO_STANDARD(X)

static int sht_errors;

/* Counts a failure; prints the first ones (a broken routine would otherwise
 * print thousands of lines).  Threads may fail at once. */
__attribute__((format(printf, 3, 4))) static void sht_fail(const char *file, int line, const char *fmt, ...)
{
    if (__atomic_fetch_add(&sht_errors, 1, __ATOMIC_RELAXED) >= 25)
        return;
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    printf("PE %d: %s:%d: %s\n", shmem_my_pe(), file, line, what);
    fflush(stdout);
}

#define SHT_CHECK(cond, ...)                                                                                  \
    do {                                                                                                      \
        if (!(cond))                                                                                          \
            sht_fail(__FILE__, __LINE__, __VA_ARGS__);                                                        \
    } while (0)

/* Every PE's operations complete and every PE has arrived.  MPI's barrier
 * rather than shmem_barrier_all, so that these tests depend on the point-to-
 * point part of the library only (the collectives are tested on their own). */
static inline void sht_barrier(void)
{
    shmem_quiet();
    MPI_Barrier(MPI_COMM_WORLD);
}

/* The job's verdict: every PE's count summed at PE 0, which prints it.
 * Then shmem_finalize; returns main's status. */
static inline int sht_finish(const char *name)
{
    int total = 0;
    shmem_quiet();
    MPI_Allreduce(&sht_errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (shmem_my_pe() == 0)
        printf("%s: %d PEs: %s (%d errors)\n", name, shmem_n_pes(), total ? "FAILED" : "ok", total);
    fflush(stdout);
    shmem_finalize();
    return sht_errors != 0;
}

/* Aborts the test when it needs more PEs' room than it was written for. */
static inline void sht_require_pes(int max)
{
    if (shmem_n_pes() > max) {
        fprintf(stderr, "this test is written for at most %d PEs, not %d\n", max, shmem_n_pes());
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
}

#endif
