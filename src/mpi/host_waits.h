/* The host MPI's blocking calls, served through when the host has no
 * progress hook (host_progress.c): each then waits in the host's
 * non-blocking form and serves Remora's network requests meanwhile; on a
 * node with more processes than cores it yields the core between tests, and
 * after REMORA_SPIN_US without network peers to serve it naps (host_waits.c).
 *
 * The lists below are the calls that wait for other processes:
 *   REMORA_HOST_WAITS_NB(X)   X(name, iname, params, args): MPI_<name> is
 *                             MPI_<iname>(args..., &request) and a wait
 *                             (collectives, blocking sends);
 *   the receives, probes, Sendrecv(_replace) and the Wait family, written
 *   out in host_waits.c;
 *   REMORA_HOST_TESTS(X)      X(name, params, args): calls that poll once
 *                             (MPI_Test ..., MPI_Iprobe): they serve once
 *                             and call the host's.
 * Not covered (the progress thread serves a process waiting in them): the
 * MPI-4 large-count (_c) forms, persistent and partitioned initiations
 * (their waits are covered), communicator and window constructors, I/O. */
#ifndef REMORA_MPI_HOST_WAITS_H
#define REMORA_MPI_HOST_WAITS_H

#include <mpi.h>

/* Set by host_progress.c: the host has no progress hook, so the wrappers serve. */
extern int remora_host_waits_serve;

void remora_host_progress_init(void);
void remora_host_progress_finalize(void);

#define REMORA_HOST_WAITS_NB(X)                                                                                       \
    X(Send, Isend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm),                     \
      (buf, count, datatype, dest, tag, comm))                                                                         \
    X(Ssend, Issend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm),                    \
      (buf, count, datatype, dest, tag, comm))                                                                         \
    X(Rsend, Irsend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm),                    \
      (buf, count, datatype, dest, tag, comm))                                                                         \
    X(Bsend, Ibsend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm),                    \
      (buf, count, datatype, dest, tag, comm))                                                                         \
    X(Barrier, Ibarrier, (MPI_Comm comm), (comm))                                                                                \
    X(Bcast, Ibcast, (void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm),                                \
      (buffer, count, datatype, root, comm))                                                                           \
    X(Gather, Igather,                                                                                                          \
      (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,                        \
       MPI_Datatype recvtype, int root, MPI_Comm comm),                                                                \
      (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm))                                        \
    X(Gatherv, Igatherv,                                                                                                         \
      (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],               \
       const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm),                                            \
      (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm))                               \
    X(Scatter, Iscatter,                                                                                                         \
      (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,                        \
       MPI_Datatype recvtype, int root, MPI_Comm comm),                                                                \
      (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm))                                        \
    X(Scatterv, Iscatterv,                                                                                                        \
      (const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, void *recvbuf,          \
       int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm),                                                 \
      (sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm))                               \
    X(Allgather, Iallgather,                                                                                                       \
      (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,                        \
       MPI_Datatype recvtype, MPI_Comm comm),                                                                          \
      (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm))                                              \
    X(Allgatherv, Iallgatherv,                                                                                                      \
      (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],               \
       const int displs[], MPI_Datatype recvtype, MPI_Comm comm),                                                      \
      (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm))                                     \
    X(Alltoall, Ialltoall,                                                                                                        \
      (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,                        \
       MPI_Datatype recvtype, MPI_Comm comm),                                                                          \
      (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm))                                              \
    X(Alltoallv, Ialltoallv,                                                                                                       \
      (const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf,         \
       const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm),                             \
      (sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm))                          \
    X(Alltoallw, Ialltoallw,                                                                                                       \
      (const void *sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[],               \
       void *recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm),     \
      (sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm))                        \
    X(Reduce, Ireduce,                                                                                                          \
      (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm),      \
      (sendbuf, recvbuf, count, datatype, op, root, comm))                                                             \
    X(Allreduce, Iallreduce, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm),    \
      (sendbuf, recvbuf, count, datatype, op, comm))                                                                   \
    X(Reduce_scatter, Ireduce_scatter,                                                                                                  \
      (const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm),  \
      (sendbuf, recvbuf, recvcounts, datatype, op, comm))                                                              \
    X(Reduce_scatter_block, Ireduce_scatter_block,                                                                                            \
      (const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm),           \
      (sendbuf, recvbuf, recvcount, datatype, op, comm))                                                               \
    X(Scan, Iscan, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm),         \
      (sendbuf, recvbuf, count, datatype, op, comm))                                                                   \
    X(Exscan, Iexscan, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm),       \
      (sendbuf, recvbuf, count, datatype, op, comm))                                                                   \
    X(Neighbor_allgather, Ineighbor_allgather,                                                                                              \
      (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,                        \
       MPI_Datatype recvtype, MPI_Comm comm),                                                                          \
      (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm))                                              \
    X(Neighbor_allgatherv, Ineighbor_allgatherv,                                                                                             \
      (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],               \
       const int displs[], MPI_Datatype recvtype, MPI_Comm comm),                                                      \
      (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm))                                     \
    X(Neighbor_alltoall, Ineighbor_alltoall,                                                                                               \
      (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,                        \
       MPI_Datatype recvtype, MPI_Comm comm),                                                                          \
      (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm))                                              \
    X(Neighbor_alltoallv, Ineighbor_alltoallv,                                                                                              \
      (const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf,         \
       const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm),                             \
      (sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm))                          \
    X(Neighbor_alltoallw, Ineighbor_alltoallw,                                                                                              \
      (const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],          \
       void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],                \
       MPI_Comm comm),                                                                                                 \
      (sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm))

#define REMORA_HOST_TESTS(X)                                                                                          \
    X(Test, (MPI_Request * request, int *flag, MPI_Status *status), (request, flag, status))                          \
    X(Testall, (int count, MPI_Request array_of_requests[], int *flag, MPI_Status array_of_statuses[]),               \
      (count, array_of_requests, flag, array_of_statuses))                                                             \
    X(Testany, (int count, MPI_Request array_of_requests[], int *index, int *flag, MPI_Status *status),               \
      (count, array_of_requests, index, flag, status))                                                                 \
    X(Testsome,                                                                                                        \
      (int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[],                            \
       MPI_Status array_of_statuses[]),                                                                                \
      (incount, array_of_requests, outcount, array_of_indices, array_of_statuses))                                     \
    X(Request_get_status, (MPI_Request request, int *flag, MPI_Status *status), (request, flag, status))              \
    X(Iprobe, (int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status), (source, tag, comm, flag, status)) \
    X(Improbe, (int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message, MPI_Status *status),             \
      (source, tag, comm, flag, message, status))

#endif
