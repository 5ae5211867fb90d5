/* Configuration from REMORA_* environment variables, read once at MPI_Init. */
#ifndef REMORA_RUNTIME_CONFIG_H
#define REMORA_RUNTIME_CONFIG_H

#include <stddef.h>

enum remora_transport_choice {
    REMORA_TRANSPORT_AUTO,  /* shared memory on a node, UCX across nodes           */
    REMORA_TRANSPORT_UCX,   /* every peer is off-node (tests the network path)      */
};

enum remora_progress_choice { REMORA_PROGRESS_AUTO, REMORA_PROGRESS_ON, REMORA_PROGRESS_OFF };

enum remora_log_level { REMORA_LOG_ERROR, REMORA_LOG_WARN, REMORA_LOG_INFO, REMORA_LOG_DEBUG };

enum remora_shmem_barrier_choice {
    REMORA_SHMEM_BARRIER_AUTO,
    REMORA_SHMEM_BARRIER_CENTRAL,
    REMORA_SHMEM_BARRIER_DISSEMINATION,
};

/* Which pages of memory the program brings move into shared memory. */
enum remora_share_pages {
    REMORA_SHARE_PAGES_OFF,    /* none                                                          */
    REMORA_SHARE_PAGES_AROUND, /* every page the memory touches, when other threads' writes can be held */
    REMORA_SHARE_PAGES_WHOLE,  /* the whole pages inside it                                      */
};

struct remora_config {
    enum remora_transport_choice transport; /* REMORA_TRANSPORT=auto|ucx                      */
    int node_size;          /* REMORA_NODE_SIZE=k: simulate nodes of k ranks (0: real nodes)   */
    int ucx_instances;      /* REMORA_UCX_INSTANCES: max communication resource instances      */
    enum remora_progress_choice progress_thread; /* REMORA_PROGRESS_THREAD=auto|on|off         */
    enum remora_log_level log_level;             /* REMORA_LOG=error|warn|info|debug           */
    int shm_pool_mib;       /* REMORA_ALLOC_MEM_POOL_MIB: MPI_Alloc_mem shared pool per process */
    enum remora_share_pages share_window_pages; /* REMORA_SHARE_WINDOW_PAGES=1|whole|0: the pages of
                               MPI_Win_create memory move into shared memory (runtime/shared_pages.h) */
    int dyn_regions;        /* REMORA_DYN_REGIONS: regions one rank may attach to a dynamic window */
    int shm_posix;          /* REMORA_SHM=memfd|posix: how node-shared segments are made       */
    size_t nt_copy_min;     /* REMORA_NT_COPY_MIN: a put of this many bytes or more into another process's
                               memory on the node uses non-temporal stores (SIZE_MAX: never) */
    int spin_us;            /* REMORA_SPIN_US: how long a wait on the node spins before it sleeps */
    int net_spin_us;        /* REMORA_NET_SPIN_US: how long a wait for the network spins before it sleeps */
    int net_recheck_us;     /* REMORA_NET_RECHECK_US: how long a sleep on a word other nodes may write lasts */
    enum remora_shmem_barrier_choice shmem_barrier; /* REMORA_SHMEM_BARRIER=auto|central|dissemination:
                               OpenSHMEM's barrier on the node (auto: central when oversubscribed) */
};

/* Fills *cfg from the environment; a malformed value is reported and the default kept. */
void remora_config_read(struct remora_config *cfg);

#endif
