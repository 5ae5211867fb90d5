/* The profiling interface of Remora's OpenSHMEM extensions (none yet, see
 * shmemx.h): here so that <pshmemx.h> is Remora's, not another OpenSHMEM's. */
#ifndef REMORA_PSHMEMX_H
#define REMORA_PSHMEMX_H

#include "pshmem.h"
#include "shmemx.h"

#endif
