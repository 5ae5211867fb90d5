/* Verification patterns: every element of every transfer is unique to
 * (origin rank, thread, round, element), so a lost, misplaced, stale or torn
 * transfer shows as a mismatch that names all four. */
#include <stdio.h>
#include <string.h>

#include "rmamt.h"

/* Element k's own part, k * 2654435761 mod 2^23: the multiplier is odd, so
 * the parts of 2^23 consecutive elements (64 MiB) all differ.  Only the low
 * 32 bits of the product matter, so a fill steps four 32-bit counters by
 * 4 * 2654435761 (wrapping) instead of multiplying or dividing per element:
 * the bandwidth rows fill every round's origin buffer in the clock, and a
 * division per element made that 10x a memcpy, a chain of modular steps 3x
 * (76% of a 1 MiB put round through Remora).  Now it goes at memset's pace. */
#define ELEMENT_MULT 2654435761u
#define ELEMENT_MASK 0x7fffffu

static uint64_t element_part(size_t k) { return ((uint32_t)k * ELEMENT_MULT) & ELEMENT_MASK; }

uint64_t pattern(int origin, int thread, long round, size_t k)
{
    /* small enough that sums over all rounds of a run never overflow */
    return ((uint64_t)(origin & 0xfff) << 36) ^ ((uint64_t)(thread & 0xff) << 28) ^
           ((uint64_t)(round & 0xfffff) << 8) ^ element_part(k) ^ 1;
}

static void store_le64(unsigned char *p, uint64_t v)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(p, &v, 8);
#else
    for (int b = 0; b < 8; b++)
        p[b] = (unsigned char)(v >> (8 * b));
#endif
}

static uint64_t load_le64(const unsigned char *p)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
#else
    uint64_t v = 0;
    for (int b = 0; b < 8; b++)
        v |= (uint64_t)p[b] << (8 * b);
    return v;
#endif
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
    uint64_t fixed = pattern(origin, thread, round, 0) ^ element_part(0);
    uint32_t e0 = 0, e1 = ELEMENT_MULT, e2 = 2 * ELEMENT_MULT, e3 = 3 * ELEMENT_MULT; /* k * ELEMENT_MULT, 4 lanes */
    size_t k = 0;
    for (; (k + 4) * 8 <= size; k += 4, e0 += 4 * ELEMENT_MULT, e1 += 4 * ELEMENT_MULT, e2 += 4 * ELEMENT_MULT,
                                e3 += 4 * ELEMENT_MULT) {
        store_le64(buf + 8 * k, fixed ^ (e0 & ELEMENT_MASK));
        store_le64(buf + 8 * k + 8, fixed ^ (e1 & ELEMENT_MASK));
        store_le64(buf + 8 * k + 16, fixed ^ (e2 & ELEMENT_MASK));
        store_le64(buf + 8 * k + 24, fixed ^ (e3 & ELEMENT_MASK));
    }
    for (; (k + 1) * 8 <= size; k++)
        store_le64(buf + 8 * k, fixed ^ element_part(k));
    for (size_t i = 8 * k; i < size; i++)
        buf[i] = (unsigned char)((fixed ^ element_part(k)) >> (8 * (i - 8 * k)));
}

/* The first byte of buf that differs from the pattern stream, or size. */
size_t check_pattern(const unsigned char *buf, size_t size, int origin, int thread, long round, unsigned char *want)
{
    uint64_t fixed = pattern(origin, thread, round, 0) ^ element_part(0);
    for (size_t k = 0; 8 * k < size; k++) {
        uint64_t v = fixed ^ element_part(k);
        if (8 * k + 8 <= size && load_le64(buf + 8 * k) == v)
            continue;
        for (size_t b = 0; b < 8 && 8 * k + b < size; b++)
            if (buf[8 * k + b] != (unsigned char)(v >> (8 * b))) {
                *want = (unsigned char)(v >> (8 * b));
                return 8 * k + b;
            }
    }
    return size;
}
