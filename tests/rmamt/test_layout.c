/* rmamt's layout (bench/rmamt/layout.h): every stream group starts on a cache
 * line of its own and no two groups share a line, in the window and buffers
 * (slot_offset) and in the expected sums (sum_index); a group's slots lie one
 * after another; everything fits the length the layout gives. */
#include <stdio.h>

#include "../../bench/rmamt/layout.h"
#include "../unit/unit_check.h"

static void check(int batch, size_t size, int groups)
{
    struct layout l = layout_make(batch, size);
    size_t bytes = layout_bytes(&l, groups), sums = sums_count(&l, groups);
    size_t prev_end = 0, prev_sum_end = 0;
    for (int g = 0; g < groups; g++) {
        size_t start = slot_offset(&l, g * batch), sum_start = sum_index(&l, g * batch, 0);
        CHECK(start % RMAMT_LINE == 0, "batch %d size %zu: group %d starts at byte %zu", batch, size, g, start);
        CHECK(sum_start * sizeof(uint64_t) % RMAMT_LINE == 0, "batch %d size %zu: group %d's sums start at %zu",
              batch, size, g, sum_start);
        CHECK(g == 0 || start / RMAMT_LINE > (prev_end - 1) / RMAMT_LINE,
              "batch %d size %zu: group %d shares a line with group %d", batch, size, g, g - 1);
        CHECK(g == 0 || sum_start * 8 / RMAMT_LINE > (prev_sum_end * 8 - 1) / RMAMT_LINE,
              "batch %d size %zu: group %d's sums share a line with group %d's", batch, size, g, g - 1);
        for (int b = 0; b < batch; b++) {
            int s = g * batch + b;
            CHECK(slot_offset(&l, s) == start + (size_t)b * size, "batch %d size %zu: slot %d at %zu", batch, size, s,
                  slot_offset(&l, s));
            for (size_t k = 0; k < l.nelem; k++)
                CHECK(sum_index(&l, s, k) == sum_start + (size_t)b * l.nelem + k,
                      "batch %d size %zu: sum %zu of slot %d at %zu", batch, size, k, s, sum_index(&l, s, k));
        }
        prev_end = slot_offset(&l, g * batch + batch - 1) + size;
        prev_sum_end = sum_index(&l, g * batch + batch - 1, l.nelem - 1) + 1;
        CHECK(prev_end <= bytes, "batch %d size %zu: group %d ends at %zu, past %zu", batch, size, g, prev_end, bytes);
        CHECK(prev_sum_end <= sums, "batch %d size %zu: group %d's sums end at %zu, past %zu", batch, size, g,
              prev_sum_end, sums);
    }
    CHECK(bytes % RMAMT_LINE == 0, "batch %d size %zu: %zu bytes are not whole lines", batch, size, bytes);
}

int main(void)
{
    const int batches[] = {1, 2, 3, 8, 32};
    const size_t sizes[] = {1, 3, 8, 24, 64, 1000, 1024, 1 << 20};
    for (size_t i = 0; i < sizeof batches / sizeof *batches; i++)
        for (size_t j = 0; j < sizeof sizes / sizeof *sizes; j++)
            for (int groups = 1; groups <= 6; groups++)
                check(batches[i], sizes[j], groups);
    return unit_result();
}
