/* The OpenSHMEM profiling interface, served by Remora: every routine shmem_X
 * of <shmem.h> is also pshmem_X, and shmem.h declares both (a profiling
 * tool defines shmem_X, which overrides the library's weak shmem_X, and
 * calls pshmem_X).  This header is Remora's own, so that a program that
 * includes <pshmem.h> gets the declarations of the shmem.h it is built
 * with, not another OpenSHMEM's (Open MPI installs a pshmem.h of its own). */
#ifndef REMORA_PSHMEM_H
#define REMORA_PSHMEM_H

#include "shmem.h"

#endif
