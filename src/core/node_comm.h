/* MPI_COMM_TYPE_SHARED as Remora sees it: the processes that can map each
 * other's memory.  The host MPI answers by its launcher's view of hosts,
 * which counts containers or namespaces on one machine as one node; windows
 * of MPI_Win_allocate_shared need the processes that really share memory. */
#ifndef REMORA_CORE_NODE_COMM_H
#define REMORA_CORE_NODE_COMM_H

#include <mpi.h>

/* The host's split, split again by the runtime's verified shm_key. */
int remora_comm_split_shared(MPI_Comm comm, int key, MPI_Info info, MPI_Comm *newcomm);

#endif
