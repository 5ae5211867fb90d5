/* Collectives (coll.c, coll_active.c, coll_shm.c, coll_hier.c): what the generated typed routines of
 * gen/coll.py are made of.
 *
 * Each collective runs on a *group*: the host MPI communicator of a team
 * (struct remora_shmem_team.comm, ranked as the team) or of a deprecated
 * active set (PE_start, logPE_stride, PE_size; coll_active.c keeps one
 * communicator per set).  The data moves with the host MPI's collectives
 * (PMPI_Bcast, Allgather[v], Alltoall, Allreduce, Scan, Exscan) on that
 * communicator, unless every PE of the group maps every other's heap (they
 * are on this node): then the group has a slot in the heaps (coll_shm.c) and
 * its collectives run in shared memory, with no MPI call.  A group across
 * nodes with several PEs on some node syncs and reduces as a hierarchy
 * (coll_hier.c).  Either way, threads may run collectives on different teams
 * at once (the host allows concurrent collectives on distinct communicators;
 * each group has its own slots).
 *
 * Team routines return 0, or nonzero for SHMEM_TEAM_INVALID, a root outside
 * the team or a failure of the host MPI; active-set routines return nothing,
 * so they end the job with a message naming the routine on bad input. */
#ifndef REMORA_SHMEM_COLL_H
#define REMORA_SHMEM_COLL_H

#include <mpi.h>
#include <shmem.h>
#include <stddef.h>
#include <stdint.h>

/* The MPI types of C types whose MPI name depends on the platform: MPI has
 * no arithmetic on MPI_CHAR, so plain char reduces as the signed or unsigned
 * char it is. */
#define REMORA_MPI_CHAR_ARITH (((char)-1 < 0) ? MPI_SIGNED_CHAR : MPI_UNSIGNED_CHAR)
#define REMORA_MPI_SIZE_T (sizeof(size_t) == 8 ? MPI_UINT64_T : MPI_UINT32_T)
#define REMORA_MPI_PTRDIFF_T (sizeof(ptrdiff_t) == 8 ? MPI_INT64_T : MPI_INT32_T)

/* SUM, PROD, MAX and MIN on integers are computed by the engine's reduction
 * kernels (core/reduce.h: modulo 2^bits, unsigned compared as unsigned) in
 * operations of our own, because the hosts get them wrong: MPICH 4.0.2
 * compares unsigned integers as signed (pmodels/mpich#6083), Open MPI 4.1.4
 * does so for MPI_UNSIGNED_LONG (open-mpi/ompi#10525) and its AVX kernels
 * saturate 8- and 16-bit sums instead of wrapping (open-mpi/ompi#8045);
 * tests/shmem/coll_reduce catches each.  Bitwise operations and floating
 * point and complex types use the host's operations. */
enum remora_shmem_int_op { REMORA_SHMEM_INT_SUM, REMORA_SHMEM_INT_PROD, REMORA_SHMEM_INT_MAX, REMORA_SHMEM_INT_MIN };
MPI_Op remora_shmem_int_op(enum remora_shmem_int_op op);

/* A group's shared-memory state (coll_shm.c): its slot in the heaps of its
 * PEs (-1: none, the group uses its communicator), how many collectives it has
 * begun, and its PEs' world numbers by rank.  One collective at a time per
 * group, as the spec requires of the program. */
struct remora_shmem_coll_shm {
    int slot;
    int central; /* the barrier: central (an oversubscribed node) or dissemination */
    uint64_t epoch;
    const int *world_pe;
};

/* The PEs a collective runs on: the communicator, this PE's rank, the size,
 * and how its collectives run: in shared memory (shm), or as a hierarchy
 * (hier: a group that spans nodes, with several PEs on some node), or when
 * both are NULL with the communicator's collectives. */
struct remora_shmem_group {
    MPI_Comm comm;
    int me, n;
    struct remora_shmem_coll_shm *shm;
    struct remora_shmem_coll_hier *hier;
};

/* A group across nodes (coll_hier.c): its PEs on this node, which run in
 * shared memory among themselves when they get a slot, and the first PE of
 * each node, which run the host MPI's collectives among themselves
 * (leaders.comm is MPI_COMM_NULL at the other PEs). */
struct remora_shmem_coll_hier {
    struct remora_shmem_group node, leaders;
    struct remora_shmem_coll_shm shm;
    int *node_world_pe;
};

/* ---- how a group runs its collectives (coll_hier.c) ---------------------------------- */
/* Collective over comm, whose rank i is world PE world_pe[i] (an array that
 * outlives the state): a shared-memory slot when every PE maps every other's
 * heap, else a hierarchy when the group has several PEs on some node, else
 * neither (*h NULL, s->slot -1).  Detach is local. */
void remora_shmem_coll_attach(struct remora_shmem_coll_shm *s, struct remora_shmem_coll_hier **h, MPI_Comm comm,
                              const int *world_pe, int n);
void remora_shmem_coll_detach(struct remora_shmem_coll_shm *s, struct remora_shmem_coll_hier **h);
int remora_shmem_hier_sync(const struct remora_shmem_coll_hier *h);
int remora_shmem_hier_reduce(const struct remora_shmem_coll_hier *h, void *dest, const void *source, size_t nreduce,
                             MPI_Datatype type, size_t elem, MPI_Op op);

/* ---- shared-memory collectives (coll_shm.c) --------------------------------------- */
/* Collective over comm, whose rank i is world PE world_pe[i] (an array that
 * outlives the state), PEs whose heaps this PE maps (remora_shmem_coll_attach
 * checks): a slot free at every PE, else slot -1 (none free, or too many PEs).  Detach is local (after the group's last collective here
 * nobody writes into this PE's slot any more). */
void remora_shmem_coll_shm_attach(struct remora_shmem_coll_shm *s, MPI_Comm comm, const int *world_pe, int n);
void remora_shmem_coll_shm_detach(struct remora_shmem_coll_shm *s);
void remora_shmem_shm_sync(const struct remora_shmem_group *g);
void remora_shmem_shm_broadcast(const struct remora_shmem_group *g, void *dest, const void *source, size_t bytes,
                                int root, int root_too);
void remora_shmem_shm_collect(const struct remora_shmem_group *g, void *dest, const void *source, size_t bytes,
                              int fixed);
void remora_shmem_shm_alltoalls(const struct remora_shmem_group *g, void *dest, const void *source, ptrdiff_t dst,
                                ptrdiff_t sst, size_t nelems, size_t elem);
/* A reduction over the group (scan 0) or a scan (scan 1: over the ranks up to
 * this PE's, without it when exclusive; rank 0 of an exclusive scan gets zeros). */
void remora_shmem_shm_reduce(const struct remora_shmem_group *g, void *dest, const void *source, size_t nelems,
                             MPI_Datatype type, size_t elem, MPI_Op op, int scan, int exclusive);

/* Waits for every PE of the group: shared memory or the communicator's barrier. */
int remora_shmem_group_sync(const struct remora_shmem_group *g);

/* Aborts naming the routine and the argument unless [addr, addr + len) is
 * symmetric memory. */
void remora_shmem_check_symmetric(const char *routine, const char *arg, const void *addr, size_t len);

/* ---- the group operations (coll.c); elem: bytes per element ------------------------ */
int remora_shmem_group_broadcast(const struct remora_shmem_group *g, void *dest, const void *source, size_t nelems,
                                 size_t elem, int root, int root_too);
int remora_shmem_group_collect(const struct remora_shmem_group *g, void *dest, const void *source, size_t nelems,
                               size_t elem);
int remora_shmem_group_fcollect(const struct remora_shmem_group *g, void *dest, const void *source, size_t nelems,
                                size_t elem);
int remora_shmem_group_alltoalls(const struct remora_shmem_group *g, void *dest, const void *source, ptrdiff_t dst,
                                 ptrdiff_t sst, size_t nelems, size_t elem);
int remora_shmem_group_reduce(const struct remora_shmem_group *g, void *dest, const void *source, size_t nreduce,
                              MPI_Datatype type, size_t elem, MPI_Op op);
int remora_shmem_group_scan(const struct remora_shmem_group *g, void *dest, const void *source, size_t nelems,
                            MPI_Datatype type, size_t elem, MPI_Op op, int exclusive);

/* ---- team collectives (coll.c) ---------------------------------------------------- */
int remora_shmem_broadcast(const char *routine, shmem_team_t team, void *dest, const void *source, size_t nelems,
                           size_t elem, int root);
int remora_shmem_collect(const char *routine, shmem_team_t team, void *dest, const void *source, size_t nelems,
                         size_t elem);
int remora_shmem_fcollect(const char *routine, shmem_team_t team, void *dest, const void *source, size_t nelems,
                          size_t elem);
int remora_shmem_alltoalls(const char *routine, shmem_team_t team, void *dest, const void *source, ptrdiff_t dst,
                           ptrdiff_t sst, size_t nelems, size_t elem);
int remora_shmem_reduce(const char *routine, shmem_team_t team, void *dest, const void *source, size_t nreduce,
                        MPI_Datatype type, size_t elem, MPI_Op op);
int remora_shmem_scan(const char *routine, shmem_team_t team, void *dest, const void *source, size_t nelems,
                      MPI_Datatype type, size_t elem, MPI_Op op, int exclusive);

/* ---- deprecated active-set collectives (coll_active.c) ---------------------------- */
/* The group of the active set, made (collectively over its members) on first use. */
void remora_shmem_active_set(const char *routine, int PE_start, int logPE_stride, int PE_size,
                             struct remora_shmem_group *g);
void remora_shmem_barrier_as(const char *routine, int PE_start, int logPE_stride, int PE_size, int quiet);
void remora_shmem_broadcast_as(const char *routine, void *dest, const void *source, size_t nelems, size_t elem,
                               int root, int PE_start, int logPE_stride, int PE_size);
void remora_shmem_collect_as(const char *routine, void *dest, const void *source, size_t nelems, size_t elem,
                             int fixed, int PE_start, int logPE_stride, int PE_size);
void remora_shmem_alltoalls_as(const char *routine, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,
                               size_t nelems, size_t elem, int PE_start, int logPE_stride, int PE_size);
void remora_shmem_reduce_as(const char *routine, void *dest, const void *source, int nreduce, MPI_Datatype type,
                            size_t elem, MPI_Op op, int PE_start, int logPE_stride, int PE_size);
/* shmem_finalize: frees the active sets' communicators. */
void remora_shmem_active_sets_free(void);

#endif
