/* The loop whose instructions per call `scripts/shmem-bench --callgrind`
 * counts under valgrind --tool=callgrind, for any OpenSHMEM library: N calls
 * of shmem_putmem of 8 bytes to the next PE (on this node when the PEs share
 * one), a handshake (quiet, put of a flag, quiet), then N calls of shmem_quiet
 * with nothing outstanding.  The script divides the inclusive cost of the
 * calls made from main by their count (callgrind's call arcs).
 *
 *   shmem_calls [N]      (2 or more PEs; prints nothing, exits 1 if the data is wrong) */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { SLOTS = 1024 };

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 100000;
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes(), next = (me + 1) % npes;
    long *slot = shmem_malloc((SLOTS + 1) * sizeof *slot), *done = &slot[SLOTS];
    /* zero, then the barrier (OSHMEM's shmem_calloc zeroes after its own) */
    memset(slot, 0, (SLOTS + 1) * sizeof *slot);
    shmem_barrier_all();
    for (long i = 0; i < n; i++) {
        long v = i + 1;
        shmem_putmem(&slot[i % SLOTS], &v, sizeof v, next);
    }
    shmem_quiet(); /* the puts land before the flag */
    shmem_long_p(done, 1, next);
    shmem_quiet(); /* the N quiets below find nothing outstanding */
    for (long i = 0; i < n; i++)
        shmem_quiet();
    shmem_long_wait_until(done, SHMEM_CMP_EQ, 1);
    /* the last put to slot j carried the largest i + 1 below n + 1 with i % SLOTS == j */
    long bad = 0;
    for (long j = 0; j < SLOTS && j < n; j++)
        bad += slot[j] != j + (n - 1 - j) / SLOTS * SLOTS + 1;
    if (bad)
        fprintf(stderr, "shmem_calls: PE %d: %ld slots hold a wrong value\n", me, bad);
    shmem_free(slot);
    shmem_finalize();
    return bad != 0;
}
