/* OpenSHMEM extensions of Remora: none yet.  Programs that include
 * <shmemx.h> for an implementation's extensions get the standard API. */
#ifndef REMORA_SHMEMX_H
#define REMORA_SHMEMX_H

#include <shmem.h>

#endif
