/* Team data movement for every standard RMA type and the *mem variants:
 * broadcast (from the first and the last PE; the root's dest too), collect
 * (a different count on each PE), fcollect, alltoall, alltoalls (strides 2
 * and 3), on every team shape of coll_util.h.  Every element is checked
 * against what the member PEs put in, and the elements past the result (and
 * the gaps of alltoalls) must be left alone.  The typed and the C11 generic
 * routines alternate. */
#include <string.h>

#include "coll_util.h"

#define NB 13
#define SST 3
#define DST 2
static void *src_buf, *dst_buf;

/* PE w's element j (broadcast, collect, fcollect); its element j for team PE b (alltoall) */
#define VD(T, w, j) ((T)(((w) * 10 + (j) + 1) % 100))
#define VA(T, w, b, j) ((T)(((w) * 7 + (b) * 3 + (j)) % 100))
#define UNTOUCHED(T) ((T)-1)
/* team PE i's count in collect */
static int ccount(int i) { return i % 3 + 1; }

#define DEFINE_MOVES(N, T)                                                                                         \
    static void broadcast_##N(const struct shape *s, int n)                                                        \
    {                                                                                                              \
        T *src = src_buf, *dst = dst_buf;                                                                          \
        int me = shmem_my_pe();                                                                                    \
        for (int r = 0; r < (n > 1 ? 2 : 1); r++) {                                                                \
            int root = r ? n - 1 : 0;                                                                              \
            for (int j = 0; j <= NB; j++)                                                                          \
                src[j] = VD(T, me, j), dst[j] = UNTOUCHED(T);                                                      \
            int rc = r ? shmem_broadcast(s->team, dst, src, NB, root) : shmem_##N##_broadcast(s->team, dst, src, NB, root); \
            EXPECT(rc == 0, "%s: shmem_" #N "_broadcast from %d failed", s->name, root);                           \
            for (int j = 0; j <= NB; j++)                                                                          \
                EXPECT(dst[j] == (j < NB ? VD(T, wpe(s->team, root), j) : UNTOUCHED(T)),                           \
                       "%s: shmem_" #N "_broadcast from %d: element %d wrong", s->name, root, j);                  \
        }                                                                                                          \
    }                                                                                                              \
    static void collect_##N(const struct shape *s, int n, int t, int alt)                                          \
    {                                                                                                              \
        T *src = src_buf, *dst = dst_buf;                                                                          \
        int me = shmem_my_pe(), total = 0;                                                                         \
        for (int j = 0; j < ccount(t); j++)                                                                        \
            src[j] = VD(T, me, j);                                                                                 \
        for (int j = 0; j <= 3 * n; j++)                                                                           \
            dst[j] = UNTOUCHED(T);                                                                                 \
        int rc = alt ? shmem_collect(s->team, dst, src, (size_t)ccount(t))                                         \
                     : shmem_##N##_collect(s->team, dst, src, (size_t)ccount(t));                                  \
        EXPECT(rc == 0, "%s: shmem_" #N "_collect failed", s->name);                                               \
        for (int i = 0; i < n; total += ccount(i++))                                                               \
            for (int j = 0; j < ccount(i); j++)                                                                    \
                EXPECT(dst[total + j] == VD(T, wpe(s->team, i), j), "%s: shmem_" #N "_collect: PE %d's element %d " \
                       "wrong", s->name, i, j);                                                                    \
        EXPECT(dst[total] == UNTOUCHED(T), "%s: shmem_" #N "_collect wrote past its result", s->name);             \
    }                                                                                                              \
    static void fcollect_##N(const struct shape *s, int n, int alt)                                                \
    {                                                                                                              \
        T *src = src_buf, *dst = dst_buf;                                                                          \
        int me = shmem_my_pe();                                                                                    \
        for (int j = 0; j < NB; j++)                                                                               \
            src[j] = VD(T, me, j);                                                                                 \
        for (int j = 0; j <= n * NB; j++)                                                                          \
            dst[j] = UNTOUCHED(T);                                                                                 \
        int rc = alt ? shmem_fcollect(s->team, dst, src, NB) : shmem_##N##_fcollect(s->team, dst, src, NB);        \
        EXPECT(rc == 0, "%s: shmem_" #N "_fcollect failed", s->name);                                              \
        for (int i = 0; i <= n; i++)                                                                               \
            for (int j = 0; j < (i < n ? NB : 1); j++)                                                             \
                EXPECT(dst[i * NB + j] == (i < n ? VD(T, wpe(s->team, i), j) : UNTOUCHED(T)),                      \
                       "%s: shmem_" #N "_fcollect: element %d of PE %d wrong", s->name, j, i);                     \
    }                                                                                                              \
    /* stride 1, or DST and SST (alltoalls) */                                                                     \
    static void alltoall_##N(const struct shape *s, int n, int t, int alt, int strided)                           \
    {                                                                                                              \
        T *src = src_buf, *dst = dst_buf;                                                                          \
        int me = shmem_my_pe(), ss = strided ? SST : 1, ds = strided ? DST : 1;                                    \
        for (int j = 0; j < n * NB * ss; j++)                                                                      \
            src[j] = (T)-2;                                                                                        \
        for (int b = 0; b < n; b++)                                                                                \
            for (int j = 0; j < NB; j++)                                                                           \
                src[(b * NB + j) * ss] = VA(T, me, b, j);                                                          \
        for (int j = 0; j <= n * NB * ds; j++)                                                                     \
            dst[j] = UNTOUCHED(T);                                                                                 \
        int rc;                                                                                                    \
        if (strided)                                                                                               \
            rc = alt ? shmem_alltoalls(s->team, dst, src, DST, SST, NB)                                            \
                     : shmem_##N##_alltoalls(s->team, dst, src, DST, SST, NB);                                     \
        else                                                                                                       \
            rc = alt ? shmem_alltoall(s->team, dst, src, NB) : shmem_##N##_alltoall(s->team, dst, src, NB);        \
        EXPECT(rc == 0, "%s: shmem_" #N "_alltoall%s failed", s->name, strided ? "s" : "");                        \
        for (int k = 0; k <= n * NB * ds; k++) {                                                                   \
            int i = k / ds / NB, j = k / ds % NB;                                                                  \
            T want = k % ds || k == n * NB * ds ? UNTOUCHED(T) : VA(T, wpe(s->team, i), t, j);                     \
            EXPECT(dst[k] == want, "%s: shmem_" #N "_alltoall%s: dest element %d wrong", s->name,                  \
                   strided ? "s" : "", k);                                                                         \
        }                                                                                                          \
    }                                                                                                              \
    static void moves_##N(const struct shape *s, int alt)                                                          \
    {                                                                                                              \
        int n = shmem_team_n_pes(s->team), t = shmem_team_my_pe(s->team);                                          \
        broadcast_##N(s, n);                                                                                       \
        collect_##N(s, n, t, alt);                                                                                 \
        fcollect_##N(s, n, alt);                                                                                   \
        alltoall_##N(s, n, t, alt, 0);                                                                             \
        alltoall_##N(s, n, t, !alt, 1);                                                                            \
    }
RMA_TYPES(DEFINE_MOVES)

/* The *mem variants: bytes, on an odd length. */
static void moves_mem(const struct shape *s)
{
    unsigned char *src = src_buf, *dst = dst_buf;
    int me = shmem_my_pe(), n = shmem_team_n_pes(s->team), t = shmem_team_my_pe(s->team);
    for (int j = 0; j < n * NB * SST; j++)
        src[j] = (unsigned char)(me * 16 + j);
    memset(dst, 0xee, (size_t)n * NB * DST + 1);
    EXPECT(shmem_broadcastmem(s->team, dst, src, NB, n - 1) == 0, "%s: shmem_broadcastmem failed", s->name);
    for (int j = 0; j < NB; j++)
        EXPECT(dst[j] == (unsigned char)(wpe(s->team, n - 1) * 16 + j), "%s: shmem_broadcastmem: byte %d", s->name, j);
    EXPECT(dst[NB] == 0xee, "%s: shmem_broadcastmem wrote past its result", s->name);
    EXPECT(shmem_collectmem(s->team, dst, src, (size_t)t + 1) == 0, "%s: shmem_collectmem failed", s->name);
    for (int i = 0, off = 0; i < n; off += ++i)
        for (int j = 0; j <= i; j++)
            EXPECT(dst[off + j] == (unsigned char)(wpe(s->team, i) * 16 + j), "%s: shmem_collectmem: byte %d of %d",
                   s->name, j, i);
    EXPECT(shmem_fcollectmem(s->team, dst, src, NB) == 0, "%s: shmem_fcollectmem failed", s->name);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < NB; j++)
            EXPECT(dst[i * NB + j] == (unsigned char)(wpe(s->team, i) * 16 + j), "%s: shmem_fcollectmem: byte %d of %d",
                   s->name, j, i);
    EXPECT(shmem_alltoallmem(s->team, dst, src, NB) == 0, "%s: shmem_alltoallmem failed", s->name);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < NB; j++)
            EXPECT(dst[i * NB + j] == (unsigned char)(wpe(s->team, i) * 16 + t * NB + j),
                   "%s: shmem_alltoallmem: byte %d from %d", s->name, j, i);
    memset(dst, 0xee, (size_t)n * NB * DST + 1);
    EXPECT(shmem_alltoallsmem(s->team, dst, src, DST, SST, NB) == 0, "%s: shmem_alltoallsmem failed", s->name);
    for (int k = 0; k <= n * NB * DST; k++) {
        int i = k / DST / NB, j = k / DST % NB;
        unsigned char want = k % DST || k == n * NB * DST ? 0xee : (unsigned char)(wpe(s->team, i) * 16 + (t * NB + j) * SST);
        EXPECT(dst[k] == want, "%s: shmem_alltoallsmem: dest byte %d wrong", s->name, k);
    }
}

#define RUN_MOVES(N, T) moves_##N(s, alt);

int main(void)
{
    shmem_init();
    size_t bytes = (size_t)shmem_n_pes() * NB * SST * sizeof(long double) + 64;
    src_buf = shmem_malloc(bytes);
    dst_buf = shmem_malloc(bytes);
    struct shape shapes[MAX_SHAPES];
    int nshapes = make_shapes(shapes);
    for (int i = 0; i < nshapes; i++) {
        const struct shape *s = &shapes[i];
        int alt = i % 2;
        if (s->team == SHMEM_TEAM_INVALID)
            continue;
        RMA_TYPES(RUN_MOVES)
        moves_mem(s);
    }
    /* invalid arguments: a root outside the team, strides below 1 */
    int n = shmem_n_pes();
    long *src = src_buf, *dst = dst_buf;
    EXPECT(shmem_long_broadcast(SHMEM_TEAM_WORLD, dst, src, 1, n) != 0, "a broadcast from PE n succeeded");
    EXPECT(shmem_long_broadcast(SHMEM_TEAM_WORLD, dst, src, 1, -1) != 0, "a broadcast from PE -1 succeeded");
    EXPECT(shmem_long_alltoalls(SHMEM_TEAM_WORLD, dst, src, 0, 1, 1) != 0, "alltoalls with dst 0 succeeded");
    EXPECT(shmem_alltoallsmem(SHMEM_TEAM_WORLD, dst, src, 1, 0, 1) != 0, "alltoallsmem with sst 0 succeeded");
    EXPECT(shmem_long_fcollect(SHMEM_TEAM_INVALID, dst, src, 1) != 0, "fcollect on SHMEM_TEAM_INVALID succeeded");
    EXPECT(shmem_collectmem(SHMEM_TEAM_INVALID, dst, src, 1) != 0, "collectmem on SHMEM_TEAM_INVALID succeeded");
    free_shapes(shapes, nshapes);
    shmem_free(src_buf);
    shmem_free(dst_buf);
    return finish("team data movement");
}
