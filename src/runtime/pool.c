/* The MPI_Alloc_mem pool (see pool.h): chunks are memfd files mapped shared;
 * spans are handed out first-fit and coalesced on free.  Chunk memory is
 * sparse: pages exist once touched.  Guarded by remora_ctx.lock. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "runtime/context.h"
#include "runtime/grow.h"
#include "runtime/log.h"
#include "runtime/pool.h"
#include "runtime/segment.h"

#define ALIGN 64
#define CHUNK (64u << 20)
#define HUGE_ALIGN (2u << 20)

static size_t round_up(size_t x, size_t a) { return (x + a - 1) / a * a; }

static struct remora_pool_chunk *new_chunk(struct remora_pool *pool, size_t want)
{
    size_t size = want > CHUNK ? round_up(want, HUGE_ALIGN) : CHUNK;
    if (pool->reserved + size > (size_t)remora_ctx.config.shm_pool_mib << 20)
        return NULL;
    if (!remora_grow((void **)&pool->chunks, &pool->cap_chunks, pool->nchunks + 1, sizeof *pool->chunks))
        return NULL;
    int fd = memfd_create("remora-alloc-mem", MFD_CLOEXEC);
    if (fd < 0)
        return NULL;
    void *addr = MAP_FAILED;
    if (ftruncate(fd, (off_t)size) == 0)
        addr = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (addr == MAP_FAILED) {
        close(fd);
        return NULL;
    }
    struct remora_pool_chunk *c = &pool->chunks[pool->nchunks];
    *c = (struct remora_pool_chunk){addr, size, fd, (uint32_t)pool->nchunks, NULL, 0, 0};
    if (!remora_grow((void **)&c->free, &c->cap_free, 1, sizeof *c->free)) {
        munmap(addr, size);
        close(fd);
        return NULL;
    }
    c->free[0] = (struct remora_pool_span){0, size};
    c->nfree = 1;
    pool->nchunks++;
    pool->reserved += size;
    return c;
}

/* First fit in chunk c; the span's offset or -1. */
static long take(struct remora_pool_chunk *c, size_t size)
{
    for (int i = 0; i < c->nfree; i++) {
        struct remora_pool_span *s = &c->free[i];
        if (s->size < size)
            continue;
        long off = (long)s->off;
        s->off += size;
        s->size -= size;
        if (s->size == 0) {
            memmove(s, s + 1, sizeof *s * (size_t)(c->nfree - i - 1));
            c->nfree--;
        }
        return off;
    }
    return -1;
}

static int live_index(const struct remora_pool *pool, const char *p)
{
    int lo = 0, hi = pool->nlive;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (pool->live[mid].addr < p)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

void *remora_pool_alloc(size_t size)
{
    struct remora_pool *pool = &remora_ctx.pool;
    size = round_up(size ? size : 1, ALIGN);
    pthread_mutex_lock(&remora_ctx.lock);
    char *p = NULL;
    if (remora_grow((void **)&pool->live, &pool->cap_live, pool->nlive + 1, sizeof *pool->live)) {
        for (int i = 0; i < pool->nchunks && !p; i++) {
            long off = take(&pool->chunks[i], size);
            if (off >= 0)
                p = pool->chunks[i].addr + off;
        }
        struct remora_pool_chunk *c;
        if (!p && (c = new_chunk(pool, size)) != NULL)
            p = c->addr + take(c, size);
    }
    if (p) {
        int i = live_index(pool, p);
        memmove(&pool->live[i + 1], &pool->live[i], sizeof *pool->live * (size_t)(pool->nlive - i));
        pool->live[i] = (struct remora_pool_live){p, size};
        pool->nlive++;
    }
    pthread_mutex_unlock(&remora_ctx.lock);
    return p;
}

static struct remora_pool_chunk *chunk_of(const struct remora_pool *pool, const char *p, size_t len)
{
    for (int i = 0; i < pool->nchunks; i++) {
        struct remora_pool_chunk *c = &pool->chunks[i];
        if (p >= c->addr && len <= c->size && (size_t)(p - c->addr) <= c->size - len)
            return c;
    }
    return NULL;
}

/* Return span [off, off+size) to chunk c, merging with its neighbours. */
static void give_back(struct remora_pool_chunk *c, uint64_t off, uint64_t size)
{
    int i = 0;
    while (i < c->nfree && c->free[i].off < off)
        i++;
    int merge_prev = i > 0 && c->free[i - 1].off + c->free[i - 1].size == off;
    int merge_next = i < c->nfree && off + size == c->free[i].off;
    if (merge_prev && merge_next) {
        c->free[i - 1].size += size + c->free[i].size;
        memmove(&c->free[i], &c->free[i + 1], sizeof *c->free * (size_t)(c->nfree - i - 1));
        c->nfree--;
    } else if (merge_prev) {
        c->free[i - 1].size += size;
    } else if (merge_next) {
        c->free[i].off = off;
        c->free[i].size += size;
    } else if (remora_grow((void **)&c->free, &c->cap_free, c->nfree + 1, sizeof *c->free)) {
        memmove(&c->free[i + 1], &c->free[i], sizeof *c->free * (size_t)(c->nfree - i));
        c->free[i] = (struct remora_pool_span){off, size};
        c->nfree++;
    } /* else: the span is lost to the pool until finalize, nothing worse */
}

int remora_pool_free(void *ptr)
{
    struct remora_pool *pool = &remora_ctx.pool;
    char *p = ptr;
    pthread_mutex_lock(&remora_ctx.lock);
    int i = live_index(pool, p), found = i < pool->nlive && pool->live[i].addr == p;
    if (found) {
        struct remora_pool_chunk *c = chunk_of(pool, p, pool->live[i].size);
        give_back(c, (uint64_t)(p - c->addr), pool->live[i].size);
        memmove(&pool->live[i], &pool->live[i + 1], sizeof *pool->live * (size_t)(pool->nlive - i - 1));
        pool->nlive--;
    }
    pthread_mutex_unlock(&remora_ctx.lock);
    return found;
}

int remora_pool_find(const void *p, size_t len, struct remora_pool_ref *ref)
{
    pthread_mutex_lock(&remora_ctx.lock);
    const struct remora_pool_chunk *c = chunk_of(&remora_ctx.pool, p, len);
    if (c)
        *ref = (struct remora_pool_ref){c->fd, c->serial, (uint64_t)(uintptr_t)c->addr, c->size};
    pthread_mutex_unlock(&remora_ctx.lock);
    return c != NULL;
}

char *remora_pool_map_peer(pid_t pid, const struct remora_pool_ref *ref)
{
    struct remora_pool *pool = &remora_ctx.pool;
    char *addr = NULL;
    pthread_mutex_lock(&remora_ctx.lock);
    for (int i = 0; i < pool->npeers && !addr; i++)
        if (pool->peers[i].pid == pid && pool->peers[i].serial == ref->serial)
            addr = pool->peers[i].addr;
    if (!addr && remora_grow((void **)&pool->peers, &pool->cap_peers, pool->npeers + 1, sizeof *pool->peers)) {
        void *m = remora_map_peer_fd(pid, ref->fd, ref->chunk_size);
        if (m) {
            addr = m;
            pool->peers[pool->npeers++] = (struct remora_peer_chunk){pid, ref->serial, addr, ref->chunk_size};
        } else {
            remora_log(REMORA_LOG_INFO, "cannot map pool chunk %u of process %d: %s", ref->serial, (int)pid,
                       strerror(errno));
        }
    }
    pthread_mutex_unlock(&remora_ctx.lock);
    return addr;
}

void remora_pool_finalize(void)
{
    struct remora_pool *pool = &remora_ctx.pool;
    for (int i = 0; i < pool->npeers; i++)
        munmap(pool->peers[i].addr, pool->peers[i].size);
    for (int i = 0; i < pool->nchunks; i++) {
        munmap(pool->chunks[i].addr, pool->chunks[i].size);
        close(pool->chunks[i].fd);
        free(pool->chunks[i].free);
    }
    free(pool->chunks);
    free(pool->live);
    free(pool->peers);
    memset(pool, 0, sizeof *pool);
}
