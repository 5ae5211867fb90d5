/* Locks: every PE increments a counter at PE 0 that is not atomic (get, +1,
 * put, quiet) many times under shmem_set_lock / shmem_clear_lock, with the
 * lock in static data and on the heap, and taken by spinning on
 * shmem_test_lock; the counter must end exact.  Inside the section each PE
 * also swaps its number into an owner word at PE 0 and expects it empty:
 * two holders at once show there even when the increments happen not to
 * collide.  shmem_test_lock on a held lock must return nonzero. */
#include "shtest.h"

#define ITERS 40

static long static_lock;

enum how { SET_STATIC, SET_HEAP, TEST_HEAP, NHOWS };
static const char *const HOW_NAME[] = {"set_lock (static lock)", "set_lock (heap lock)", "test_lock (heap lock)"};

static void section(long *counter, long *owner, enum how h)
{
    int me = shmem_my_pe();
    long before = shmem_long_atomic_swap(owner, me, 0);
    SHT_CHECK(before == -1, "%s: PE %ld held the lock too", HOW_NAME[h], before);
    long v = shmem_long_g(counter, 0);
    shmem_long_p(counter, v + 1, 0);
    shmem_quiet();
    long after = shmem_long_atomic_swap(owner, -1, 0);
    SHT_CHECK(after == me, "%s: the owner word changed to %ld while this PE held the lock", HOW_NAME[h], after);
}

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    long *w = shmem_calloc(4, sizeof(long)); /* counter, owner, lock */
    SHT_CHECK(w != NULL, "shmem_calloc returned NULL");
    for (int h = 0; w && h < NHOWS; h++) {
        long *counter = &w[0], *owner = &w[1], *lock = h == SET_STATIC ? &static_lock : &w[2];
        *counter = 0;
        *owner = -1;
        sht_barrier();
        for (int i = 0; i < ITERS; i++) {
            if (h == TEST_HEAP)
                while (shmem_test_lock(lock) != 0)
                    ;
            else
                shmem_set_lock(lock);
            section(counter, owner, h);
            shmem_clear_lock(lock);
        }
        sht_barrier();
        long total = shmem_long_g(counter, 0);
        SHT_CHECK(total == (long)ITERS * npes, "%s: the counter is %ld, expected %ld", HOW_NAME[h], total,
                  (long)ITERS * npes);
        sht_barrier();
    }
    /* held by PE 0: test_lock fails everywhere, then succeeds once PE 0 clears it */
    if (w) {
        if (me == 0)
            shmem_set_lock(&static_lock);
        sht_barrier();
        if (me != 0)
            SHT_CHECK(shmem_test_lock(&static_lock) != 0, "test_lock took a lock PE 0 holds");
        sht_barrier();
        if (me == 0)
            shmem_clear_lock(&static_lock);
        sht_barrier();
        if (me == npes - 1) {
            SHT_CHECK(shmem_test_lock(&static_lock) == 0, "test_lock failed on a free lock");
            shmem_clear_lock(&static_lock);
        }
    }
    sht_barrier();
    shmem_free(w);
    return sht_finish("lock");
}
