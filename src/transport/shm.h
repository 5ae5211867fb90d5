/* The shm transport's two operation tables, for the layer's own use (keys.c
 * chooses between them; core never names them):
 *   remora_shm_mapped  memory mapped here (myself, node-shared segments, peers'
 *                      MPI_Alloc_mem pool chunks): load/store, CPU atomics;
 *   remora_shm_cma     memory of a process the runtime verified to share this
 *                      kernel and pid namespace, not mapped here:
 *                      process_vm_readv/writev on its pid (rmem.key), no atomics. */
#ifndef REMORA_TRANSPORT_SHM_H
#define REMORA_TRANSPORT_SHM_H

#include <sys/types.h>
#include <sys/uio.h>

#include "transport/transport.h"

extern const struct remora_transport remora_shm_mapped;
extern const struct remora_transport remora_shm_cma;

/* process_vm_writev/readv of whole iovec lists (loops over partial transfers
 * and IOV_MAX).  REMORA_OK or REMORA_ERR_IO. */
remora_status_t remora_cma_writev(pid_t pid, const struct iovec *local, size_t nlocal, const struct iovec *remote, size_t nremote);
remora_status_t remora_cma_readv(pid_t pid, const struct iovec *local, size_t nlocal, const struct iovec *remote, size_t nremote);

#endif
