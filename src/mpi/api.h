/* Helpers shared by the MPI front-end files: each exported MPI_* function
 * turns its handle into a window, calls the engine and raises what it returns. */
#ifndef REMORA_MPI_API_H
#define REMORA_MPI_API_H

#include <mpi.h>

#include "core/errhandler.h"
#include "mpi/handle.h"

#define REMORA_API __attribute__((visibility("default")))

/* Every MPI function Remora serves is also its PMPI_ name, as in any MPI
 * library: the hosts' Fortran bindings (Open MPI's mpif.h, mpi and mpi_f08
 * layers; MPICH's mpi_f08) call the PMPI_ names, and a profiling tool's
 * wrapper calls them to reach the MPI.  Where Remora itself needs the host's
 * function of the same name: REMORA_HOST (runtime/host_mpi.h). */
#define REMORA_PMPI(name) extern __typeof__(name) P##name __attribute__((alias(#name), visibility("default")))

/* Raise `rc` (if not MPI_SUCCESS) on window w as the MPI function `fn`. */
static inline int remora_done(struct remora_win *w, int rc, const char *fn)
{
    return rc == MPI_SUCCESS ? rc : remora_raise(w, MPI_COMM_NULL, rc, fn, 0);
}

/* An invalid window handle: the error goes to MPI_COMM_WORLD's handler. */
static inline int remora_bad_win(const char *fn)
{
    return remora_raise(0, MPI_COMM_NULL, MPI_ERR_WIN, fn, "invalid window handle");
}

/* Declare `w` from handle `h`, or return MPI_ERR_WIN. */
#define REMORA_WIN_OR_RETURN(w, h)                         \
    struct remora_win *w = remora_win_from_handle(h);      \
    if (__builtin_expect(!w, 0))                           \
        return remora_bad_win(__func__)

#endif
