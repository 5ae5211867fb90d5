/* Symmetric ranges made reachable by every PE (state.h's regions). */
#ifndef REMORA_SHMEM_REGIONS_H
#define REMORA_SHMEM_REGIONS_H

#include <stddef.h>

#include "transport/transport.h"

struct remora_shmem_region;

/* Collective: registers [base, base + len) (the same length at every PE),
 * exchanges the keys and fills fast[] and atom[] for every PE.  in_heap: the
 * range is part of the heap, so PEs whose heap is mapped here are reached
 * through their view.  REMORA_OK, or REMORA_ERR_NO_MEM alike everywhere. */
remora_status_t remora_shmem_region_publish(struct remora_shmem_region *r, void *base, size_t len, int in_heap);
/* Local. */
void remora_shmem_region_release(struct remora_shmem_region *r);

#endif
