/* The net transport (UCX), for the layer's own use: keys.c registers and
 * unpacks memory with it; core reaches it only through struct remora_rmem.
 *
 * Communication resource instances: each thread that communicates gets a UCX
 * worker of its own (found through thread-local storage), dedicated on first
 * use until REMORA_UCX_INSTANCES exist, then shared.  A worker is used under
 * its instance's lock; progress on behalf of others only try-locks, so a
 * thread that finds an instance busy moves on.  Endpoints are made per
 * instance on first use.  A separate target worker is where peers connect
 * (UCX emulates RMA and atomics in software over TCP: the target's CPU
 * carries them out).  Whoever waits serves it: a thread waiting in the host
 * MPI (remora_net_serve, called from the host's progress), a thread waiting
 * in Remora; a progress thread serves it only while nobody else does, for a
 * process that computes outside MPI. */
#ifndef REMORA_TRANSPORT_NET_H
#define REMORA_TRANSPORT_NET_H

#include <stddef.h>
#include <stdint.h>

#include "transport/transport.h"

extern const struct remora_transport remora_net;

/* The network runs (remora_net_wireup succeeded at least once). */
int remora_net_running(void);
/* Register [addr, addr+len) and pack its remote key into packed[cap]. */
remora_status_t remora_net_register(void *addr, size_t len, void **reg, void *packed, size_t cap, size_t *packed_len);
void remora_net_deregister(void *reg);
/* The rmem of proc's memory registered at owner address `base` with this packed key. */
remora_status_t remora_net_unpack(int proc, const void *packed, size_t len, uintptr_t base, struct remora_rmem *out);
void remora_net_progress(void);
void remora_net_pause(void);
/* The target worker, progressed by a thread that waits in the host MPI. */
int remora_net_serve(void);
int remora_net_serving(void);
void remora_net_finalize(void);

#endif
