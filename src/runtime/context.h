/* The runtime's state: who this process is, where it runs, how it is
 * configured.  Set up by remora_runtime_init (MPI_Init, or lazily at the first
 * window) and read freely afterwards; only `lock` guards something that
 * changes (the MPI_Alloc_mem pool, the shared window pages).  The runtime is the bottom layer: it
 * includes nothing of the transports, the engine or the front ends. */
#ifndef REMORA_RUNTIME_CONTEXT_H
#define REMORA_RUNTIME_CONTEXT_H

#include <mpi.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>

#include "runtime/config.h"
#include "runtime/pool.h"

struct remora_context {
    int initialized;          /* remora_runtime_init ran                                */
    int thread_level;         /* what the host granted                                  */
    pid_t pid;
    int world_rank, world_size;

    /* Topology (runtime/topology.c), known locally without a collective.
     * shm_key: processes with equal keys verifiably share a kernel and see
     * each other (same boot, same pid, IPC and mount namespaces): they can map
     * each other's memory and use CMA.  node_key: the node as the transports
     * see it, equal to shm_key unless REMORA_NODE_SIZE or REMORA_TRANSPORT=ucx
     * split a machine into several nodes. */
    uint64_t shm_key, node_key;
    _Atomic int oversubscribed;   /* more of our processes on the machine than cores */
    int ncpus;

    struct remora_config config;

    pthread_mutex_t lock;         /* guards the pool and the shared pages          */
    _Atomic uint64_t segment_serial; /* names of POSIX-fallback segments            */
    struct remora_pool pool;      /* MPI_Alloc_mem memory (runtime/pool.c)         */
};

extern struct remora_context remora_ctx;

/* After the host's MPI_Init*; idempotent, thread safe, local (no collective). */
void remora_runtime_init(void);
/* Before the host's MPI_Finalize. */
void remora_runtime_finalize(void);

/* Topology (topology.c): the keys above, from the machine and the configuration. */
void remora_topology_init(void);

#endif
