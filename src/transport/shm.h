/* The shm transport's two operation tables, for the layer's own use (keys.c
 * chooses between them; core never names them):
 *   remora_shm_mapped  memory mapped here (myself, node-shared segments, peers'
 *                      MPI_Alloc_mem pool chunks): load/store, CPU atomics;
 *   remora_shm_cma     memory of a process the runtime verified to share this
 *                      kernel and pid namespace, not mapped here:
 *                      process_vm_readv/writev on its pid (rmem.key), no atomics;
 *   shm-split          such memory whose whole pages its owner moved into
 *                      shared memory: those mapped, the rest by CMA (shm_split.c);
 *                      mapped (the key owning the mapping) when all of it was
 *                      moved. */
#ifndef REMORA_TRANSPORT_SHM_H
#define REMORA_TRANSPORT_SHM_H

#include <sys/types.h>
#include <sys/uio.h>

#include "runtime/pool.h"
#include "transport/transport.h"

extern const struct remora_transport remora_shm_mapped;
extern const struct remora_transport remora_shm_cma;

/* The atomic of memory reached (at least in part) by CMA: REMORA_ERR_UNSUPPORTED. */
remora_status_t remora_shm_no_amo(const struct remora_rmem *m, uint64_t off, size_t size, enum remora_amo_op op,
                                  uint64_t operand, uint64_t compare, uint64_t *fetched);

/* len bytes of memory at `at` here, in the mapping [map, map + len_map) that
 * *out owns from now on (mapped, CPU atomics): 1, or 0 when out of memory. */
int remora_shm_mapped_owning(int proc, char *at, void *map, size_t len_map, struct remora_rmem *out);

/* The len bytes of process pid at addr whose pages `pages` its owner moved
 * into shared memory (runtime/shared_pages.h): 1 and *out reaching them
 * mapped here, the rest by CMA (shm_split.c); or 0 when they cannot be
 * mapped. */
int remora_shm_split_unpack(int proc, pid_t pid, uint64_t addr, uint64_t len, const struct remora_pool_ref *pages,
                            struct remora_rmem *out);

/* process_vm_writev/readv of whole iovec lists (loops over partial transfers
 * and IOV_MAX).  REMORA_OK or REMORA_ERR_IO. */
remora_status_t remora_cma_writev(pid_t pid, const struct iovec *local, size_t nlocal, const struct iovec *remote, size_t nremote);
remora_status_t remora_cma_readv(pid_t pid, const struct iovec *local, size_t nlocal, const struct iovec *remote, size_t nremote);

#endif
