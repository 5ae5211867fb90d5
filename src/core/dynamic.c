/* Dynamic windows: attach, detach, and finding a target's region (see dynamic.h). */
#include <stdlib.h>
#include <string.h>

#include "core/dynamic.h"
#include "core/spin.h"
#include "core/win_net.h"
#include "runtime/context.h"
#include "runtime/log.h"

/* Network domain, origin side: one target's table as we last read it, and the
 * keys of every region we have used (kept until the window is freed, so an
 * operation under way never loses its key). */
struct known_region {
    struct remora_dyn_region r;
    struct remora_ucx_rkey rkey;
    struct remora_ucx_target target;   /* the peer.net of accesses to it */
    struct known_region *next;
};

struct target_cache {
    pthread_mutex_t lock;
    uint64_t epoch;                    /* w->sync_epoch when last validated (0: never) */
    uint64_t generation;
    uint32_t n, cap;
    struct remora_dyn_region *region;  /* a copy of its table (remote targets) */
    struct known_region *known;
};

/* Network domain, owner side: our registrations of attached regions. */
struct own_region {
    uint64_t base;
    struct remora_ucx_reg reg;
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

static struct remora_dyn_table *table_of(const struct remora_win *w, int rank)
{
    return (struct remora_dyn_table *)((char *)w->dyn_tables +
                                        remora_dyn_table_bytes(w->dyn_cap) * (size_t)w->node_of_rank[rank]);
}

static struct remora_dyn_net *dyn_net(struct remora_win *w)
{
    pthread_mutex_lock(&w->dyn_lock);
    if (!w->dyn_net) {
        struct remora_dyn_net *d = calloc(1, sizeof *d);
        if (!d || !(d->cache = calloc((size_t)w->comm_size, sizeof *d->cache)))
            remora_fatal("out of memory for a dynamic window's region caches");
        for (int r = 0; r < w->comm_size; r++)
            pthread_mutex_init(&d->cache[r].lock, NULL);
        w->dyn_net = d;
    }
    pthread_mutex_unlock(&w->dyn_lock);
    return w->dyn_net;
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

/* The owner changes its table between begin and end (w->dyn_lock held). */
static void change_begin(struct remora_win *w)
{
    pthread_mutex_lock(&w->dyn_lock);
    atomic_fetch_add_explicit(&w->ctrl->dyn_generation, 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
}

static void change_end(struct remora_win *w)
{
    atomic_fetch_add_explicit(&w->ctrl->dyn_generation, 1, memory_order_release);
    pthread_mutex_unlock(&w->dyn_lock);
}

/* Network domain: register the region and put its key into v. */
static int register_region(struct remora_win *w, void *base, size_t size, struct remora_dyn_region *v)
{
    struct remora_dyn_net *d = dyn_net(w);
    struct remora_ucx_reg reg;
    int rc = remora_ucx_register(base, size, &reg);
    if (rc != MPI_SUCCESS)
        return rc;
    if (reg.len > sizeof v->rkey) {
        remora_ucx_deregister(&reg);
        return remora_err(MPI_ERR_RMA_ATTACH, "the region's UCX key needs %zu bytes", reg.len);
    }
    memcpy(v->rkey, reg.packed, reg.len);
    v->rkey_len = reg.len;
    pthread_mutex_lock(&w->dyn_lock);
    if (d->nown == d->cap_own) {
        int cap = d->cap_own ? 2 * d->cap_own : 16;
        struct own_region *o = realloc(d->own, sizeof *o * (size_t)cap);
        if (!o) {
            pthread_mutex_unlock(&w->dyn_lock);
            remora_ucx_deregister(&reg);
            return remora_err(MPI_ERR_NO_MEM, "region registrations");
        }
        d->own = o;
        d->cap_own = cap;
    }
    d->own[d->nown++] = (struct own_region){(uint64_t)(uintptr_t)base, reg};
    pthread_mutex_unlock(&w->dyn_lock);
    return MPI_SUCCESS;
}

static void deregister_region(struct remora_win *w, uint64_t base)
{
    struct remora_dyn_net *d = w->dyn_net;
    for (int i = 0; d && i < d->nown; i++)
        if (d->own[i].base == base) {
            remora_ucx_deregister(&d->own[i].reg);
            d->own[i] = d->own[--d->nown];
            return;
        }
}

int remora_win_attach(struct remora_win *w, void *base, MPI_Aint size)
{
    if (w->flavor != MPI_WIN_FLAVOR_DYNAMIC)
        return remora_err(MPI_ERR_RMA_FLAVOR, "MPI_Win_attach needs a window made by MPI_Win_create_dynamic");
    if (size < 0)
        return remora_err(MPI_ERR_SIZE, "negative size %ld", (long)size);
    struct remora_dyn_region v = {.base = (uint64_t)(uintptr_t)base, .size = (uint64_t)size, .pool = {.fd = -1}};
    if (!w->seg.fd_passing || !remora_pool_find(base, (size_t)size, &v.pool))
        v.pool.fd = -1;
    int rc = MPI_SUCCESS;
    if (w->amo_domain == REMORA_PEER_UCX && (rc = register_region(w, base, (size_t)size, &v)) != MPI_SUCCESS)
        return rc;
    struct remora_dyn_table *t = table_of(w, w->rank);
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
    struct remora_dyn_table *t = table_of(w, w->rank);
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

/* A consistent copy of the region of a node-local target holding addr. */
static int find_local(struct remora_win *w, int target, uint64_t addr, struct remora_dyn_region *out)
{
    const struct remora_dyn_table *t = table_of(w, target);
    _Atomic uint64_t *gen = &w->peers[target].ctrl->dyn_generation;
    struct remora_wait wt;
    remora_wait_init(&wt);
    for (;;) {
        uint64_t g = atomic_load_explicit(gen, memory_order_acquire);
        if (g & 1) {
            remora_wait_round(&wt, w->amo_domain);
            continue;
        }
        uint32_t n = __atomic_load_n(&t->n, __ATOMIC_RELAXED);
        if (n > t->cap)
            n = t->cap;
        uint32_t i = lower_bound(t->region, n, addr + 1); /* first region starting after addr */
        int found = 0;
        if (i > 0) {
            copy_region(out, &t->region[i - 1]);
            found = addr >= out->base && addr < out->base + out->size;
        }
        atomic_thread_fence(memory_order_acquire);
        if (atomic_load_explicit(gen, memory_order_relaxed) == g)
            return found;
    }
}

/* Re-read a remote target's table into c (c->lock held). */
static int read_remote(struct remora_win *w, int target, struct target_cache *c)
{
    const struct remora_ucx_target *t = &w->net->targets[target];
    struct remora_wait wt;
    remora_wait_init(&wt);
    for (;;) {
        uint64_t g1, g2;
        uint32_t hdr[2];
        if (remora_ucx_read(t, t->ctrl_rkey, t->ctrl_addr + REMORA_CTRL_DYN_GENERATION, &g1, sizeof g1))
            return EIO;
        if (g1 & 1) {
            remora_wait_round(&wt, w->amo_domain);
            continue;
        }
        if (remora_ucx_read(t, t->ctrl_rkey, t->dyn_addr, hdr, sizeof hdr))
            return EIO;
        uint32_t n = hdr[0] < w->dyn_cap ? hdr[0] : w->dyn_cap;
        if (n > c->cap) {
            struct remora_dyn_region *r = realloc(c->region, sizeof *r * n);
            if (!r)
                return ENOMEM;
            c->region = r;
            c->cap = n;
        }
        if (n && remora_ucx_read(t, t->ctrl_rkey, t->dyn_addr + offsetof(struct remora_dyn_table, region), c->region,
                                 sizeof *c->region * n))
            return EIO;
        if (remora_ucx_read(t, t->ctrl_rkey, t->ctrl_addr + REMORA_CTRL_DYN_GENERATION, &g2, sizeof g2))
            return EIO;
        if (g1 == g2) {
            c->n = n;
            c->generation = g1;
            return 0;
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

/* The key entry for region r of target (c->lock held): found or made. */
static struct known_region *known(struct remora_win *w, int target, struct target_cache *c,
                                  const struct remora_dyn_region *r)
{
    for (struct known_region *k = c->known; k; k = k->next)
        if (k->r.base == r->base && k->r.size == r->size && k->r.rkey_len == r->rkey_len &&
            memcmp(k->r.rkey, r->rkey, r->rkey_len) == 0)
            return k;
    struct known_region *k = calloc(1, sizeof *k);
    if (!k || remora_ucx_rkey_init(&k->rkey, r->rkey, r->rkey_len) != MPI_SUCCESS)
        remora_fatal("out of memory for a dynamic window's region keys");
    k->r = *r;
    k->target = w->net->targets[target];
    k->target.data_rkey = &k->rkey;
    k->target.data_addr = 0; /* dynamic windows: displacements are addresses */
    k->next = c->known;
    c->known = k;
    return k;
}

/* Network domain: the region holding addr at target, and the net of accesses to it. */
static int resolve_net(struct remora_win *w, int target, uint64_t addr, struct remora_dyn_region *out,
                       const struct remora_ucx_target **net)
{
    struct target_cache *c = &dyn_net(w)->cache[target];
    uint64_t epoch = atomic_load_explicit(&w->sync_epoch, memory_order_relaxed) + 1;
    pthread_mutex_lock(&c->lock);
    int found;
    const struct remora_dyn_region *r = NULL;
    if (w->node_of_rank[target] >= 0) {
        found = find_local(w, target, addr, out);
        r = out;
    } else {
        r = c->epoch == epoch ? find_cached(c, addr) : NULL;
        if (!r) { /* a miss or a new epoch: read the table again */
            if (read_remote(w, target, c)) {
                pthread_mutex_unlock(&c->lock);
                return remora_err(MPI_ERR_OTHER, "cannot read the region table of target %d", target);
            }
            c->epoch = epoch;
            r = find_cached(c, addr);
        }
        found = r != NULL;
        if (found)
            *out = *r;
    }
    if (found)
        *net = &known(w, target, c, out)->target;
    pthread_mutex_unlock(&c->lock);
    return found ? MPI_SUCCESS : MPI_ERR_RMA_RANGE;
}

int remora_dyn_resolve(struct remora_win *w, int target, uint64_t addr, uint64_t len, struct remora_peer *view)
{
    struct remora_dyn_region r;
    const struct remora_ucx_target *net = NULL;
    int rc;
    if (w->amo_domain == REMORA_PEER_UCX)
        rc = resolve_net(w, target, addr, &r, &net);
    else
        rc = find_local(w, target, addr, &r) ? MPI_SUCCESS : MPI_ERR_RMA_RANGE;
    if (rc == MPI_SUCCESS && len > r.base + r.size - addr)
        rc = MPI_ERR_RMA_RANGE;
    if (rc != MPI_SUCCESS)
        return rc == MPI_ERR_RMA_RANGE
                   ? remora_err(MPI_ERR_RMA_RANGE, "bytes [%#llx, +%llu) are not in a region attached at target %d",
                                (unsigned long long)addr, (unsigned long long)len, target)
                   : rc;
    view->base = NULL; /* displacements are addresses */
    view->size = UINT64_MAX;
    view->net = (void *)net;
    if (w->node_of_rank[target] < 0) /* another node */
        return MPI_SUCCESS;
    if (target == w->rank) {
        view->kind = REMORA_PEER_MAPPED;
        view->acc_locked = r.pool.fd < 0 && w->node_size > 1;
        return MPI_SUCCESS;
    }
    if (r.pool.fd >= 0) {
        char *m = remora_pool_map_peer(view->pid, &r.pool);
        if (!m)
            return remora_err(MPI_ERR_OTHER, "cannot map MPI_Alloc_mem memory of target %d", target);
        view->kind = REMORA_PEER_MAPPED;
        view->base = (char *)((uintptr_t)m - r.pool.chunk_addr); /* base + addr = m + (addr - chunk_addr) */
        view->acc_locked = 0;
        return MPI_SUCCESS;
    }
    view->kind = REMORA_PEER_CMA;
    view->acc_locked = 1;
    return MPI_SUCCESS;
}

void remora_dyn_free(struct remora_win *w)
{
    struct remora_dyn_net *d = w->dyn_net;
    if (!d)
        return;
    for (int r = 0; r < w->comm_size; r++) {
        struct target_cache *c = &d->cache[r];
        for (struct known_region *k = c->known, *next; k; k = next) {
            next = k->next;
            remora_ucx_rkey_release(&k->rkey);
            free(k);
        }
        free(c->region);
        pthread_mutex_destroy(&c->lock);
    }
    for (int i = 0; i < d->nown; i++)
        remora_ucx_deregister(&d->own[i].reg);
    free(d->own);
    free(d->cache);
    free(d);
    w->dyn_net = NULL;
}
