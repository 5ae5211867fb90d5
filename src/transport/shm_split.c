/* The shm transport for memory of a peer on the node that is mapped here in
 * part: the pages its owner moved into shared memory (runtime/shared_pages.h)
 * with load/store, the partial pages at its ends with CMA.  No atomics: CMA
 * has none, and an atomic must not depend on where its word lies.  The key
 * holds this process's mapping of the pages and drops it on release. */
#include <stdlib.h>
#include <sys/mman.h>

#include "runtime/log.h"
#include "runtime/segment.h"
#include "transport/mapped.h"
#include "transport/shm.h"

struct split_key {
    char *map;           /* the owner's pages [lo, hi), mapped here */
    uintptr_t lo, hi;    /* their addresses in the owner            */
    pid_t pid;
};

static const struct split_key *key_of(const struct remora_rmem *m) { return m->key; }

/* A byte range of the owner's memory: the part before the pages, in them and after them. */
struct parts {
    uintptr_t at[4]; /* part k is [at[k], at[k + 1]) */
};

static uintptr_t clamp(uintptr_t x, uintptr_t lo, uintptr_t hi) { return x < lo ? lo : x > hi ? hi : x; }

static struct parts parts_of(const struct split_key *k, uintptr_t a, size_t len)
{
    uintptr_t end = a + len, lo = clamp(k->lo, a, end);
    return (struct parts){{a, lo, clamp(k->hi, lo, end), end}};
}

static remora_status_t split_vec(const struct remora_rmem *m, const struct remora_iov *v, size_t n, int put)
{
    const struct split_key *k = key_of(m);
    for (size_t i = 0; i < n; i++) {
        uintptr_t a = m->base + v[i].off;
        struct parts p = parts_of(k, a, v[i].len);
        for (int part = 0; part < 3; part++) {
            size_t len = p.at[part + 1] - p.at[part];
            char *local = (char *)v[i].local + (p.at[part] - a);
            if (len == 0)
                continue;
            if (part == 1) {
                char *mine = k->map + (p.at[1] - k->lo);
                if (put)
                    remora_mapped_put(mine, local, len);
                else
                    remora_mapped_copy(local, mine, len);
                continue;
            }
            struct iovec l = {local, len}, r = {(void *)p.at[part], len};
            remora_status_t st = put ? remora_cma_writev(k->pid, &l, 1, &r, 1) : remora_cma_readv(k->pid, &l, 1, &r, 1);
            if (!remora_ok(st))
                return st;
        }
    }
    return REMORA_OK;
}

static remora_status_t split_putv(const struct remora_rmem *m, const struct remora_iov *v, size_t n) { return split_vec(m, v, n, 1); }
static remora_status_t split_getv(const struct remora_rmem *m, const struct remora_iov *v, size_t n) { return split_vec(m, v, n, 0); }

static remora_status_t split_read(const struct remora_rmem *m, uint64_t off, void *dst, size_t len)
{
    return remora_get(m, off, dst, len);
}

/* Stores to the mapped part are complete once ordered; CMA's when it returns. */
static remora_status_t split_flush(int proc)
{
    (void)proc;
    remora_mapped_fence();
    return REMORA_OK;
}

static void split_release(struct remora_rmem *m)
{
    struct split_key *k = m->key;
    munmap(k->map, k->hi - k->lo);
    free(k);
}

/* Mapped from byte 0 on when the owner's memory begins with the pages. */
static char *split_mapped_prefix(const struct remora_rmem *m, uint64_t *len)
{
    const struct split_key *k = key_of(m);
    if (m->base != k->lo)
        return NULL;
    if (*len > k->hi - k->lo)
        *len = k->hi - k->lo;
    return k->map;
}

static const struct remora_transport remora_shm_split = {
    .name = "shm-split",
    .mapped = 0,
    .amo_sizes = 0,
    .amo_native = 0,
    .putv = split_putv,
    .getv = split_getv,
    .amo = remora_shm_no_amo, /* the ends are CMA's */
    .read = split_read,
    .flush = split_flush,
    .release = split_release,
    .mapped_prefix = split_mapped_prefix,
};

int remora_shm_split_unpack(int proc, pid_t pid, uint64_t addr, uint64_t len, const struct remora_pool_ref *pages,
                            struct remora_rmem *out)
{
    char *map = remora_map_peer_fd(pid, pages->fd, pages->chunk_size);
    if (!map) {
        remora_log(REMORA_LOG_INFO, "cannot map window pages of process %d: reached by CMA", (int)pid);
        return 0;
    }
    uint64_t lo = pages->chunk_addr, hi = lo + pages->chunk_size;
    struct split_key *k = NULL;
    if (lo <= addr && addr + len <= hi) { /* all of it */
        if (remora_shm_mapped_owning(proc, map + (addr - lo), map, pages->chunk_size, out))
            return 1;
    } else if ((k = malloc(sizeof *k))) {
        *k = (struct split_key){map, lo, hi, pid};
        *out = (struct remora_rmem){.tp = &remora_shm_split, .base = addr, .key = k, .proc = proc};
        return 1;
    }
    munmap(map, pages->chunk_size); /* out of memory */
    return 0;
}
