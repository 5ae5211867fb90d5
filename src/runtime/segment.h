/* Node-shared memory segments.
 *
 * One process of a node communicator creates an anonymous memfd; the others take
 * a copy of its file descriptor with pidfd_getfd (or /proc/<pid>/fd) and map it.
 * The segment has no name, so nothing can outlive the job, even when ranks are
 * killed with SIGKILL.  Only where neither works (old kernels, ptrace forbidden)
 * a POSIX shm name is used, and it is unlinked as soon as every process has
 * mapped it. */
#ifndef REMORA_RUNTIME_SEGMENT_H
#define REMORA_RUNTIME_SEGMENT_H

#include <mpi.h>
#include <stddef.h>
#include <sys/types.h>

struct remora_segment {
    void *addr;   /* where this process mapped it (NULL when size is 0) */
    size_t size;
    int fd_passing; /* members got the creator's fd (pidfd/proc): they can map
                       each other's memfd memory too (the MPI_Alloc_mem pool) */
};

/* Collective over comm, which may hold several sharing groups (one per node):
 * each process names the rank of comm that leads its group (`leader`) and the
 * group's segment size (same within a group); the leader creates the segment,
 * every member maps it (zero-filled).  Groups of one get private memory.
 * Returns MPI_SUCCESS or MPI_ERR_NO_MEM, identically on every process. */
int remora_segment_create(MPI_Comm comm, int leader, int group_size, size_t size, struct remora_segment *seg);

/* Local: unmaps.  Callers synchronise first so nobody still accesses it. */
void remora_segment_destroy(struct remora_segment *seg);

/* This process's copy of file descriptor fd of process pid (pidfd_getfd,
 * else /proc/<pid>/fd), or -1. */
int remora_fetch_peer_fd(pid_t pid, int fd);
/* The first size bytes of the file behind process pid's fd, mapped shared
 * here (the copy of the fd closed again), or NULL (errno says why). */
void *remora_map_peer_fd(pid_t pid, int fd, size_t size);

/* Private (not shared) anonymous memory with the same interface. */
int remora_segment_create_private(size_t size, struct remora_segment *seg);

#endif
