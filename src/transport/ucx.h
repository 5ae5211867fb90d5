/* The UCX transport: peers on other nodes (or every peer, with
 * REMORA_TRANSPORT=ucx) are reached with UCX put/get/atomics.
 *
 * Communication resource instances: each thread that communicates gets a UCX
 * worker of its own (found through thread-local storage), dedicated on first
 * use until REMORA_UCX_INSTANCES exist, then shared round-robin.  A worker is
 * used under its instance's lock; progress on behalf of others only try-locks,
 * so a thread that finds an instance busy moves on.  Endpoints are created per
 * instance on first use.  A separate "target" worker is where peers connect:
 * when the transports emulate RMA in software (TCP), a progress thread serves
 * it so that no operation waits for the target to call MPI. */
#ifndef REMORA_TRANSPORT_UCX_H
#define REMORA_TRANSPORT_UCX_H

#include <mpi.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "transport/transport.h"

#define REMORA_UCX_MAX_INSTANCES 64

/* One remote memory registration, as origins know it: packed by its owner,
 * unpacked per instance on first use (an rkey belongs to an endpoint). */
struct remora_ucx_rkey {
    void *packed;
    size_t len;
    void *unpacked[REMORA_UCX_MAX_INSTANCES]; /* ucp_rkey_h by instance id */
};

/* What remora_peer.net points to for peers reached through UCX. */
struct remora_ucx_target {
    int world_rank;
    struct remora_ucx_rkey *data_rkey; /* the window memory (NULL for dynamic windows) */
    struct remora_ucx_rkey *ctrl_rkey; /* the segment holding its control block      */
    uint64_t ctrl_addr;                /* its control block, in its address space     */
    uint64_t data_addr;                /* its window memory, in its address space     */
    uint64_t dyn_addr;                 /* dynamic windows: its region table           */
};

/* A communication resource instance: a worker, its endpoints, its lock. */
struct remora_ucx_instance {
    pthread_mutex_t lock;
    void *worker;            /* ucp_worker_h                                  */
    void **eps;              /* ucp_ep_h by world rank, made on first use     */
    uint8_t *dirty;          /* by world rank: operations posted since flush  */
    int id;                  /* index in remora_ucx.instance (-1: target)     */
    _Atomic int users;       /* threads using it                              */
};

/* The transport's state (in the runtime context). */
struct remora_ucx {
    pthread_mutex_t init_lock;   /* start-up, instance creation, addresses    */
    int ready;
    void *ctx;                   /* ucp_context_h                              */
    struct remora_ucx_instance target;  /* the worker peers reach us at        */
    struct remora_ucx_instance *_Atomic instance[REMORA_UCX_MAX_INSTANCES];
    _Atomic int ninstances;
    int max_instances;
    _Atomic unsigned round_robin;
    pthread_key_t thread_key;    /* releases a thread's instance when it ends */
    void *my_addr;               /* the target worker's address                */
    size_t my_addr_len;
    void **peer_addr;            /* by world rank, learned with windows        */
    size_t *peer_addr_len;
    int progress_started, efd;
    _Atomic int progress_stop;
    pthread_t progress_thread;
};

/* This process's registration of some memory, to be exchanged. */
struct remora_ucx_reg {
    void *memh;          /* ucp_mem_h (NULL when nothing was registered) */
    void *packed;        /* packed rkey */
    size_t len;
};

/* Start-up on first need (thread safe); MPI_SUCCESS or MPI_ERR_OTHER. */
int remora_ucx_init(void);
void remora_ucx_finalize(void);
/* Collective over comm: learn the target-worker addresses of comm's processes. */
int remora_ucx_exchange_addresses(MPI_Comm comm);

int remora_ucx_register(void *addr, size_t len, struct remora_ucx_reg *reg);
void remora_ucx_deregister(struct remora_ucx_reg *reg);
/* Collective over comm: every rank's packed rkey of `mine`, as rkeys[n]. */
int remora_ucx_exchange_rkeys(MPI_Comm comm, const struct remora_ucx_reg *mine, struct remora_ucx_rkey **rkeys);
void remora_ucx_rkeys_free(struct remora_ucx_rkey *rkeys, int n);
/* A single rkey made from a packed buffer (dynamic regions). */
int remora_ucx_rkey_init(struct remora_ucx_rkey *k, const void *packed, size_t len);
void remora_ucx_rkey_release(struct remora_ucx_rkey *k);

/* Data: remote address p->base + off, rkey from p->net.  0 or an errno.
 * Puts and gets complete at the next flush toward the target. */
int remora_ucx_put(const struct remora_peer *p, uint64_t off, const void *src, size_t len);
int remora_ucx_get(const struct remora_peer *p, uint64_t off, void *dst, size_t len);
/* Blocking read of len bytes at raddr (key k) of target t: done when it returns. */
int remora_ucx_read(const struct remora_ucx_target *t, struct remora_ucx_rkey *k, uint64_t raddr, void *dst,
                    size_t len);
/* A 64-bit atomic on the target's control word at ctrl_off; returns the old value. */
uint64_t remora_ucx_amo_ctrl(const struct remora_peer *p, size_t ctrl_off, enum remora_amo_op op, uint64_t operand,
                             uint64_t compare);
/* A 32- or 64-bit atomic on window memory p->base + off.  With `old` the call
 * waits and returns the old value there; without, it completes at the next
 * flush.  0 or an errno. */
int remora_ucx_amo_data(const struct remora_peer *p, uint64_t off, enum remora_amo_op op, size_t size,
                        uint64_t operand, uint64_t compare, uint64_t *old);
/* Remote completion of this process's operations (all threads) to p, or to all when p is NULL. */
int remora_ucx_flush(const struct remora_peer *p);
/* Progress for waiting callers: this thread's instance and the target worker (try-locks). */
void remora_ucx_progress(void);

#endif
