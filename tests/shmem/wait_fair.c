/* Fairness of the _any forms (OpenSHMEM 1.6, shmem_wait_until_any and
 * shmem_test_any, and their _vector forms): over a series of calls every
 * satisfying index must be returned, not always the lowest one.
 *
 * Each PE's words all hold the condition (the PE sets its own words, and a
 * masked word holds too); for every type of the synchronization table, NW
 * calls of each _any routine must return NW - 1 distinct indices, the
 * masked one never.  Then the loop the spec's fairness is for (serve). */
#include <string.h>

#include "shtest.h"

#define NW 6
#define MASKED 3

#define DEFINE(ID, T)                                                                                          \
    static void fair_##ID(T *w)                                                                                \
    {                                                                                                          \
        int status[NW] = {0};                                                                                  \
        T values[NW];                                                                                          \
        status[MASKED] = 1;                                                                                    \
        for (int form = 0; form < 4; form++) {                                                                 \
            int seen[NW] = {0}, distinct = 0;                                                                  \
            for (size_t i = 0; i < NW; i++)                                                                    \
                w[i] = (T)7, values[i] = (T)7;                                                                 \
            for (size_t k = 0; k < NW; k++) {                                                                  \
                size_t r;                                                                                      \
                switch (form) {                                                                                \
                case 0: r = shmem_##ID##_test_any(w, NW, status, SHMEM_CMP_EQ, (T)7); break;                   \
                case 1: r = shmem_##ID##_wait_until_any(w, NW, status, SHMEM_CMP_EQ, (T)7); break;             \
                case 2: r = shmem_##ID##_test_any_vector(w, NW, status, SHMEM_CMP_EQ, values); break;          \
                default: r = shmem_##ID##_wait_until_any_vector(w, NW, status, SHMEM_CMP_EQ, values); break;   \
                }                                                                                              \
                SHT_CHECK(r < NW && r != MASKED, #ID " form %d returned %zu", form, r);                        \
                if (r < NW && !seen[r]++)                                                                      \
                    distinct++;                                                                                \
            }                                                                                                  \
            SHT_CHECK(distinct == NW - 1, #ID " form %d: %d calls returned %d distinct indices of %d", form,   \
                      NW, distinct, NW - 1);                                                                   \
        }                                                                                                      \
    }
SHT_SYNC_TYPES(DEFINE)

/* A server loop: the left neighbour raises all the words (atomic sets, in
 * flight together), and this PE calls wait_until_any until it has been
 * given every index; a word stays raised once served, so a routine that
 * always returns the lowest satisfying index keeps returning it and the loop
 * never ends (the time limit). */
static void serve(long *w)
{
    int me = shmem_my_pe(), n = shmem_n_pes(), right = (me + 1) % n;
    memset(w, 0, NW * sizeof *w);
    sht_barrier();
    for (int i = 0; i < NW; i++)
        shmem_long_atomic_set(&w[i], 1, right);
    shmem_quiet();
    int served[NW] = {0}, total = 0;
    while (total < NW) {
        size_t r = shmem_long_wait_until_any(w, NW, NULL, SHMEM_CMP_EQ, 1);
        SHT_CHECK(r < NW, "wait_until_any returned %zu", r);
        if (r >= NW)
            break;
        if (!served[r]++)
            total++;
    }
    sht_barrier();
}

int main(void)
{
    shmem_init();
    char *words = shmem_malloc(64 * 16);
    SHT_CHECK(words != NULL, "shmem_malloc returned NULL");
    if (words) {
        size_t t = 0;
#define RUN(ID, T) fair_##ID((T *)(words + 64 * t++));
        SHT_SYNC_TYPES(RUN)
        serve((long *)words);
    }
    sht_barrier();
    shmem_free(words);
    return sht_finish("wait_fair");
}
