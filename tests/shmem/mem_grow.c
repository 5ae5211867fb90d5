/* The symmetric heap grows beyond its first extent: run with a small
 * SHMEM_SYMMETRIC_SIZE (8M, set by the test's registration), it allocates
 * 3 x 96 MiB; every PE writes, puts, gets and does atomics at the far end of
 * each block at its right neighbour.  Then impossible requests (1 PiB by
 * malloc, calloc, align and realloc) return NULL with a message naming the
 * routine (captured from stderr and checked), and the heap still works. */
#include <string.h>
#include <unistd.h>

#include "shtest.h"

#define MiB ((size_t)1 << 20)
#define BLOCK (96 * MiB)
#define NBLOCKS 3
#define TAIL (1 * MiB)
#define PiB ((size_t)1 << 50)

static long value(int pe, int block, size_t i) { return (long)pe << 48 | (long)block << 40 | (long)i; }

static void far_ends(long *blocks[NBLOCKS])
{
    int me = shmem_my_pe(), npes = shmem_n_pes(), right = (me + 1) % npes, left = (me + npes - 1) % npes;
    size_t n = BLOCK / sizeof(long), tail = TAIL / sizeof(long);
    static long buf[TAIL / sizeof(long)];
    for (int b = 0; b < NBLOCKS; b++) {
        long *x = blocks[b];
        for (size_t i = 0; i < tail; i++) /* the last MiB: mine, for the neighbour to get */
            x[n - tail + i] = value(me, b, i);
        x[0] = 0;
        sht_barrier();
        shmem_long_p(&x[n - tail - 1], value(me, b, 1), right); /* just before the last MiB */
        shmem_long_atomic_add(&x[0], me + 1, right);            /* the first word of the block */
        shmem_long_get(buf, &x[n - tail], tail, right);
        size_t bad = 0;
        for (size_t i = 0; i < tail; i++)
            bad += buf[i] != value(right, b, i);
        SHT_CHECK(bad == 0, "block %d: %zu of the last MiB's words got from PE %d are wrong", b, bad, right);
        long last = shmem_long_atomic_fetch_add(&x[n - 1], 0, right);
        SHT_CHECK(last == value(right, b, tail - 1), "block %d: the last word at PE %d is %#lx", b, right, last);
        sht_barrier();
        SHT_CHECK(x[n - tail - 1] == value(left, b, 1), "block %d: the put from PE %d: %#lx", b, left, x[n - tail - 1]);
        SHT_CHECK(x[0] == left + 1, "block %d: the atomic from PE %d: %ld", b, left, x[0]);
    }
}

/* Runs fn with stderr going to a file; returns what was written there. */
static char *captured;
static void *capture(void *(*fn)(void *), void *arg, void **result)
{
    char path[] = "/tmp/remora-mem-grow-XXXXXX";
    int fd = mkstemp(path), saved = dup(2);
    unlink(path);
    fflush(stderr);
    dup2(fd, 2);
    *result = fn(arg);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    off_t len = lseek(fd, 0, SEEK_END);
    free(captured);
    captured = calloc(1, (size_t)len + 1);
    if (len < 0 || pread(fd, captured, (size_t)len, 0) != len)
        captured[0] = '\0';
    close(fd);
    return *result;
}

static void *huge_malloc(void *arg) { return (void)arg, shmem_malloc(PiB); }
static void *huge_calloc(void *arg) { return (void)arg, shmem_calloc(PiB / 8, 8); }
static void *huge_align(void *arg) { return (void)arg, shmem_align(4096, PiB); }
static void *huge_realloc(void *arg) { return shmem_realloc(arg, PiB); }

static void impossible(void)
{
    static const struct {
        const char *routine;
        void *(*fn)(void *);
    } calls[] = {{"shmem_malloc", huge_malloc}, {"shmem_calloc", huge_calloc}, {"shmem_align", huge_align},
                 {"shmem_realloc", huge_realloc}};
    long *keep = shmem_malloc(64 * sizeof(long));
    for (int i = 0; keep && i < 64; i++)
        keep[i] = i;
    for (size_t c = 0; c < sizeof calls / sizeof calls[0]; c++) {
        void *r;
        capture(calls[c].fn, keep, &r);
        SHT_CHECK(r == NULL, "%s(1 PiB) returned %p", calls[c].routine, r);
        SHT_CHECK(strstr(captured, calls[c].routine) != NULL, "%s(1 PiB) said nothing naming it (stderr: \"%s\")",
                  calls[c].routine, captured);
    }
    for (int i = 0; keep && i < 64; i++) /* realloc that failed left the block as it was */
        SHT_CHECK(keep[i] == i, "the block a failed shmem_realloc was given changed at %d", i);
    shmem_free(keep);
    /* the heap still works */
    int me = shmem_my_pe(), npes = shmem_n_pes();
    long *after = shmem_malloc((size_t)npes * sizeof(long));
    SHT_CHECK(after != NULL, "shmem_malloc after the impossible requests returned NULL");
    if (!after)
        return;
    for (int pe = 0; pe < npes; pe++)
        shmem_long_p(&after[me], me, pe);
    sht_barrier();
    for (int pe = 0; pe < npes; pe++)
        SHT_CHECK(after[pe] == pe, "after the impossible requests: PE %d's word is %ld", pe, after[pe]);
    sht_barrier();
    shmem_free(after);
}

int main(void)
{
    shmem_init();
    const char *size = getenv("SHMEM_SYMMETRIC_SIZE");
    SHT_CHECK(size && strcmp(size, "8M") == 0, "run with SHMEM_SYMMETRIC_SIZE=8M (it is %s)", size ? size : "unset");
    long *blocks[NBLOCKS];
    int ok = 1;
    for (int b = 0; b < NBLOCKS; b++) {
        blocks[b] = shmem_malloc(BLOCK);
        SHT_CHECK(blocks[b] != NULL, "shmem_malloc(96 MiB) number %d returned NULL", b + 1);
        ok &= blocks[b] != NULL;
    }
    if (ok)
        far_ends(blocks);
    for (int b = NBLOCKS - 1; b >= 0; b--)
        shmem_free(blocks[b]);
    impossible();
    free(captured);
    return sht_finish("mem_grow");
}
