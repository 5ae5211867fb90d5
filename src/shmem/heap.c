/* The symmetric heap's memory (heap.h).
 *
 * Each PE's heap is an anonymous memfd mapped at the start of a reserved
 * range of address space, the same address on every PE where the system
 * allows (PE 0 reserves, the others ask for that address).  PEs on the node
 * take a copy of each other's memfd (pidfd_getfd) and map it in a range
 * reserved for that PE, the PE's *view*.  The file only grows, and a page
 * costs memory only once written, so committing is cheap; what grows in
 * steps is what the network must know (registration, keys): one extent per
 * growth, each at least as large as everything before it.
 *
 * Only PEs that the runtime verified to share this kernel and node (equal
 * shm_key and node_key) exchange file descriptors: simulated nodes in their
 * own namespaces never map each other. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "runtime/bootstrap.h"
#include "runtime/context.h"
#include "runtime/log.h"
#include "runtime/segment.h"
#include "shmem/heap.h"
#include "shmem/regions.h"
#include "shmem/state.h"

#define MiB ((size_t)1 << 20)
#define GiB ((size_t)1 << 30)
#define ALIGN (2 * MiB) /* extents: whole huge pages */

static size_t round_up(size_t x, size_t a) { return (x + a - 1) / a * a; }

/* "64M", "2G", "1048576" (the spec's SHMEM_SYMMETRIC_SIZE syntax); 0 if unset or malformed. */
static size_t env_size(const char *name)
{
    const char *s = getenv(name);
    if (!s || !*s)
        return 0;
    char *end;
    double v = strtod(s, &end);
    size_t unit = 1;
    switch (*end) {
    case 'k': case 'K': unit = (size_t)1 << 10, end++; break;
    case 'm': case 'M': unit = MiB, end++; break;
    case 'g': case 'G': unit = GiB, end++; break;
    case 't': case 'T': unit = GiB << 10, end++; break;
    }
    if (*end || v <= 0) {
        remora_log(REMORA_LOG_WARN, "%s=%s is not a size (like 512M or 4G); ignored", name, s);
        return 0;
    }
    return (size_t)(v * (double)unit);
}

static void *reserve(void *at, size_t len)
{
    int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | (at ? MAP_FIXED_NOREPLACE : 0);
    void *p = mmap(at, len, PROT_NONE, flags, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    if (at && p != at) { /* a kernel without MAP_FIXED_NOREPLACE takes it as a hint */
        munmap(p, len);
        return NULL;
    }
    return p;
}

/* len bytes of address space starting at a multiple of `align` (a power of
 * two): more is reserved and the ends given back.  The heap's base is
 * aligned so that an offset aligned to anything up to REMORA_SHMEM_BASE_ALIGN
 * is an aligned address on every PE, whether or not the PEs have their
 * heaps at one address (shmem_align, alloc.c). */
static void *reserve_aligned(size_t len, size_t align)
{
    char *p = reserve(NULL, len + align);
    if (!p)
        return reserve(NULL, len); /* no room for the slack: alloc.c checks what it gets */
    uintptr_t at = ((uintptr_t)p + align - 1) & ~(uintptr_t)(align - 1);
    if (at > (uintptr_t)p)
        munmap(p, at - (uintptr_t)p);
    if ((uintptr_t)p + len + align > at + len)
        munmap((void *)(at + len), (uintptr_t)p + len + align - (at + len));
    return (void *)at;
}

/* The heap's own range, at PE 0's address when every PE can have it. */
static int reserve_heap(size_t len)
{
    struct remora_shmem_heap *h = &remora_shmem.heap;
    void *p = NULL;
    uint64_t at = 0;
    if (remora_shmem.my_pe == 0) {
        p = reserve_aligned(len, REMORA_SHMEM_BASE_ALIGN);
        at = (uint64_t)(uintptr_t)p;
    }
    PMPI_Bcast(&at, 1, MPI_UINT64_T, 0, remora_shmem.comm);
    if (remora_shmem.my_pe != 0 && at)
        p = reserve((void *)(uintptr_t)at, len);
    h->same_address = remora_boot_agree(remora_shmem.comm, p != NULL);
    if (!p)
        p = reserve_aligned(len, REMORA_SHMEM_BASE_ALIGN);
    h->base = (uintptr_t)p;
    h->reserved = len;
    return remora_boot_agree(remora_shmem.comm, p != NULL) ? 0 : -1;
}

static int map_fd_at(uintptr_t at, int fd, size_t from, size_t to)
{
    void *p = mmap((void *)(at + from), to - from, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, (off_t)from);
    return p == MAP_FAILED ? -1 : 0;
}

/* Who is on this node, and a copy of each one's memfd: the views. */
struct peer_info {
    uint64_t shm_key, node_key;
    int32_t pid, fd;
};

static int map_views(void)
{
    int n = remora_shmem.n_pes, me = remora_shmem.my_pe;
    struct remora_shmem_heap *h = &remora_shmem.heap;
    struct peer_info mine = {remora_ctx.shm_key, remora_ctx.node_key, remora_ctx.pid, h->fd};
    struct peer_info *all = malloc((size_t)n * sizeof *all);
    remora_shmem.view = calloc((size_t)n, sizeof *remora_shmem.view);
    remora_shmem.local_pe = malloc((size_t)n * sizeof *remora_shmem.local_pe);
    h->peer_fd = malloc((size_t)n * sizeof *h->peer_fd);
    int ok = all && remora_shmem.view && remora_shmem.local_pe && h->peer_fd;
    if (!remora_boot_agree(remora_shmem.comm, ok)) {
        free(all);
        return -1;
    }
    PMPI_Allgather(&mine, sizeof mine, MPI_BYTE, all, sizeof mine, MPI_BYTE, remora_shmem.comm);
    size_t committed = atomic_load(&h->committed);
    int every_pe_mapped = 1;
    for (int pe = 0; pe < n; pe++) {
        h->peer_fd[pe] = -1;
        int on_node = all[pe].shm_key == mine.shm_key && all[pe].node_key == mine.node_key;
        if (pe == me) {
            remora_shmem.view[pe] = (char *)h->base;
        } else if (on_node) {
            int fd = remora_fetch_peer_fd(all[pe].pid, all[pe].fd);
            void *at = fd >= 0 ? reserve_aligned(h->reserved, REMORA_SHMEM_BASE_ALIGN) : NULL;
            if (at && map_fd_at((uintptr_t)at, fd, 0, committed) == 0) {
                h->peer_fd[pe] = fd;
                remora_shmem.view[pe] = at;
            } else {
                if (at)
                    munmap(at, h->reserved);
                if (fd >= 0)
                    close(fd);
                remora_log(REMORA_LOG_WARN, "cannot map the symmetric heap of PE %d on this node (%s): it is "
                           "reached by system calls", pe, strerror(errno));
            }
        }
        if (!remora_shmem.view[pe])
            every_pe_mapped = 0;
        else
            remora_shmem.local_pe[remora_shmem.nlocal++] = pe;
    }
    free(all);
    remora_shmem.cpu_atomics = remora_boot_agree(remora_shmem.comm, every_pe_mapped);
    return 0;
}

int remora_shmem_heap_init(void)
{
    struct remora_shmem_heap *h = &remora_shmem.heap;
    size_t first = env_size("SHMEM_SYMMETRIC_SIZE");
    size_t reserve_len = env_size("REMORA_SHMEM_HEAP_RESERVE");
    if (!first)
        first = 64 * MiB;
    first = round_up(first, ALIGN);
    if (!reserve_len)
        reserve_len = 64 * GiB;
    if (reserve_len < 2 * first)
        reserve_len = 2 * first;
    reserve_len = round_up(reserve_len, ALIGN);
    h->fd = -1;
    if (reserve_heap(reserve_len) != 0) {
        remora_log(REMORA_LOG_ERROR, "cannot reserve %zu MiB of address space for the symmetric heap "
                   "(REMORA_SHMEM_HEAP_RESERVE sets how much)", reserve_len / MiB);
        return -1;
    }
    h->fd = memfd_create("remora-shmem-heap", MFD_CLOEXEC);
    int ok = h->fd >= 0 && ftruncate(h->fd, (off_t)first) == 0 && map_fd_at(h->base, h->fd, 0, first) == 0;
    if (!remora_boot_agree(remora_shmem.comm, ok)) {
        remora_log(REMORA_LOG_ERROR, "cannot create the symmetric heap of %zu MiB: %s", first / MiB, strerror(errno));
        return -1;
    }
    atomic_store(&h->committed, first);
    if (map_views() != 0)
        return -1;
    if (!remora_ok(remora_shmem_region_publish(&remora_shmem.heap_regions[0], (void *)h->base, first, 1))) {
        remora_log(REMORA_LOG_ERROR, "cannot register the symmetric heap with the transport");
        return -1;
    }
    atomic_store_explicit(&remora_shmem.nheap_regions, 1, memory_order_release);
    return 0;
}

int remora_shmem_heap_grow(size_t size)
{
    struct remora_shmem_heap *h = &remora_shmem.heap;
    size_t old = atomic_load(&h->committed);
    int next = atomic_load(&remora_shmem.nheap_regions);
    size_t want = round_up(size > 2 * old ? size : 2 * old, ALIGN);
    if (want > h->reserved)
        want = h->reserved;
    if (size > h->reserved || next == REMORA_SHMEM_MAX_EXTENTS) {
        remora_log(REMORA_LOG_ERROR, "the symmetric heap cannot grow to %zu MiB: %zu MiB of address space are "
                   "reserved for it (set REMORA_SHMEM_HEAP_RESERVE larger)", size / MiB, h->reserved / MiB);
        return -1;
    }
    int ok = ftruncate(h->fd, (off_t)want) == 0 && map_fd_at(h->base, h->fd, old, want) == 0;
    if (!remora_boot_agree(remora_shmem.comm, ok)) { /* also: every file has grown before anyone maps it */
        remora_log(REMORA_LOG_ERROR, "the symmetric heap cannot grow to %zu MiB: %s", want / MiB, strerror(errno));
        return -1;
    }
    for (int pe = 0; pe < remora_shmem.n_pes; pe++)
        if (h->peer_fd[pe] >= 0 && map_fd_at((uintptr_t)remora_shmem.view[pe], h->peer_fd[pe], old, want) != 0)
            remora_fatal("cannot map the grown symmetric heap of PE %d: %s", pe, strerror(errno));
    if (!remora_ok(remora_shmem_region_publish(&remora_shmem.heap_regions[next], (void *)(h->base + old), want - old, 1))) {
        remora_log(REMORA_LOG_ERROR, "cannot register %zu MiB more of symmetric heap with the transport",
                   (want - old) / MiB);
        return -1;
    }
    atomic_store_explicit(&h->committed, want, memory_order_release);
    atomic_store_explicit(&remora_shmem.nheap_regions, next + 1, memory_order_release);
    return 0;
}

void remora_shmem_heap_finalize(void)
{
    struct remora_shmem_heap *h = &remora_shmem.heap;
    int n = atomic_load(&remora_shmem.nheap_regions);
    for (int i = 0; i < n; i++)
        remora_shmem_region_release(&remora_shmem.heap_regions[i]);
    atomic_store(&remora_shmem.nheap_regions, 0);
    for (int pe = 0; remora_shmem.view && pe < remora_shmem.n_pes; pe++)
        if (h->peer_fd && h->peer_fd[pe] >= 0) {
            munmap(remora_shmem.view[pe], h->reserved);
            close(h->peer_fd[pe]);
        }
    if (h->base)
        munmap((void *)h->base, h->reserved);
    if (h->fd >= 0)
        close(h->fd);
    free(h->peer_fd);
    free(remora_shmem.view);
    free(remora_shmem.local_pe);
    remora_shmem.view = NULL;
    remora_shmem.local_pe = NULL;
    remora_shmem.nlocal = 0;
    memset(h, 0, sizeof *h);
    h->fd = -1;
}
