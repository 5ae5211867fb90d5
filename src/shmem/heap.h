/* The symmetric heap's memory: reserved address space, committed and
 * registered in extents as it grows, mapped by the PEs of the node. */
#ifndef REMORA_SHMEM_HEAP_H
#define REMORA_SHMEM_HEAP_H

#include <stddef.h>

/* Collective (shmem_init): reserve, commit the first extent, map the node's
 * heaps.  0, or -1 with a message (alike everywhere). */
int remora_shmem_heap_init(void);
/* Collective: commit up to `size` bytes (> committed), register the new
 * extent and map it at the node's PEs.  0, or -1 with a message when the
 * reservation or the system cannot give it (alike everywhere). */
int remora_shmem_heap_grow(size_t size);
/* Local (shmem_finalize, after a barrier). */
void remora_shmem_heap_finalize(void);
/* alloc.c, at shmem_finalize: forget every allocation. */
void remora_shmem_alloc_finalize(void);

#endif
