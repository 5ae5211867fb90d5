/* MPICH 4.0 and 4.1's MPI_Finalize across nodes, kept from deadlocking (host_finalize.c). */
#ifndef REMORA_MPI_HOST_FINALIZE_H
#define REMORA_MPI_HOST_FINALIZE_H

/* Right before the host's MPI_Finalize: under an MPICH older than 4.2, serve
 * its UCX worker from its first endpoint close until it destroys the worker.
 * Nothing under other hosts. */
void remora_host_finalize_begin(void);

#endif
