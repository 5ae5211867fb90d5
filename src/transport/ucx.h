/* The net transport's own header, shared by its files (ucx.c: UCX's context,
 * the communication resource instances, progress, wire-up, keys and UCX's
 * RMA and atomics; ucx_msg.c: RMA by Remora's own messages, for networks whose
 * RMA UCX carries out in software).  Nothing outside transport/ includes it.
 * Both call UCX only through remora_ucx (ucx_api.h): Remora links no UCX. */
#ifndef REMORA_TRANSPORT_UCX_H
#define REMORA_TRANSPORT_UCX_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include "transport/ucx_api.h"

#include "transport/transport.h"

#define MAX_INSTANCES 64
#define MAX_FETCHES 16

struct msg_peer; /* ucx_msg.c */

/* A communication resource instance: a worker, its endpoints, its lock. */
struct instance {
    pthread_mutex_t lock;
    ucp_worker_h worker;
    ucp_ep_h *eps;       /* by world rank, made on first use     */
    uint8_t *dirty;      /* by world rank: UCX RMA posted since the last flush */
    struct msg_peer **msg; /* by world rank: RMA by messages (ucx_msg.c), made on first use */
    _Atomic unsigned gathered; /* peers toward which a message is being gathered */
    _Atomic int busy;    /* used since its last complete flush: other threads' flushes skip it while 0 */
    _Atomic uint8_t *owes; /* by world rank: holds work toward it that a flush must complete */
    /* Fetching atomics posted without waiting (net_amo_nbi), each waited for
     * by the next flush toward its owner.  The reply is the atomic's remote
     * completion: a flush that finds only these needs no ucp_ep_flush round
     * trip.  Beyond MAX_FETCHES at once the owner is marked dirty instead. */
    struct {
        ucs_status_ptr_t req;
        int proc;
    } fetch[MAX_FETCHES];
    int nfetch;
    int id;              /* index in the instance table (-1: the target worker) */
    int efd;             /* the worker's wake-up fd (-1: none, waits only spin) */
    _Atomic int users;   /* threads using it */
};

/* The endpoint from instance `in` (locked) to a peer's target worker, or NULL. */
ucp_ep_h remora_ucx_endpoint(struct instance *in, int proc);
/* Progress instance `in` (locked) until done(arg): spinning, then asleep on
 * the worker's wake-up fd (ucx.c's wait rules).  REMORA_OK. */
remora_status_t remora_ucx_wait_until(struct instance *in, int (*done)(void *), void *arg);
/* The target worker has carried out requests into our memory: ring the watch. */
void remora_ucx_served(void);

/* ---- RMA by messages (ucx_msg.c) ------------------------------------------------ */

/* The active-message handlers: replies on an instance's worker, requests on
 * the target worker (id -1). */
remora_status_t remora_msg_worker_init(struct instance *in);
/* Gather puts (put != 0) or gets of the blocks at owner address base +
 * v[i].off toward proc (instance locked); a full message leaves at once.
 * Complete at the reply to the next message sent with a reply request. */
remora_status_t remora_msg_add(struct instance *in, int proc, uintptr_t base, const struct remora_iov *v, size_t n, int put);
/* Gather a strided put (put != 0) or get (see remora_move_strided) toward
 * proc (instance locked), each message's share of its blocks as one entry. */
remora_status_t remora_msg_add_strided(struct instance *in, int proc, uintptr_t base, const struct remora_strided *s, int put);
/* Gather a call (remora_apply) on the owner proc's memory at base + v[i].off
 * (instance locked), in one message (M4); complete, its results here, at the
 * reply to that message or a later one. */
remora_status_t remora_msg_apply(struct instance *in, int proc, uintptr_t base, const void *head,
                     const struct remora_apply_piece *v, size_t n);
/* A call's piece carried out here, its first block at mem (the owner, under
 * the target lock): the old bytes to its result (unless NULL), then core's
 * function. */
void remora_msg_apply_here(char *mem, const void *head, const struct remora_apply_piece *v);
/* Send what was gathered toward proc, without a reply request unless it
 * needs one: what is sent after it toward proc stays behind it (M1). */
remora_status_t remora_msg_push(struct instance *in, int proc);
/* Send every message gathered, without reply requests (unless needed). */
remora_status_t remora_msg_push_all(struct instance *in);
/* Gather an add of x to the 8-byte word at the owner proc's address raddr
 * (instance locked), carried out in its turn (M1) with a CPU atomic, and
 * send the message without a reply request; returns once it has left this
 * process (it then arrives without further calls here). */
remora_status_t remora_msg_push_add(struct instance *in, int proc, uint64_t raddr, uint64_t x);
/* Send what was gathered toward proc (every peer: proc < 0) with a request
 * for a reply, if anything was; remora_msg_waiting then counts it. */
remora_status_t remora_msg_send(struct instance *in, int proc);
/* Whether replies toward proc (every peer: proc < 0) are outstanding. */
int remora_msg_waiting(struct instance *in, int proc);
/* Whether anything toward proc waits for a reply: gathered gets or fetching
 * calls, or replies outstanding. */
int remora_msg_owes_reply(struct instance *in, int proc);
/* The first failure a reply toward proc (every peer: proc < 0) reported since
 * the last call, which clears it. */
remora_status_t remora_msg_status(struct instance *in, int proc);
void remora_msg_free(struct instance *in);

#endif
