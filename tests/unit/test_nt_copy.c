/* Large puts into mapped memory (transport/mapped.h remora_mapped_put): from
 * REMORA_NT_COPY_MIN bytes on they go through nt_copy.c, with non-temporal
 * stores to a new destination and a plain copy to the previous one again;
 * either way every byte arrives and none around the destination changes, at
 * every alignment of source and destination and every size around the 16-byte
 * and 64-byte steps of the streaming loop; source and destination that overlap
 * keep memmove's result.  One process. */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/context.h"
#include "transport/mapped.h"

#include "unit_check.h"

#define GUARD 64

static unsigned char pattern(size_t i, int round) { return (unsigned char)(i * 7 + (size_t)round * 13 + 1); }

/* One put of n bytes from src + so into dst + doff (dst has GUARD bytes on either side). */
static void one_put(unsigned char *dst, unsigned char *src, size_t doff, size_t so, size_t n, int round)
{
    for (size_t i = 0; i < n; i++)
        src[so + i] = pattern(i, round);
    remora_mapped_put(dst + GUARD + doff, src + so, n);
    for (size_t i = 0; i < GUARD + doff; i++)
        CHECK(dst[i] == 0xAA, "byte %zu before a put of %zu at +%zu changed", i, n, doff);
    for (size_t i = 0; i < n; i++)
        if (dst[GUARD + doff + i] != pattern(i, round)) {
            CHECK(0, "round %d: byte %zu of a put of %zu bytes (+%zu from +%zu) is %#x, not %#x", round, i, n, doff,
                  so, dst[GUARD + doff + i], pattern(i, round));
            break;
        }
    for (size_t i = GUARD + doff + n; i < GUARD + doff + n + GUARD; i++)
        CHECK(dst[i] == 0xAA, "byte %zu after a put of %zu at +%zu changed", i - GUARD - doff - n, n, doff);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    static const size_t sizes[] = {9, 15, 16, 17, 63, 64, 65, 127, 128, 129, 4096 + 5, 300000, (1 << 20) + 13};
    size_t big = (1 << 20) + 13 + 32;
    unsigned char *dst = malloc(big + 2 * GUARD + 32), *src = malloc(big + 32);
    remora_ctx.config.nt_copy_min = 9; /* every size above goes through nt_copy.c */
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++)
        for (size_t doff = 0; doff < 18; doff += sizes[k] > 4096 ? 5 : 1)
            for (size_t so = 0; so < 4; so++) {
                memset(dst, 0xAA, sizes[k] + doff + 2 * GUARD);
                one_put(dst, src, doff, so, sizes[k], 0); /* a new destination: streaming stores */
                one_put(dst, src, doff, so, sizes[k], 1); /* the same again: a plain copy */
            }
    /* overlapping source and destination (a window that puts into itself): memmove */
    size_t n = 300000;
    for (size_t i = 0; i < n + 100; i++)
        src[i] = pattern(i, 2);
    remora_mapped_put(src + 100, src, n);
    for (size_t i = 0; i < n; i++)
        if (src[100 + i] != pattern(i, 2)) {
            CHECK(0, "overlapping put: byte %zu is %#x, not %#x", i, src[100 + i], pattern(i, 2));
            break;
        }
    free(dst);
    free(src);
    MPI_Finalize();
    return unit_result();
}
