/* Memory management and accessibility:
 *   - shmem_malloc, calloc, align and malloc_with_hints of size 0 return
 *     NULL; what they return is aligned (align: to what was asked) and
 *     reachable from every PE;
 *   - calloc returns zeros even where freed memory was written before;
 *   - realloc keeps the contents when it grows (moving past a block that
 *     follows) and when it shrinks; realloc(NULL, n) allocates, realloc(p, 0)
 *     frees;
 *   - shmem_ptr: non-NULL for every PE on this node (by the hostname: each
 *     simulated node has its own) and a store through it is seen by that PE;
 *     NULL for a PE on another node; this PE's own address for its own
 *     static data; shmem_team_ptr on SHMEM_TEAM_WORLD agrees;
 *   - shmem_addr_accessible: 1 for heap and static data at every PE, 0 for
 *     the stack, private memory and a PE that does not exist. */
#include <string.h>
#include <unistd.h>

#include "shtest.h"

#define HOST 256

static long static_word;

/* Every PE writes its number into its slot of `slots` at every PE (each
 * npes longs), then checks that every slot is there. */
static void reach_all(long *slots, const char *what)
{
    int me = shmem_my_pe(), npes = shmem_n_pes();
    for (int pe = 0; pe < npes; pe++)
        shmem_long_p(&slots[me], me + 1000, pe);
    sht_barrier();
    for (int pe = 0; pe < npes; pe++)
        SHT_CHECK(slots[pe] == pe + 1000, "%s: PE %d's slot is %ld", what, pe, slots[pe]);
    sht_barrier();
}

static void zero_sizes(void)
{
    SHT_CHECK(shmem_malloc(0) == NULL, "shmem_malloc(0) is not NULL");
    SHT_CHECK(shmem_calloc(0, 8) == NULL, "shmem_calloc(0, 8) is not NULL");
    SHT_CHECK(shmem_calloc(8, 0) == NULL, "shmem_calloc(8, 0) is not NULL");
    SHT_CHECK(shmem_align(64, 0) == NULL, "shmem_align(64, 0) is not NULL");
    SHT_CHECK(shmem_malloc_with_hints(0, 0) == NULL, "shmem_malloc_with_hints(0, 0) is not NULL");
}

static void alignment(void)
{
    int npes = shmem_n_pes();
    static const size_t aligns[] = {8, 64, 4096, 65536, 2 << 20};
    void *p = shmem_malloc(1000);
    SHT_CHECK(p && (uintptr_t)p % _Alignof(max_align_t) == 0, "shmem_malloc: %p", p);
    for (size_t i = 0; i < sizeof aligns / sizeof aligns[0]; i++) {
        long *q = shmem_align(aligns[i], (size_t)npes * sizeof(long));
        SHT_CHECK(q && (uintptr_t)q % aligns[i] == 0, "shmem_align(%zu): %p", aligns[i], (void *)q);
        if (q)
            reach_all(q, "shmem_align");
        shmem_free(q);
    }
    long hints[] = {0, SHMEM_MALLOC_ATOMICS_REMOTE, SHMEM_MALLOC_SIGNAL_REMOTE,
                    SHMEM_MALLOC_ATOMICS_REMOTE | SHMEM_MALLOC_SIGNAL_REMOTE};
    for (size_t i = 0; i < sizeof hints / sizeof hints[0]; i++) {
        long *q = shmem_malloc_with_hints((size_t)npes * sizeof(long), hints[i]);
        SHT_CHECK(q != NULL, "shmem_malloc_with_hints(%ld) returned NULL", hints[i]);
        if (q) {
            reach_all(q, "shmem_malloc_with_hints");
            for (int pe = 0; pe < npes; pe++) /* atomics on it, as the hint says */
                shmem_long_atomic_add(&q[0], 1, pe);
            sht_barrier();
            SHT_CHECK(q[0] == 1000 + npes, "atomics on shmem_malloc_with_hints memory: %ld", q[0]);
        }
        shmem_free(q);
    }
    shmem_free(p);
}

static void calloc_zeroes(void)
{
    int me = shmem_my_pe(), npes = shmem_n_pes(), right = (me + 1) % npes;
    size_t n = 4096;
    unsigned char *dirty = shmem_malloc(n);
    if (dirty)
        memset(dirty, 0xAB, n);
    sht_barrier();
    shmem_free(dirty);
    unsigned char *z = shmem_calloc(n / 8, 8);
    SHT_CHECK(z != NULL, "shmem_calloc returned NULL");
    if (!z)
        return;
    size_t bad = 0;
    for (size_t i = 0; i < n; i++)
        bad += z[i] != 0;
    SHT_CHECK(bad == 0, "shmem_calloc after reuse: %zu of %zu bytes not zero", bad, n);
    static unsigned char there[4096];
    shmem_getmem(there, z, n, right);
    bad = 0;
    for (size_t i = 0; i < n; i++)
        bad += there[i] != 0;
    SHT_CHECK(bad == 0, "shmem_calloc at PE %d: %zu of %zu bytes not zero", right, bad, n);
    sht_barrier();
    shmem_free(z);
}

static long pattern(int pe, size_t i) { return (long)pe * 1000003 + (long)i; }

static void check_prefix(const long *p, size_t n, int pe, const char *what)
{
    size_t bad = 0;
    for (size_t i = 0; i < n; i++)
        bad += p[i] != pattern(pe, i);
    SHT_CHECK(bad == 0, "%s: %zu of %zu elements lost", what, bad, n);
}

static void reallocs(void)
{
    int me = shmem_my_pe(), npes = shmem_n_pes(), right = (me + 1) % npes;
    size_t small = 100, big = 100000;
    long *p = shmem_realloc(NULL, small * sizeof(long)); /* = shmem_malloc */
    SHT_CHECK(p != NULL, "shmem_realloc(NULL, n) returned NULL");
    if (!p)
        return;
    for (size_t i = 0; i < small; i++)
        p[i] = pattern(me, i);
    void *after = shmem_malloc(64); /* the block cannot grow where it is */
    long *q = shmem_realloc(p, big * sizeof(long));
    SHT_CHECK(q != NULL, "shmem_realloc to %zu longs returned NULL", big);
    if (!q)
        return;
    check_prefix(q, small, me, "shmem_realloc (grown)");
    /* the grown block is symmetric: the far end is reachable */
    shmem_long_p(&q[big - 1], pattern(me, big - 1), right);
    sht_barrier();
    SHT_CHECK(q[big - 1] == pattern((me + npes - 1) % npes, big - 1), "shmem_realloc: the far end holds %ld",
              q[big - 1]);
    long *r = shmem_realloc(q, 50 * sizeof(long));
    SHT_CHECK(r != NULL, "shmem_realloc (shrink) returned NULL");
    if (r)
        check_prefix(r, 50, me, "shmem_realloc (shrunk)");
    SHT_CHECK(shmem_realloc(r, 0) == NULL, "shmem_realloc(p, 0) is not NULL");
    shmem_free(after);
}

/* The PEs whose hostname is this PE's: on this node. */
static int *same_node(void)
{
    int npes = shmem_n_pes();
    char mine[HOST] = {0}, *all = malloc((size_t)npes * HOST);
    int *same = calloc((size_t)npes, sizeof *same);
    gethostname(mine, HOST - 1);
    MPI_Allgather(mine, HOST, MPI_CHAR, all, HOST, MPI_CHAR, MPI_COMM_WORLD);
    for (int pe = 0; pe < npes; pe++)
        same[pe] = strcmp(mine, all + (size_t)pe * HOST) == 0;
    free(all);
    return same;
}

static void pointers(void)
{
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int *same = same_node();
    long *slots = shmem_calloc((size_t)npes, sizeof(long));
    if (!slots)
        return;
    for (int pe = 0; pe < npes; pe++) {
        long *p = shmem_ptr(slots, pe);
        SHT_CHECK(p == shmem_team_ptr(SHMEM_TEAM_WORLD, slots, pe), "shmem_team_ptr(WORLD) differs for PE %d", pe);
        if (same[pe]) {
            SHT_CHECK(p != NULL, "shmem_ptr is NULL for PE %d on this node", pe);
            if (p)
                p[me] = me + 1; /* a store through the pointer */
        } else {
            SHT_CHECK(p == NULL, "shmem_ptr is %p for PE %d on another node", (void *)p, pe);
        }
    }
    SHT_CHECK(shmem_ptr(slots, me) == slots, "shmem_ptr to this PE is not the address itself");
    SHT_CHECK(shmem_ptr(&static_word, me) == &static_word, "shmem_ptr to this PE's static data");
    sht_barrier();
    for (int pe = 0; pe < npes; pe++)
        SHT_CHECK(slots[pe] == (same[pe] ? pe + 1 : 0), "a store through shmem_ptr by PE %d: %ld", pe, slots[pe]);
    sht_barrier();
    shmem_free(slots);
    free(same);
}

static void accessible(void)
{
    int npes = shmem_n_pes(), on_stack = 0;
    long *heap = shmem_malloc(64), *private = malloc(64);
    for (int pe = 0; pe < npes; pe++) {
        SHT_CHECK(shmem_pe_accessible(pe) == 1, "shmem_pe_accessible(%d)", pe);
        SHT_CHECK(shmem_addr_accessible(heap, pe) == 1, "heap not accessible at PE %d", pe);
        SHT_CHECK(shmem_addr_accessible(&static_word, pe) == 1, "static data not accessible at PE %d", pe);
        SHT_CHECK(shmem_addr_accessible(&on_stack, pe) == 0, "the stack accessible at PE %d", pe);
        SHT_CHECK(shmem_addr_accessible(private, pe) == 0, "private memory accessible at PE %d", pe);
    }
    SHT_CHECK(shmem_pe_accessible(npes) == 0 && shmem_pe_accessible(-1) == 0, "shmem_pe_accessible out of range");
    SHT_CHECK(shmem_addr_accessible(heap, npes) == 0, "shmem_addr_accessible on PE %d", npes);
    free(private);
    shmem_free(heap);
}

int main(void)
{
    shmem_init();
    zero_sizes();
    alignment();
    calloc_zeroes();
    reallocs();
    pointers();
    accessible();
    return sht_finish("mem");
}
