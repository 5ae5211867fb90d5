/* Publishing symmetric ranges: register one with the transport, exchange the
 * keys, and learn how to reach every PE's copy (see state.h). */
#include <stdlib.h>
#include <string.h>

#include "runtime/bootstrap.h"
#include "shmem/regions.h"
#include "shmem/state.h"

/* The atomicity domain of the copy at PE pe: the view when heap atomics are
 * CPU atomics, else the network. */
static remora_status_t reach_atomics(struct remora_shmem_region *r, int pe, const char *key, size_t len, char *view)
{
    if (view && remora_shmem.cpu_atomics) {
        remora_mem_mapped(pe, view, &r->atom[pe]);
        return REMORA_OK;
    }
    if (!remora_shmem.use_net)
        return REMORA_OK; /* one PE: nothing to reach */
    return remora_mem_unpack(pe, key, len, REMORA_REACH_NET, &r->atom[pe]);
}

remora_status_t remora_shmem_region_publish(struct remora_shmem_region *r, void *base, size_t len, int in_heap)
{
    int n = remora_shmem.n_pes;
    memset(r, 0, sizeof *r);
    r->base = (uintptr_t)base;
    r->len = len;
    r->fast = calloc((size_t)n, sizeof *r->fast);
    r->atom = calloc((size_t)n, sizeof *r->atom);
    remora_status_t st = r->fast && r->atom ? remora_mem_register(base, len, remora_shmem.use_net ? REMORA_REG_NET : 0, &r->reg) : REMORA_ERR_NO_MEM;
    if (!remora_boot_agree(remora_shmem.comm, remora_ok(st)))
        goto fail;

    char *all = NULL;
    size_t *offs = NULL, *lens = NULL;
    if (remora_boot_allgatherv(remora_shmem.comm, r->reg.packed, r->reg.packed_len, &all, &offs, &lens) != MPI_SUCCESS)
        goto fail;
    st = REMORA_OK;
    uint64_t heap_off = r->base - remora_shmem.heap.base;
    for (int pe = 0; pe < n && remora_ok(st); pe++) {
        char *view = in_heap && remora_shmem.view[pe] ? remora_shmem.view[pe] + heap_off : NULL;
        if (view)
            remora_mem_mapped(pe, view, &r->fast[pe]);
        else
            st = remora_mem_unpack(pe, all + offs[pe], lens[pe], REMORA_REACH_FAST, &r->fast[pe]);
        if (remora_ok(st))
            st = reach_atomics(r, pe, all + offs[pe], lens[pe], in_heap ? view : NULL);
    }
    free(all), free(offs), free(lens);
    if (remora_boot_agree(remora_shmem.comm, remora_ok(st)))
        return REMORA_OK;
fail:
    remora_shmem_region_release(r);
    return REMORA_ERR_NO_MEM;
}

void remora_shmem_region_release(struct remora_shmem_region *r)
{
    for (int pe = 0; pe < remora_shmem.n_pes; pe++) {
        if (r->fast)
            remora_rmem_release(&r->fast[pe]);
        if (r->atom)
            remora_rmem_release(&r->atom[pe]);
    }
    if (r->reg.packed_len)
        remora_mem_deregister(&r->reg);
    free(r->fast);
    free(r->atom);
    memset(r, 0, sizeof *r);
}

/* Binary search over ranges sorted by base. */
static const struct remora_shmem_region *find(const struct remora_shmem_region *r, int n, uintptr_t a, size_t len)
{
    int lo = 0, hi = n - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (a < r[mid].base)
            hi = mid - 1;
        else if (a - r[mid].base >= r[mid].len)
            lo = mid + 1;
        else
            return len <= r[mid].len - (a - r[mid].base) ? &r[mid] : NULL;
    }
    return NULL;
}

const struct remora_shmem_region *remora_shmem_find(const void *addr, size_t len, uint64_t *off)
{
    uintptr_t a = (uintptr_t)addr;
    int nheap = atomic_load_explicit(&remora_shmem.nheap_regions, memory_order_acquire);
    const struct remora_shmem_region *r = find(remora_shmem.heap_regions, nheap, a, len);
    if (!r)
        r = find(remora_shmem.statics, remora_shmem.nstatics, a, len);
    if (r)
        *off = a - r->base;
    return r;
}

const struct remora_shmem_region *remora_shmem_locate(const char *routine, const void *addr, size_t len,
                                                      uint64_t *off)
{
    const struct remora_shmem_region *r = remora_shmem_find(addr, len, off);
    if (!r)
        remora_shmem_abort(routine, "%p (%zu bytes) is not in symmetric memory (the symmetric heap or the program's "
                           "global and static data)", addr, len);
    return r;
}
