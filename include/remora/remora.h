/* Remora: fast, thread-scalable MPI one-sided communication.
 * Public extensions; the MPI API itself comes from the host's mpi.h. */
#ifndef REMORA_REMORA_H
#define REMORA_REMORA_H

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

#define REMORA_VERSION_MAJOR 0
#define REMORA_VERSION_MINOR 1
#define REMORA_VERSION_PATCH 0

/* "remora 0.1.0 (openmpi)": the library's version and the host MPI it serves. */
const char *remora_version(void);

/* Nonzero when the calling process's RMA calls are served by Remora
 * (libremora is linked or preloaded and MPI is initialised). */
int remora_active(void);

/* Nonzero when `win` is a window Remora serves (C handle; from Fortran,
 * convert with MPI_Win_f2c first). */
int remora_win_served(MPI_Win win);

#ifdef __cplusplus
}
#endif
#endif
