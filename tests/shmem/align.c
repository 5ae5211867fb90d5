/* shmem_align: the address is a multiple of the alignment on every PE and
 * symmetric (a put to the left neighbour's copy lands in its block), for
 * every power of two from 8 bytes to 64 MiB, with small allocations in
 * between so that the free list is fragmented; an alignment that the heap's
 * reservation cannot hold returns NULL on every PE (with a message) and the
 * program goes on.
 * (The heap's base was only page-aligned: 4 MiB alignments came back
 * misaligned.) */
#include <stdint.h>

#include "shtest.h"

#define MAX_SHIFT 26

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes(), right = (me + 1) % n, left = (me + n - 1) % n;
    void *blocks[MAX_SHIFT + 1] = {0}, *small[MAX_SHIFT + 1] = {0};
    for (int s = 3; s <= MAX_SHIFT; s++) {
        size_t a = (size_t)1 << s;
        small[s] = shmem_malloc(40 + (size_t)s); /* moves the free list's start off any alignment */
        long *p = shmem_align(a, 3 * sizeof(long));
        blocks[s] = p;
        SHT_CHECK(p != NULL, "shmem_align(%zu) returned NULL", a);
        if (!p)
            continue;
        SHT_CHECK(((uintptr_t)p & (a - 1)) == 0, "shmem_align(%zu) returned %p, not a multiple", a, (void *)p);
        p[0] = -1;
        shmem_barrier_all();
        shmem_long_p(p, me + 1000L * s, right); /* symmetric: lands in the neighbour's block */
        shmem_barrier_all();
        SHT_CHECK(p[0] == left + 1000L * s, "the block of shmem_align(%zu) holds %ld, not %ld", a, p[0],
                  left + 1000L * s);
        /* the address is the same offset from the heap on every PE: its low bits agree */
        uintptr_t low = (uintptr_t)p & ((a << 1) - 1), lo_min, lo_max;
        MPI_Allreduce(&low, &lo_min, 1, MPI_UNSIGNED_LONG, MPI_MIN, MPI_COMM_WORLD);
        MPI_Allreduce(&low, &lo_max, 1, MPI_UNSIGNED_LONG, MPI_MAX, MPI_COMM_WORLD);
        SHT_CHECK(lo_min == lo_max, "shmem_align(%zu): the PEs' addresses differ in their low bits", a);
    }
    /* beyond the reservation (64 GiB by default): NULL everywhere (unless a
     * multiple of 64 TiB happens to lie in the heap), then the heap still works */
    void *huge = shmem_align((size_t)1 << 46, 64);
    SHT_CHECK(huge == NULL || ((uintptr_t)huge & (((size_t)1 << 46) - 1)) == 0, "shmem_align(64 TiB) returned %p",
              huge);
    shmem_free(huge);
    long *after = shmem_align(4096, sizeof(long));
    SHT_CHECK(after != NULL && ((uintptr_t)after & 4095) == 0, "shmem_align(4096) after a failure: %p",
              (void *)after);
    shmem_free(after);
    for (int s = MAX_SHIFT; s >= 3; s--) {
        shmem_free(blocks[s]);
        shmem_free(small[s]);
    }
    return sht_finish("align");
}
