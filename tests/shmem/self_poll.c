/* A PE's operations on its own memory are visible to its own polling
 * (issue 32: across nodes every heap atomic goes through the network, and a
 * PE's atomic or signal on itself was applied only at the next barrier, so
 * a loop that polled with shmem_test or shmem_signal_fetch for every PE's
 * update, its own included, spun forever).
 *
 * Three rounds of updates from every PE to every PE (0, 1, ... n-1: itself
 * among them), each followed by polling without a barrier or a quiet:
 *   adds        shmem_long_atomic_add on a counter, polled with shmem_test
 *               until it is n_pes;
 *   signals     shmem_signal_add on the sender's own word, polled with
 *               shmem_signal_fetch word by word, then shmem_uint64_test_all;
 *   put_signal  shmem_long_put_signal (SHMEM_SIGNAL_ADD) of the sender's
 *               number, polled with shmem_signal_fetch; the data is checked.
 * Between rounds a quiet and a barrier.  Run across simulated nodes above
 * all (tests/shmem/CMakeLists.txt). */
#include "shtest.h"

#define MAXPE 64

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    sht_require_pes(MAXPE);
    long *counter = shmem_calloc(1, sizeof(long));
    uint64_t *sig = shmem_calloc(MAXPE, sizeof(uint64_t));
    long *data = shmem_calloc(MAXPE, sizeof(long));
    for (int round = 1; round <= 3; round++) {
        /* adds */
        for (int pe = 0; pe < n; pe++)
            shmem_long_atomic_add(counter, 1, pe);
        while (!shmem_long_test(counter, SHMEM_CMP_EQ, (long)n * round))
            ;
        sht_barrier();
        /* signals */
        for (int pe = 0; pe < n; pe++)
            shmem_signal_add(&sig[me], 1, pe);
        for (int pe = 0; pe < n; pe++)
            while (shmem_signal_fetch(&sig[pe]) < (uint64_t)(2 * round - 1))
                ;
        while (!shmem_uint64_test_all(sig, (size_t)n, NULL, SHMEM_CMP_EQ, (uint64_t)(2 * round - 1)))
            ;
        sht_barrier();
        /* put with signal */
        long v = 1000L * round + me;
        for (int pe = 0; pe < n; pe++)
            shmem_long_put_signal(&data[me], &v, 1, &sig[me], 1, SHMEM_SIGNAL_ADD, pe);
        for (int pe = 0; pe < n; pe++) {
            while (shmem_signal_fetch(&sig[pe]) < (uint64_t)(2 * round))
                ;
            SHT_CHECK(data[pe] == 1000L * round + pe, "round %d: PE %d's data is %ld", round, pe, data[pe]);
        }
        sht_barrier();
    }
    shmem_free(data);
    shmem_free(sig);
    shmem_free(counter);
    return sht_finish("self_poll");
}
