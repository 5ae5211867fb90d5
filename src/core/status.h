/* Transport statuses as MPI error classes: the one place where the
 * transport's convention (transport/transport.h) meets MPI's. */
#ifndef REMORA_CORE_STATUS_H
#define REMORA_CORE_STATUS_H

#include <mpi.h>

#include "core/errhandler.h"
#include "transport/transport.h"

static inline int remora_status_class(remora_status_t status)
{
    switch (status.code) {
    case REMORA_S_OK: return MPI_SUCCESS;
    case REMORA_S_NO_MEM: return MPI_ERR_NO_MEM;
    case REMORA_S_UNSUPPORTED: return MPI_ERR_UNSUPPORTED_OPERATION;
    case REMORA_S_UNREACHABLE: /* the peer or the network failed */
    case REMORA_S_IO:
    case REMORA_S_INVALID:
    default: return MPI_ERR_OTHER;
    }
}

/* MPI_SUCCESS, or the class of `status` with what failed as the error's
 * detail.  `status` is evaluated once (it is often the call itself). */
#define remora_status_err(status, what, ...)                                                               \
    __extension__({                                                                                         \
        remora_status_t st_ = (status);                                                                     \
        remora_ok(st_) ? MPI_SUCCESS                                                                        \
                       : remora_err(remora_status_class(st_), what ": %s", ##__VA_ARGS__, remora_status_str(st_)); \
    })

#endif
