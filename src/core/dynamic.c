/* Dynamic windows: attach, detach, and finding a target's region (see dynamic.h). */
#include <stdlib.h>
#include <string.h>

#include "core/dynamic.h"
#include "core/rma.h"
#include "core/spin.h"
#include "core/status.h"
#include "runtime/pool.h"

/* Origin side: a region this process has reached, unpacked once. */
struct known_region {
    struct remora_dyn_region r;
    struct remora_rmem data, amo;      /* amo: a second key when the window spans nodes */
    struct known_region *next;
};

/* Origin side: one target's table as last read (tables not mapped here), and
 * the regions reached at it. */
struct target_cache {
    pthread_mutex_t lock;
    uint64_t epoch;                    /* w->sync_epoch + 1 when last validated (0: never) */
    uint32_t n, cap;
    struct remora_dyn_region *region;
    struct known_region *known;
    uint32_t nknown;
};

/* Owner side: our registrations of attached regions. */
struct own_region {
    uint64_t base;
    struct remora_mem_reg reg;
};

struct remora_dyn_net {
    struct target_cache *cache;        /* by window rank */
    struct own_region *own;
    int nown, cap_own;
};

size_t remora_dyn_table_bytes(uint32_t cap)
{
    size_t b = sizeof(struct remora_dyn_table) + (size_t)cap * sizeof(struct remora_dyn_region);
    return (b + REMORA_CACHELINE - 1) / REMORA_CACHELINE * REMORA_CACHELINE;
}

static struct remora_dyn_table *my_table(const struct remora_win *w)
{
    return (struct remora_dyn_table *)((char *)w->dyn.tables +
                                        remora_dyn_table_bytes(w->dyn.cap) * (size_t)w->node_rank);
}

static struct remora_dyn_net *dyn_state(struct remora_win *w)
{
    pthread_mutex_lock(&w->dyn.lock);
    if (!w->dyn.net) {
        struct remora_dyn_net *d = calloc(1, sizeof *d);
        if (d && !(d->cache = calloc((size_t)w->comm_size, sizeof *d->cache))) {
            free(d);
            d = NULL;
        }
        for (int r = 0; d && r < w->comm_size; r++)
            pthread_mutex_init(&d->cache[r].lock, NULL);
        w->dyn.net = d;
    }
    pthread_mutex_unlock(&w->dyn.lock);
    return w->dyn.net;
}

/* Index of the first region whose base is >= addr (relaxed loads: readers race writers). */
static uint32_t lower_bound(const struct remora_dyn_region *region, uint32_t n, uint64_t addr)
{
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (__atomic_load_n(&region[mid].base, __ATOMIC_RELAXED) < addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Word-wise atomic copies: the table is read while its owner may write it. */
static void copy_region(struct remora_dyn_region *dst, const struct remora_dyn_region *src)
{
    const uint64_t *s = (const uint64_t *)src;
    uint64_t *d = (uint64_t *)dst;
    for (size_t i = 0; i < sizeof *src / sizeof(uint64_t); i++)
        __atomic_store_n(&d[i], __atomic_load_n(&s[i], __ATOMIC_RELAXED), __ATOMIC_RELAXED);
}

/* ---- owner side -------------------------------------------------------------- */

/* The owner changes its table between begin and end (w->dyn.lock held). */
static void change_begin(struct remora_win *w)
{
    pthread_mutex_lock(&w->dyn.lock);
    atomic_fetch_add_explicit(&my_table(w)->generation, 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
}

static void change_end(struct remora_win *w)
{
    atomic_fetch_add_explicit(&my_table(w)->generation, 1, memory_order_release);
    pthread_mutex_unlock(&w->dyn.lock);
}

/* Register the region and put its key into v. */
static int register_region(struct remora_win *w, void *base, size_t size, struct remora_dyn_region *v)
{
    struct remora_dyn_net *d = dyn_state(w);
    if (!d)
        return remora_err(MPI_ERR_NO_MEM, "a dynamic window's region state");
    struct remora_mem_reg reg;
    remora_status_t st = remora_mem_register(base, size, remora_win_user_memory_flags(w), &reg);
    if (!remora_ok(st))
        return remora_status_err(st, "registering the region");
    memcpy(v->key, reg.packed, reg.packed_len);
    v->key_len = (uint32_t)reg.packed_len;
    pthread_mutex_lock(&w->dyn.lock);
    if (d->nown == d->cap_own) {
        int cap = d->cap_own ? 2 * d->cap_own : 16;
        struct own_region *o = realloc(d->own, sizeof *o * (size_t)cap);
        if (!o) {
            pthread_mutex_unlock(&w->dyn.lock);
            remora_mem_deregister(&reg);
            return remora_err(MPI_ERR_NO_MEM, "region registrations");
        }
        d->own = o;
        d->cap_own = cap;
    }
    d->own[d->nown++] = (struct own_region){(uint64_t)(uintptr_t)base, reg};
    pthread_mutex_unlock(&w->dyn.lock);
    return MPI_SUCCESS;
}

static void deregister_region(struct remora_win *w, uint64_t base)
{
    struct remora_dyn_net *d = w->dyn.net;
    for (int i = 0; d && i < d->nown; i++)
        if (d->own[i].base == base) {
            remora_mem_deregister(&d->own[i].reg);
            d->own[i] = d->own[--d->nown];
            return;
        }
}

/* Whether every origin will have atomics on this memory: through the network
 * when the window spans nodes; on the node, only if the peers can map it (our
 * MPI_Alloc_mem pool, when memory fds pass between processes here). */
static uint32_t shared_atomics(const struct remora_win *w, void *base, size_t size)
{
    struct remora_pool_ref ref;
    return w->spans_nodes || w->node_size == 1 || (w->mem.seg.fd_passing && remora_pool_find(base, size, &ref));
}

int remora_win_attach(struct remora_win *w, void *base, MPI_Aint size)
{
    if (w->flavor != MPI_WIN_FLAVOR_DYNAMIC)
        return remora_err(MPI_ERR_RMA_FLAVOR, "MPI_Win_attach needs a window made by MPI_Win_create_dynamic");
    if (size < 0)
        return remora_err(MPI_ERR_SIZE, "negative size %ld", (long)size);
    struct remora_dyn_region v = {.base = (uint64_t)(uintptr_t)base, .size = (uint64_t)size};
    v.atomic = shared_atomics(w, base, (size_t)size);
    int rc = register_region(w, base, (size_t)size, &v);
    if (rc != MPI_SUCCESS)
        return rc;
    struct remora_dyn_table *t = my_table(w);
    change_begin(w);
    uint32_t i = lower_bound(t->region, t->n, v.base);
    if (t->n == t->cap)
        rc = remora_err(MPI_ERR_RMA_ATTACH, "%u regions are attached already (REMORA_DYN_REGIONS)", t->cap);
    else if ((i < t->n && t->region[i].base < v.base + (v.size ? v.size : 1)) ||
             (i > 0 && t->region[i - 1].base + t->region[i - 1].size > v.base))
        rc = remora_err(MPI_ERR_RMA_ATTACH, "the region overlaps one attached already");
    else {
        for (uint32_t k = t->n; k > i; k--)
            copy_region(&t->region[k], &t->region[k - 1]);
        copy_region(&t->region[i], &v);
        __atomic_store_n(&t->n, t->n + 1, __ATOMIC_RELAXED);
    }
    if (rc != MPI_SUCCESS)
        deregister_region(w, v.base);
    change_end(w);
    return rc;
}

int remora_win_detach(struct remora_win *w, const void *base)
{
    if (w->flavor != MPI_WIN_FLAVOR_DYNAMIC)
        return remora_err(MPI_ERR_RMA_FLAVOR, "MPI_Win_detach needs a window made by MPI_Win_create_dynamic");
    struct remora_dyn_table *t = my_table(w);
    uint64_t b = (uint64_t)(uintptr_t)base;
    int rc = MPI_SUCCESS;
    change_begin(w);
    uint32_t i = lower_bound(t->region, t->n, b);
    if (i == t->n || t->region[i].base != b)
        rc = remora_err(MPI_ERR_RMA_ATTACH, "no region is attached at %p", base);
    else {
        for (uint32_t k = i; k + 1 < t->n; k++)
            copy_region(&t->region[k], &t->region[k + 1]);
        __atomic_store_n(&t->n, t->n - 1, __ATOMIC_RELAXED);
        deregister_region(w, b);
    }
    change_end(w);
    return rc;
}

/* ---- origin side --------------------------------------------------------------- */

/* A consistent copy of the region of a table mapped here holding addr. */
static int find_mapped(struct remora_win *w, const struct remora_dyn_table *t, uint64_t addr,
                       struct remora_dyn_region *out)
{
    struct remora_wait wt;
    remora_wait_init(&wt);
    for (;;) {
        uint64_t g = atomic_load_explicit(&t->generation, memory_order_acquire);
        if (g & 1) {
            remora_wait_round(&wt);
            continue;
        }
        uint32_t n = __atomic_load_n(&t->n, __ATOMIC_RELAXED);
        if (n > w->dyn.cap)
            n = w->dyn.cap;
        uint32_t i = lower_bound(t->region, n, addr + 1); /* first region starting after addr */
        int found = 0;
        if (i > 0) {
            copy_region(out, &t->region[i - 1]);
            found = addr >= out->base && addr < out->base + out->size;
        }
        atomic_thread_fence(memory_order_acquire);
        if (atomic_load_explicit(&t->generation, memory_order_relaxed) == g)
            return found;
    }
}

/* Re-read a table not mapped here (dyn: it) into c (c->lock held). */
static remora_status_t read_remote(struct remora_win *w, const struct remora_rmem *dyn, struct target_cache *c)
{
    struct remora_wait wt;
    remora_wait_init(&wt);
    for (;;) {
        uint64_t g1, g2;
        uint32_t hdr[2];
        remora_status_t st = remora_read(dyn, offsetof(struct remora_dyn_table, generation), &g1, sizeof g1);
        if (remora_ok(st) && (g1 & 1)) {
            remora_wait_round(&wt);
            continue;
        }
        if (remora_ok(st))
            st = remora_read(dyn, offsetof(struct remora_dyn_table, n), hdr, sizeof hdr);
        if (!remora_ok(st))
            return st;
        uint32_t n = hdr[0] < w->dyn.cap ? hdr[0] : w->dyn.cap;
        if (n > c->cap) {
            struct remora_dyn_region *r = realloc(c->region, sizeof *r * n);
            if (!r)
                return REMORA_ERR_NO_MEM;
            c->region = r;
            c->cap = n;
        }
        if (n)
            st = remora_read(dyn, offsetof(struct remora_dyn_table, region), c->region, sizeof *c->region * n);
        if (remora_ok(st))
            st = remora_read(dyn, offsetof(struct remora_dyn_table, generation), &g2, sizeof g2);
        if (!remora_ok(st))
            return st;
        if (g1 == g2) {
            c->n = n;
            return REMORA_OK;
        }
    }
}

/* The region of c's copy holding addr, or NULL. */
static const struct remora_dyn_region *find_cached(const struct target_cache *c, uint64_t addr)
{
    uint32_t i = lower_bound(c->region, c->n, addr + 1);
    if (i > 0 && addr >= c->region[i - 1].base && addr < c->region[i - 1].base + c->region[i - 1].size)
        return &c->region[i - 1];
    return NULL;
}

static int same_region(const struct remora_dyn_region *a, const struct remora_dyn_region *b)
{
    return a->base == b->base && a->size == b->size && a->key_len == b->key_len &&
           memcmp(a->key, b->key, a->key_len) == 0;
}

static void release_known(struct known_region *k)
{
    if (k->amo.key != k->data.key)
        remora_rmem_release(&k->amo);
    remora_rmem_release(&k->data);
    free(k);
}

/* Drops the regions reached at the target that its table (mapped here, or
 * c's copy) no longer holds: detached, so no call of this process may reach
 * them any more; each holds a mapping of the owner's memory, or a network
 * key (c->lock held).  Done before a region is added to more than the table
 * holds, so the list stays as long as the table. */
static void forget_detached(struct remora_win *w, struct target_cache *c, const struct remora_dyn_table *mapped)
{
    uint32_t attached = mapped ? __atomic_load_n(&mapped->n, __ATOMIC_RELAXED) : c->n;
    if (c->nknown < attached)
        return;
    for (struct known_region **p = &c->known, *k; (k = *p);) {
        struct remora_dyn_region now;
        const struct remora_dyn_region *r =
            mapped ? (find_mapped(w, mapped, k->r.base, &now) ? &now : NULL) : find_cached(c, k->r.base);
        if (r && same_region(r, &k->r)) {
            p = &k->next;
            continue;
        }
        *p = k->next;
        release_known(k);
        c->nknown--;
    }
}

/* The unpacked region r of target (c->lock held): found or made. */
static remora_status_t known(struct remora_win *w, int target, struct target_cache *c, const struct remora_dyn_region *r,
                 const struct remora_dyn_table *mapped, struct known_region **out)
{
    for (struct known_region *k = c->known; k; k = k->next)
        if (same_region(&k->r, r)) {
            *out = k;
            return REMORA_OK;
        }
    forget_detached(w, c, mapped);
    struct known_region *k = calloc(1, sizeof *k);
    if (!k)
        return REMORA_ERR_NO_MEM;
    const struct remora_rank_state *s = remora_rank_known(w, target); /* reached: made */
    int proc = s->world_rank;
    remora_status_t st = remora_mem_unpack(proc, r->key, r->key_len, REMORA_REACH_FAST, &k->data);
    k->amo = k->data;
    if (remora_ok(st) && w->spans_nodes && s->node_rank >= 0) {
        st = remora_mem_unpack(proc, r->key, r->key_len, REMORA_REACH_NET, &k->amo);
        if (!remora_ok(st))
            remora_rmem_release(&k->data);
    }
    if (!remora_ok(st)) {
        free(k);
        return st;
    }
    k->r = *r;
    k->next = c->known;
    c->known = k;
    c->nknown++;
    *out = k;
    return REMORA_OK;
}

/* The region holding addr, unpacked (c->lock held): *k, or NULL when no
 * region holds it. */
static remora_status_t region_at(struct remora_win *w, int target, struct target_cache *c, uint64_t addr, uint64_t epoch,
                     struct known_region **k)
{
    const struct remora_reach *x = &remora_rank_known(w, target)->reach; /* reached: made */
    const struct remora_dyn_table *mapped = (const struct remora_dyn_table *)remora_mapped(&x->dyn, 0);
    struct remora_dyn_region copy;
    const struct remora_dyn_region *r = NULL;
    remora_status_t st = REMORA_OK;
    *k = NULL;
    if (mapped) {
        r = find_mapped(w, mapped, addr, &copy) ? &copy : NULL;
    } else {
        r = c->epoch == epoch ? find_cached(c, addr) : NULL;
        if (!r && remora_ok((st = read_remote(w, &x->dyn, c)))) { /* a miss or a new epoch */
            c->epoch = epoch;
            r = find_cached(c, addr);
        }
    }
    return r && remora_ok(st) ? known(w, target, c, r, mapped, k) : st;
}

int remora_dyn_resolve(struct remora_win *w, int target, uint64_t lo, uint64_t len, struct remora_target *t)
{
    struct remora_dyn_net *d = dyn_state(w);
    if (!d)
        return remora_err(MPI_ERR_NO_MEM, "a dynamic window's region caches");
    struct target_cache *c = &d->cache[target];
    uint64_t epoch = atomic_load_explicit(&w->sync_epoch, memory_order_relaxed) + 1;
    uint64_t pos = lo, end = lo + len;
    struct known_region *k = NULL;
    remora_status_t st = REMORA_OK;
    int unmappable = 0;
    pthread_mutex_lock(&c->lock);
    while (pos < end && remora_ok((st = region_at(w, target, c, pos, epoch, &k))) && k) {
        uint64_t rend = k->r.base + k->r.size;
        struct remora_span s = {pos, rend < end ? rend : end, &k->data, &k->amo, pos - k->r.base,
                                k->r.atomic && k->amo.tp->amo_sizes};
        if ((unmappable = k->r.atomic && !s.atomic)) /* the others use atomics on it: we must not lock instead */
            break;
        if (!remora_ok((st = remora_target_add(t, &s))))
            break;
        pos = s.hi;
    }
    pthread_mutex_unlock(&c->lock);
    if (remora_ok(st) && !unmappable && pos == end)
        return MPI_SUCCESS;
    remora_target_release(t);
    if (!remora_ok(st))
        return remora_status_err(st, "reaching a region attached at target %d", target);
    if (unmappable)
        return remora_err(MPI_ERR_OTHER, "cannot map the memory of a region attached at target %d", target);
    return remora_err(MPI_ERR_RMA_RANGE, "bytes [%#llx, +%llu) are not in regions attached at target %d (byte %#llx is not)",
                      (unsigned long long)lo, (unsigned long long)len, target, (unsigned long long)pos);
}

void remora_dyn_free(struct remora_win *w)
{
    struct remora_dyn_net *d = w->dyn.net;
    if (!d)
        return;
    for (int r = 0; r < w->comm_size; r++) {
        struct target_cache *c = &d->cache[r];
        for (struct known_region *k = c->known, *next; k; k = next) {
            next = k->next;
            release_known(k);
        }
        free(c->region);
        pthread_mutex_destroy(&c->lock);
    }
    for (int i = 0; i < d->nown; i++)
        remora_mem_deregister(&d->own[i].reg);
    free(d->own);
    free(d->cache);
    free(d);
    w->dyn.net = NULL;
}
