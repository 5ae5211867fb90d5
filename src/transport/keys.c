/* Memory registration and keys, and the calls that concern every transport
 * (see transport.h).
 *
 * A packed key is a header, what any transport on the owner's node needs (its
 * pid, the address, where the memory lies in its MPI_Alloc_mem pool or in
 * pages moved into shared memory), then the network's remote key when the
 * memory was registered with the network.  The unpacker chooses: memory of a
 * process on its node (equal shm_key and node_key, see runtime/context.h) is
 * mapped here when it lies in the owner's pool; mapped where its pages were
 * moved into shared memory and reached by CMA at its ends (shm_split.c);
 * reached by CMA otherwise; anything else goes through the network. */
#include <string.h>

#include "runtime/context.h"
#include "runtime/log.h"
#include "runtime/pool.h"
#include "runtime/shared_pages.h"
#include "transport/mapped.h"
#include "transport/net.h"
#include "transport/shm.h"

struct key_header {
    uint64_t shm_key, node_key;
    uint64_t addr, len;
    struct remora_pool_ref pool; /* where the memory lies in an MPI_Alloc_mem pool chunk or in pages moved into
                                    shared memory (in_pool) */
    int32_t pid, in_pool;
    uint32_t net, net_len;  /* registered with the network; its key's length (0 for empty memory) */
};

enum { IN_POOL = 1, IN_SHARED_PAGES = 2 }; /* key_header.in_pool; 0: neither */

const char *remora_status_str(remora_status_t status)
{
    switch (status.code) {
    case REMORA_S_OK: return "success";
    case REMORA_S_NO_MEM: return "out of memory or registration resources";
    case REMORA_S_UNREACHABLE: return "the process cannot be reached";
    case REMORA_S_IO: return "a transfer failed";
    case REMORA_S_UNSUPPORTED: return "the operation is not offered on this memory";
    case REMORA_S_INVALID: return "invalid key or argument";
    default: return "unknown transport status";
    }
}

remora_status_t remora_mem_register(void *addr, size_t len, int flags, struct remora_mem_reg *reg)
{
    memset(reg, 0, sizeof *reg);
    struct key_header h = {.shm_key = remora_ctx.shm_key,
                           .node_key = remora_ctx.node_key,
                           .addr = (uint64_t)(uintptr_t)addr,
                           .len = len,
                           .pid = remora_ctx.pid};
    if (len > 0 && remora_pool_find(addr, len, &h.pool))
        h.in_pool = IN_POOL;
    else if (len > 0 && (flags & REMORA_REG_SHARE_PAGES) && remora_ctx.config.share_window_pages &&
             remora_pages_share(addr, len, &h.pool)) {
        h.in_pool = IN_SHARED_PAGES;
        reg->pages = h.pool;
    }
    if (flags & REMORA_REG_NET) { /* after the move: the network registers the pages peers map */
        size_t n = 0;
        remora_status_t st = remora_net_register(addr, len, &reg->net, reg->packed + sizeof h, sizeof reg->packed - sizeof h, &n);
        if (!remora_ok(st)) {
            remora_mem_deregister(reg);
            return st;
        }
        h.net = 1;
        h.net_len = (uint32_t)n;
    }
    memcpy(reg->packed, &h, sizeof h);
    reg->packed_len = sizeof h + h.net_len;
    return REMORA_OK;
}

void remora_mem_deregister(struct remora_mem_reg *reg)
{
    remora_net_deregister(reg->net);
    if (reg->pages.chunk_size) /* after the network let go of them */
        remora_pages_unshare(&reg->pages);
    memset(reg, 0, sizeof *reg);
}

void remora_mem_mapped(int proc, void *addr, struct remora_rmem *out)
{
    *out = (struct remora_rmem){.tp = &remora_shm_mapped, .base = (uintptr_t)addr, .proc = proc};
}

/* On the owner's node: mapped (ours, or its pool memory we can map), else CMA. */
static void unpack_on_node(int proc, const struct key_header *h, struct remora_rmem *out)
{
    char *chunk = NULL;
    if (proc == remora_ctx.world_rank) {
        remora_mem_mapped(proc, (void *)(uintptr_t)h->addr, out);
    } else if (h->in_pool == IN_POOL && (chunk = remora_pool_map_peer(h->pid, &h->pool))) {
        remora_mem_mapped(proc, chunk + (h->addr - h->pool.chunk_addr), out);
    } else if (h->in_pool == IN_SHARED_PAGES && remora_shm_split_unpack(proc, h->pid, h->addr, h->len, &h->pool, out)) {
        /* the pages mapped here, the rest of the memory by CMA */
    } else {
        *out = (struct remora_rmem){.tp = &remora_shm_cma, .base = h->addr, .key = (void *)(intptr_t)h->pid,
                                    .proc = proc};
    }
}

remora_status_t remora_mem_unpack(int proc, const void *packed, size_t len, enum remora_reach_via how, struct remora_rmem *out)
{
    struct key_header h;
    memset(out, 0, sizeof *out);
    if (len < sizeof h)
        return REMORA_ERR_INVALID;
    memcpy(&h, packed, sizeof h);
    if (len != sizeof h + h.net_len)
        return REMORA_ERR_INVALID;
    int on_node = h.shm_key == remora_ctx.shm_key && h.node_key == remora_ctx.node_key;
    if (how == REMORA_REACH_FAST && on_node) {
        unpack_on_node(proc, &h, out);
        return REMORA_OK;
    }
    if (!h.net)
        return REMORA_ERR_UNREACHABLE;
    return remora_net_unpack(proc, (const char *)packed + sizeof h, h.net_len, h.addr, out);
}

void remora_rmem_release(struct remora_rmem *m)
{
    if (m->tp)
        m->tp->release(m);
    memset(m, 0, sizeof *m);
}

remora_status_t remora_flush_proc(int proc)
{
    remora_mapped_fence();
    return remora_net.flush(proc);
}

remora_status_t remora_flush_all(void) { return remora_flush_proc(-1); }

void remora_progress(void) { remora_net_progress(); }

void remora_progress_pause(void) { remora_net_pause(); }

int remora_serve(void) { return remora_net_serve(); }

int remora_serve_wanted(void) { return remora_net_serving(); }

void remora_transport_finalize(void) { remora_net_finalize(); }
