/* ---- deprecated active-set collectives: work array sizes ------------------------- */
/* The active-set collectives run on the host MPI's collectives and never touch
 * pSync or pWrk, so any size would do; these leave room for a pSync-based
 * algorithm later without changing what programs compiled now allocate. */
#define SHMEM_BARRIER_SYNC_SIZE 64
#define SHMEM_BCAST_SYNC_SIZE 64
#define SHMEM_COLLECT_SYNC_SIZE 64
#define SHMEM_REDUCE_SYNC_SIZE 64
#define SHMEM_ALLTOALL_SYNC_SIZE 64
#define SHMEM_ALLTOALLS_SYNC_SIZE 64
#define SHMEM_SYNC_SIZE 64
#define SHMEM_REDUCE_MIN_WRKDATA_SIZE 64
#define SHMEM_SYNC_VALUE (-1L)
#define _SHMEM_BARRIER_SYNC_SIZE SHMEM_BARRIER_SYNC_SIZE
#define _SHMEM_BCAST_SYNC_SIZE SHMEM_BCAST_SYNC_SIZE
#define _SHMEM_COLLECT_SYNC_SIZE SHMEM_COLLECT_SYNC_SIZE
#define _SHMEM_REDUCE_SYNC_SIZE SHMEM_REDUCE_SYNC_SIZE
#define _SHMEM_ALLTOALL_SYNC_SIZE SHMEM_ALLTOALL_SYNC_SIZE
#define _SHMEM_ALLTOALLS_SYNC_SIZE SHMEM_ALLTOALLS_SYNC_SIZE
#define _SHMEM_SYNC_SIZE SHMEM_SYNC_SIZE
#define _SHMEM_REDUCE_MIN_WRKDATA_SIZE SHMEM_REDUCE_MIN_WRKDATA_SIZE
#define _SHMEM_SYNC_VALUE SHMEM_SYNC_VALUE
