/* The MPI_Alloc_mem pool: memory in anonymous shared files (memfd) so that
 * peers on the node can map it, making MPI_Win_create windows and attached
 * regions on such memory reachable with load/store and CPU atomics instead of
 * system calls.  Chunks are kept until MPI_Finalize; peers map a chunk once
 * (by pid and fd) and keep the mapping. */
#ifndef REMORA_RUNTIME_POOL_H
#define REMORA_RUNTIME_POOL_H

#include <stddef.h>
#include <stdint.h>
#include <pthread.h>
#include <sys/types.h>

/* Where pool memory lies, as a peer needs it to map it. */
struct remora_pool_ref {
    int fd;               /* the chunk's fd in its owner                  */
    uint32_t serial;      /* chunk number in its owner (cache key)        */
    uint64_t chunk_addr;  /* the chunk's address in its owner             */
    uint64_t chunk_size;
};

struct remora_pool_span { uint64_t off, size; };

struct remora_pool_chunk {
    char *addr;
    size_t size;
    int fd;
    uint32_t serial;
    struct remora_pool_span *free; /* free spans, by offset, coalesced */
    int nfree, cap_free;
};

struct remora_pool_live { char *addr; size_t size; };

struct remora_peer_chunk { pid_t pid; uint32_t serial; char *addr; size_t size; };

struct remora_pool {
    struct remora_pool_chunk *chunks;
    int nchunks, cap_chunks;
    struct remora_pool_live *live;    /* allocations, by address */
    int nlive, cap_live;
    struct remora_peer_chunk *peers;  /* peers' chunks mapped here */
    int npeers, cap_peers;
    size_t reserved;                  /* bytes of all our chunks */
};

/* size bytes, 64-byte aligned, from the pool; NULL when the pool cannot serve. */
void *remora_pool_alloc(size_t size);
/* 1 if p came from the pool (and is now free), 0 otherwise. */
int remora_pool_free(void *p);
/* 1 and *ref if [p, p+len) lies in one chunk of this process's pool. */
int remora_pool_find(const void *p, size_t len, struct remora_pool_ref *ref);
/* The address in this process of the peer's pool chunk (mapped on first use),
 * or NULL when it cannot be mapped. */
char *remora_pool_map_peer(pid_t pid, const struct remora_pool_ref *ref);
/* MPI_Finalize: unmap peers' chunks and release ours. */
void remora_pool_finalize(void);

#endif
