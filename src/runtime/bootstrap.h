/* Bootstrap collectives over the host MPI: how the layers above exchange
 * what they need at start-up and window creation (addresses, keys).  Each is
 * collective over comm and returns the same status on every process, so that
 * a failure in one process never leaves the others waiting. */
#ifndef REMORA_RUNTIME_BOOTSTRAP_H
#define REMORA_RUNTIME_BOOTSTRAP_H

#include <mpi.h>
#include <stddef.h>

/* 1 on every process if ok is nonzero on every process, else 0. */
int remora_boot_agree(MPI_Comm comm, int ok);

/* Every process's len bytes at buf, back to back in *all (malloc'd), with
 * process r's bytes at (*all + offs[r], lens[r]) (offs, lens malloc'd too).
 * MPI_SUCCESS or MPI_ERR_NO_MEM (then nothing is allocated), alike everywhere. */
int remora_boot_allgatherv(MPI_Comm comm, const void *buf, size_t len, char **all, size_t **offs, size_t **lens);

#endif
