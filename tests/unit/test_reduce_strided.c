/* The strided reduction kernels (core/reduce.c ks_<op>_<type>, through
 * remora_reduce_strided_kernel_by_id), which the owner of target memory
 * applies a strided accumulate with: for every predefined type and every op
 * it has a kernel for, count blocks of per elements whose starts lie step
 * bytes apart must end as the contiguous kernel leaves them when it is
 * called on the blocks one after the other.  Blocks of 1, 2 (the unrolled
 * loops) and 3 or 7 elements; steps that keep the blocks apart, backwards,
 * 0 (a run of calls on one block: each sees the one before) and shorter
 * than a block (overlapping blocks); every byte of the buffer is compared,
 * so a write outside the blocks fails too.  One process. */
#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/predefined_types.h"
#include "core/reduce.h"

#include "unit_check.h"

#define SIZE_OF(id, h, ct, cl, sg) sizeof(ct),
#define NAME_OF(id, h, ct, cl, sg) #id,
static const size_t sizes[] = {REMORA_PREDEFINED_TYPES(SIZE_OF)};
static const char *const names[] = {REMORA_PREDEFINED_TYPES(NAME_OF)};

#define SPAN 4096

/* Bytes of 0 and 1: valid in every type (a C bool holds only these), and no
 * type sees a NaN or an overflow that two correct kernels could round
 * differently. */
static void fill(unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)((i * 7 + seed * 13 + i / 3) % 2);
}

int main(void)
{
    static unsigned char want[SPAN], got[SPAN], in[SPAN];
    static const size_t pers[] = {1, 2, 3, 7};
    int kernels = 0;
    for (unsigned id = 0; id < REMORA_PREDEFINED_TYPE_COUNT; id++)
        for (int op = 0; op < REMORA_OP_REPLACE; op++) {
            remora_reduce_fn k = remora_reduce_kernel_by_id((enum remora_op)op, id);
            remora_reduce_strided_fn ks = remora_reduce_strided_kernel_by_id((enum remora_op)op, id);
            CHECK(!k == !ks, "%s op %d: a kernel without its strided form, or the other way round", names[id], op);
            if (!k || !ks)
                continue;
            kernels++;
            size_t esz = sizes[id];
            for (size_t pi = 0; pi < sizeof pers / sizeof *pers; pi++) {
                size_t per = pers[pi], block = per * esz;
                int64_t steps[] = {(int64_t)(2 * block), (int64_t)block, -(int64_t)(2 * block), 0, (int64_t)esz};
                for (size_t si = 0; si < sizeof steps / sizeof *steps; si++)
                    for (size_t count = 1; count <= 5; count++) {
                        int64_t step = steps[si];
                        /* the first block where every block stays inside SPAN, a step < 0 going down */
                        size_t at = step < 0 ? (size_t)(-step) * (count - 1) + 64 : 64;
                        fill(want, SPAN, (unsigned)(id + count));
                        memcpy(got, want, SPAN);
                        fill(in, SPAN, (unsigned)(op + per));
                        for (size_t b = 0; b < count; b++)
                            k(want + (int64_t)at + step * (int64_t)b, in + b * block, per);
                        ks(got + at, step, in, count, per);
                        CHECK(memcmp(want, got, SPAN) == 0, "%s op %d: %zu blocks of %zu at step %lld differ",
                              names[id], op, count, per, (long long)step);
                    }
            }
        }
    CHECK(kernels > 50, "only %d kernels found", kernels);
    return unit_result();
}
