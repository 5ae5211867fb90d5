/* Verification patterns: every element of every transfer is unique to
 * (origin rank, thread, round, element), so a lost, misplaced, stale or torn
 * transfer shows as a mismatch that names all four. */
#include <stdio.h>

#include "rmamt.h"

uint64_t pattern(int origin, int thread, long round, size_t k)
{
    /* small enough that sums over all rounds of a run never overflow */
    return ((uint64_t)(origin & 0xfff) << 36) ^ ((uint64_t)(thread & 0xff) << 28) ^
           ((uint64_t)(round & 0xfffff) << 8) ^ (uint64_t)(k * 2654435761u % 0x7fffffu) ^ 1;
}

void report_mismatch(const char *what, int origin, int thread, long round, size_t k, uint64_t want, uint64_t got)
{
    static int reported;
    if (reported++ < 3)
        fprintf(stderr,
                "rmamt: VERIFICATION FAILED: %s: origin %d thread %d round %ld element %zu: expected %#llx, got "
                "%#llx\n",
                what, origin, thread, round, k, (unsigned long long)want, (unsigned long long)got);
}
