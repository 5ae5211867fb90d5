/* What the shared-memory collectives (src/shmem/coll_shm.c) add to the
 * collectives' tests: reductions and scans larger than a slot's area (in
 * several parts, each its own wait), broadcasts and fcollects of a megabyte,
 * 100 teams made and destroyed one after the other (a slot taken back and
 * given to the next team, with its flags cleared: one PE comes late to each,
 * so that a flag left over would let the others read too early), and more teams alive at
 * once than there are slots (the ones without a slot use the host MPI's
 * collectives), all used in an interleaved order.  Across simulated nodes
 * the world's collectives use the host MPI and the node's teams the slots;
 * every element is checked. */
#include <string.h>
#include <unistd.h>

#include "shtest.h"

#define BIG 20000         /* elements: several parts of an 8 KiB area at any team size */
#define BYTES (1 << 20)
#define ALIVE 40          /* teams alive at once: more than the 32 slots */
#define ROUNDS 100

static long lvalue(int pe, int j) { return (long)pe * 1000003 + j * 7 - 5; }

static void big_reductions(int me, int n)
{
    long *src = shmem_malloc(BIG * sizeof *src), *dst = shmem_malloc(BIG * sizeof *dst);
    double *dsrc = shmem_malloc(BIG * sizeof *dsrc), *ddst = shmem_malloc(BIG * sizeof *ddst);
    for (int j = 0; j < BIG; j++)
        src[j] = lvalue(me, j), dsrc[j] = (double)lvalue(me, j) / 3;
    SHT_CHECK(shmem_long_sum_reduce(SHMEM_TEAM_WORLD, dst, src, BIG) == 0, "long sum_reduce failed");
    for (int j = 0; j < BIG; j++) {
        long want = 0;
        for (int p = 0; p < n; p++)
            want += lvalue(p, j);
        SHT_CHECK(dst[j] == want, "long sum_reduce: element %d is %ld, not %ld", j, dst[j], want);
    }
    SHT_CHECK(shmem_double_max_reduce(SHMEM_TEAM_WORLD, ddst, dsrc, BIG) == 0, "double max_reduce failed");
    for (int j = 0; j < BIG; j++)
        SHT_CHECK(ddst[j] == (double)lvalue(n - 1, j) / 3, "double max_reduce: element %d is %g", j, ddst[j]);
    /* in place, inclusive and exclusive */
    for (int ex = 0; ex < 2; ex++) {
        for (int j = 0; j < BIG; j++)
            dst[j] = lvalue(me, j);
        SHT_CHECK((ex ? shmem_long_sum_exscan(SHMEM_TEAM_WORLD, dst, dst, BIG)
                      : shmem_long_sum_inscan(SHMEM_TEAM_WORLD, dst, dst, BIG)) == 0, "scan failed");
        for (int j = 0; j < BIG; j++) {
            long want = 0;
            for (int p = 0; p < me + !ex; p++)
                want += lvalue(p, j);
            SHT_CHECK(dst[j] == want, "%s: element %d is %ld, not %ld", ex ? "exscan" : "inscan", j, dst[j], want);
        }
    }
    shmem_free(src), shmem_free(dst), shmem_free(dsrc), shmem_free(ddst);
}

static void big_moves(int me, int n)
{
    unsigned char *src = shmem_malloc(BYTES), *dst = shmem_malloc((size_t)n * BYTES + 1);
    for (int root = 0; root < n; root += n > 1 ? n - 1 : 1) {
        for (int j = 0; j < BYTES; j++)
            src[j] = (unsigned char)(me * 31 + j), dst[j] = 0;
        SHT_CHECK(shmem_broadcastmem(SHMEM_TEAM_WORLD, dst, src, BYTES, root) == 0, "broadcastmem failed");
        for (int j = 0; j < BYTES; j++)
            if (dst[j] != (unsigned char)(root * 31 + j)) {
                SHT_CHECK(0, "broadcastmem from %d: byte %d is %d", root, j, dst[j]);
                break;
            }
    }
    memset(dst, 0, (size_t)n * BYTES + 1);
    SHT_CHECK(shmem_fcollectmem(SHMEM_TEAM_WORLD, dst, src, BYTES) == 0, "fcollectmem failed");
    for (size_t k = 0; k < (size_t)n * BYTES; k++)
        if (dst[k] != (unsigned char)(k / BYTES * 31 + k % BYTES)) {
            SHT_CHECK(0, "fcollectmem: byte %zu is %d", k, dst[k]);
            break;
        }
    SHT_CHECK(dst[(size_t)n * BYTES] == 0, "fcollectmem wrote past its result");
    shmem_free(src), shmem_free(dst);
}

/* A sum over the team of each member's world number plus `salt`, and a sync. */
static void use(shmem_team_t t, long *src, long *dst, long salt, const char *what, int k)
{
    int n = shmem_team_n_pes(t);
    src[0] = shmem_my_pe() + salt;
    SHT_CHECK(shmem_long_sum_reduce(t, dst, src, 1) == 0, "%s %d: sum_reduce failed", what, k);
    long want = (long)n * salt;
    for (int i = 0; i < n; i++)
        want += shmem_team_translate_pe(t, i, SHMEM_TEAM_WORLD);
    SHT_CHECK(dst[0] == want, "%s %d: the sum is %ld, not %ld", what, k, dst[0], want);
    SHT_CHECK(shmem_team_sync(t) == 0, "%s %d: team_sync failed", what, k);
}

static void teams(int n)
{
    long *src = shmem_malloc(sizeof *src), *dst = shmem_malloc(sizeof *dst);
    /* made and destroyed one after the other, reversed every other time */
    for (int k = 0; k < ROUNDS; k++) {
        shmem_team_t t;
        int rev = k % 2;
        SHT_CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, rev ? n - 1 : 0, rev ? -1 : 1, n, NULL, 0, &t) == 0,
                  "split %d failed", k);
        if (t == SHMEM_TEAM_INVALID)
            continue;
        if (shmem_team_my_pe(t) == k % n) /* late: a stale flag would let the others read the area too early */
            usleep(2000);
        use(t, src, dst, k, "team made and destroyed", k);
        use(SHMEM_TEAM_SHARED, src, dst, k, "SHARED between them", k);
        shmem_team_destroy(t);
    }
    /* more alive than slots, used in turn from the last made */
    shmem_team_t alive[ALIVE];
    for (int k = 0; k < ALIVE; k++)
        SHT_CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, n, NULL, 0, &alive[k]) == 0, "split %d failed", k);
    for (int round = 0; round < 3; round++)
        for (int k = ALIVE - 1; k >= 0; k--)
            if (alive[k] != SHMEM_TEAM_INVALID)
                use(alive[k], src, dst, round * ALIVE + k, "team alive", k);
    for (int k = 0; k < ALIVE; k++)
        shmem_team_destroy(alive[k]);
    shmem_free(src), shmem_free(dst);
}

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    big_reductions(me, n);
    big_moves(me, n);
    teams(n);
    return sht_finish("coll_slots");
}
