/* The one global state of the library: set up in MPI_Init, torn down in
 * MPI_Finalize.  Fields above `lock` are written only during start-up and
 * shutdown (before/after any other thread may call in) and read freely; the
 * registries below it change under `lock`. */
#ifndef REMORA_RUNTIME_CONTEXT_H
#define REMORA_RUNTIME_CONTEXT_H

#include <mpi.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>

#include "runtime/config.h"
#include "runtime/pool.h"
#include "transport/ucx.h"
#include "core/type_table.h"
#include "core/datatype.h"
#include "core/win_table.h"
#include "core/attr.h"
#include "core/errhandler.h"

struct remora_context {
    int initialized;          /* our start-up ran (MPI_Init* or lazily at first window) */
    int finalized;
    int thread_level;         /* what the host granted */
    pid_t pid;
    int world_rank, world_size;

    /* Topology, known locally without any collective (so that start-up can
     * also happen lazily, at the first window).  shm_id names the machine
     * (hostname + kernel boot id): processes with equal shm_id can share
     * memory.  node_id names this process's node for the transports: equal to
     * shm_id unless REMORA_NODE_SIZE=k splits machines into nodes of k
     * consecutive world ranks, or REMORA_TRANSPORT=ucx makes every process a
     * node of its own. */
    uint64_t shm_id, node_id;
    _Atomic int oversubscribed;   /* more processes on the machine than cores: waits yield */
    int ncpus;

    struct remora_config config;
    struct remora_type_table types;      /* predefined datatypes by handle: read-only after init */

    pthread_mutex_t lock;                /* guards everything below */
    struct remora_win_table wins;        /* window handles <-> windows */
    struct remora_keyval_table keyvals;  /* window keyvals */
    struct remora_errhandler_table errhandlers;
    uint64_t segment_serial;             /* names of POSIX-fallback segments */
    struct remora_pool pool;             /* MPI_Alloc_mem memory (runtime/pool.c) */
    struct remora_ucx ucx;               /* network transport (transport/ucx.c)   */
    struct remora_dt_cache dt_cache;     /* datatype layouts (core/datatype.c)    */
};

extern struct remora_context remora_ctx;

/* Start-up, after the host's MPI_Init*; idempotent and local (no collective). */
void remora_context_init(void);
/* Shutdown before the host's MPI_Finalize: frees what the user left. */
void remora_context_finalize(void);

#endif
