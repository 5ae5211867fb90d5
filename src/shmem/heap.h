/* The symmetric heap's memory: reserved address space, committed and
 * registered in extents as it grows, mapped by the PEs of the node. */
#ifndef REMORA_SHMEM_HEAP_H
#define REMORA_SHMEM_HEAP_H

#include <stddef.h>

/* The start of every PE's heap, before what shmem_malloc hands out: its
 * doorbell (wait.c), then the slots of the shared-memory collectives
 * (coll_shm.c), which the PEs of a team on this node write into each other. */
#define REMORA_SHMEM_DOORBELL_BYTES 64
#define REMORA_SHMEM_COLL_SLOTS 32
#define REMORA_SHMEM_COLL_ROUNDS 16     /* dissemination rounds: teams of up to 2^16 PEs */
#define REMORA_SHMEM_COLL_AREA 8192     /* bytes of each of a slot's two data areas      */
#define REMORA_SHMEM_COLL_SLOT_BYTES (REMORA_SHMEM_COLL_ROUNDS * 64 + 2 * REMORA_SHMEM_COLL_AREA)
#define REMORA_SHMEM_HEAP_FIRST (REMORA_SHMEM_DOORBELL_BYTES + REMORA_SHMEM_COLL_SLOTS * REMORA_SHMEM_COLL_SLOT_BYTES)

/* The alignment of every PE's heap base (and of the views of the node's
 * heaps): shmem_align up to this alignment is aligned on every PE whatever
 * the bases; beyond it only where the bases agree modulo the alignment (they
 * do when every PE has its heap at one address, the usual case). */
#define REMORA_SHMEM_BASE_ALIGN ((size_t)1 << 30)

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
