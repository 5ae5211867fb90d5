/* Dynamic windows: attach, detach, and finding a target's region (see dynamic.h). */
#include <stdlib.h>

#include "core/dynamic.h"
#include "core/spin.h"
#include "runtime/context.h"

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

/* Index of the first region whose base is >= addr (readers: relaxed loads). */
static uint32_t lower_bound(const struct remora_dyn_table *t, uint32_t n, uint64_t addr)
{
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (__atomic_load_n(&t->region[mid].base, __ATOMIC_RELAXED) < addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The owner changes its table between begin and end. */
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

static void store_region(struct remora_dyn_region *r, const struct remora_dyn_region *v)
{
    __atomic_store_n(&r->base, v->base, __ATOMIC_RELAXED);
    __atomic_store_n(&r->size, v->size, __ATOMIC_RELAXED);
    __atomic_store_n(&r->pool.fd, v->pool.fd, __ATOMIC_RELAXED);
    __atomic_store_n(&r->pool.serial, v->pool.serial, __ATOMIC_RELAXED);
    __atomic_store_n(&r->pool.chunk_addr, v->pool.chunk_addr, __ATOMIC_RELAXED);
    __atomic_store_n(&r->pool.chunk_size, v->pool.chunk_size, __ATOMIC_RELAXED);
}

static void load_region(struct remora_dyn_region *v, const struct remora_dyn_region *r)
{
    v->base = __atomic_load_n(&r->base, __ATOMIC_RELAXED);
    v->size = __atomic_load_n(&r->size, __ATOMIC_RELAXED);
    v->pool.fd = __atomic_load_n(&r->pool.fd, __ATOMIC_RELAXED);
    v->pool.serial = __atomic_load_n(&r->pool.serial, __ATOMIC_RELAXED);
    v->pool.chunk_addr = __atomic_load_n(&r->pool.chunk_addr, __ATOMIC_RELAXED);
    v->pool.chunk_size = __atomic_load_n(&r->pool.chunk_size, __ATOMIC_RELAXED);
}

int remora_win_attach(struct remora_win *w, void *base, MPI_Aint size)
{
    if (w->flavor != MPI_WIN_FLAVOR_DYNAMIC)
        return remora_err(MPI_ERR_RMA_FLAVOR, "MPI_Win_attach needs a window made by MPI_Win_create_dynamic");
    if (size < 0)
        return remora_err(MPI_ERR_SIZE, "negative size %ld", (long)size);
    struct remora_dyn_region v = {(uint64_t)(uintptr_t)base, (uint64_t)size, {-1, 0, 0, 0}};
    if (!w->seg.fd_passing || !remora_pool_find(base, (size_t)size, &v.pool))
        v.pool.fd = -1;
    struct remora_dyn_table *t = table_of(w, w->rank);
    int rc = MPI_SUCCESS;
    change_begin(w);
    uint32_t i = lower_bound(t, t->n, v.base);
    if (t->n == t->cap)
        rc = remora_err(MPI_ERR_RMA_ATTACH, "%u regions are attached already (REMORA_DYN_REGIONS)", t->cap);
    else if ((i < t->n && t->region[i].base < v.base + (v.size ? v.size : 1)) ||
             (i > 0 && t->region[i - 1].base + t->region[i - 1].size > v.base))
        rc = remora_err(MPI_ERR_RMA_ATTACH, "the region overlaps one attached already");
    else {
        for (uint32_t k = t->n; k > i; k--)
            store_region(&t->region[k], &t->region[k - 1]);
        store_region(&t->region[i], &v);
        __atomic_store_n(&t->n, t->n + 1, __ATOMIC_RELAXED);
    }
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
    uint32_t i = lower_bound(t, t->n, b);
    if (i == t->n || t->region[i].base != b)
        rc = remora_err(MPI_ERR_RMA_ATTACH, "no region is attached at %p", base);
    else {
        for (uint32_t k = i; k + 1 < t->n; k++)
            store_region(&t->region[k], &t->region[k + 1]);
        __atomic_store_n(&t->n, t->n - 1, __ATOMIC_RELAXED);
    }
    change_end(w);
    return rc;
}

/* A consistent copy of the region of target holding addr (found = 0 if none). */
static int find_region(struct remora_win *w, int target, uint64_t addr, struct remora_dyn_region *out)
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
        uint32_t i = lower_bound(t, n, addr + 1); /* first region starting after addr */
        int found = 0;
        if (i > 0) {
            load_region(out, &t->region[i - 1]);
            found = addr >= out->base && addr < out->base + out->size;
        }
        atomic_thread_fence(memory_order_acquire);
        if (atomic_load_explicit(gen, memory_order_relaxed) == g)
            return found;
    }
}

int remora_dyn_resolve(struct remora_win *w, int target, uint64_t addr, uint64_t len, struct remora_peer *view)
{
    struct remora_dyn_region r;
    if (w->node_of_rank[target] < 0 || !find_region(w, target, addr, &r) || len > r.base + r.size - addr)
        return remora_err(MPI_ERR_RMA_RANGE, "bytes [%#llx, +%llu) are not in a region attached at target %d",
                          (unsigned long long)addr, (unsigned long long)len, target);
    view->base = NULL; /* displacements are addresses */
    view->size = UINT64_MAX;
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
