/* Transport statuses as MPI error classes: the one place where the
 * transport's convention (transport/transport.h) meets MPI's. */
#ifndef REMORA_CORE_STATUS_H
#define REMORA_CORE_STATUS_H

#include <mpi.h>

#include "core/errhandler.h"
#include "transport/transport.h"

static inline int remora_status_class(int status)
{
    switch (status) {
    case REMORA_OK: return MPI_SUCCESS;
    case REMORA_ERR_NO_MEM: return MPI_ERR_NO_MEM;
    case REMORA_ERR_UNSUPPORTED: return MPI_ERR_UNSUPPORTED_OPERATION;
    default: return MPI_ERR_OTHER; /* the peer or the network failed */
    }
}

/* MPI_SUCCESS, or the class of `status` with what failed as the error's detail. */
#define remora_status_err(status, what, ...)                                                               \
    ((status) == REMORA_OK ? MPI_SUCCESS                                                                    \
                           : remora_err(remora_status_class(status), what ": %s", ##__VA_ARGS__,             \
                                        remora_status_str(status)))

#endif
