/* rmamt's verification pattern (bench/rmamt/pattern.c): fill_pattern writes
 * element k of (origin, thread, round) as pattern() gives it, little-endian,
 * for every size (whole elements in lanes and the tail, a partial last
 * element), and check_pattern accepts what it wrote and finds the first byte
 * changed. */
#include <stdlib.h>
#include <string.h>

#include "../../bench/rmamt/rmamt.h"
#include "../unit/unit_check.h"

static void check(size_t size, int origin, int thread, long round)
{
    unsigned char *buf = malloc(size + 1), want;
    buf[size] = 0xa5;
    fill_pattern(buf, size, origin, thread, round);
    for (size_t i = 0; i < size; i++) {
        uint64_t v = pattern(origin, thread, round, i / 8);
        if (buf[i] != (unsigned char)(v >> (8 * (i % 8)))) {
            CHECK(0, "size %zu (%d, %d, %ld): byte %zu is %#x, pattern() gives %#x", size, origin, thread, round, i,
                  buf[i], (unsigned)(unsigned char)(v >> (8 * (i % 8))));
            break;
        }
    }
    CHECK(buf[size] == 0xa5, "size %zu: fill_pattern wrote past the end", size);
    CHECK(check_pattern(buf, size, origin, thread, round, &want) == size, "size %zu: check_pattern refuses the fill",
          size);
    if (size) {
        size_t at = size / 3;
        buf[at] ^= 0x10;
        CHECK(check_pattern(buf, size, origin, thread, round, &want) == at, "size %zu: the changed byte %zu is missed",
              size, at);
        CHECK(check_pattern(buf, size, origin, thread, round + 1, &want) < size, "size %zu: another round passes",
              size);
    }
    free(buf);
}

int main(void)
{
    const size_t sizes[] = {0, 1, 7, 8, 9, 56, 63, 64, 65, 72, 120, 1000, 1024, 4096 + 24, 1 << 20};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
        for (int origin = 0; origin < 3; origin++)
            check(sizes[i], origin, origin + 1, 1000L * origin + 7);
    /* past 2^23 elements: the element parts wrap */
    check((size_t)0x800000 * 8 + 40, 5, 3, 12345);
    return unit_result();
}
