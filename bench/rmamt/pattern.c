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

/* buf = the pattern stream of (origin, thread, round) as bytes: element k's
 * 8 bytes little-endian at offset 8k (a last partial element truncated). */
void fill_pattern(unsigned char *buf, size_t size, int origin, int thread, long round)
{
    size_t k = 0;
    for (; (k + 1) * 8 <= size; k++) {
        uint64_t v = pattern(origin, thread, round, k);
        for (int b = 0; b < 8; b++)
            buf[8 * k + (size_t)b] = (unsigned char)(v >> (8 * b));
    }
    uint64_t v = pattern(origin, thread, round, k);
    for (size_t i = 8 * k; i < size; i++)
        buf[i] = (unsigned char)(v >> (8 * (i - 8 * k)));
}

/* The first byte of buf that differs from the pattern stream, or size. */
size_t check_pattern(const unsigned char *buf, size_t size, int origin, int thread, long round, unsigned char *want)
{
    /* element by element: cheap next to the transfer it checks */
    for (size_t k = 0; 8 * k < size; k++) {
        uint64_t v = pattern(origin, thread, round, k);
        for (size_t b = 0; b < 8 && 8 * k + b < size; b++)
            if (buf[8 * k + b] != (unsigned char)(v >> (8 * b))) {
                *want = (unsigned char)(v >> (8 * b));
                return 8 * k + b;
            }
    }
    return size;
}
