/* The host MPI's own entry points for the functions Remora serves itself.
 *
 * Remora exports each MPI function it serves under its PMPI_ name too, as
 * every MPI library does (the hosts' Fortran bindings and profiling tools call
 * the PMPI_ names).  Inside Remora a call to such a PMPI_ name would then
 * come back to Remora; where Remora means the host's (the host's MPI_Init
 * under Remora's, the window that anchors a host error handler), it calls
 *   REMORA_HOST(MPI_Init)(argc, argv)
 * which is the host library's PMPI_Init, looked up once with
 * dlsym(RTLD_NEXT): the next library after Remora's in the search order,
 * whether Remora is preloaded or linked before the MPI library. */
#ifndef REMORA_RUNTIME_HOST_MPI_H
#define REMORA_RUNTIME_HOST_MPI_H

#include <mpi.h>

/* The host's symbol `name` (e.g. "PMPI_Init"); fatal if it has none. */
void *remora_host_symbol(const char *name);

#define REMORA_HOST(name)                                                             \
    (*({                                                                              \
        static __typeof__(&P##name) remora_host_fn_;                                  \
        __typeof__(&P##name) f_ = __atomic_load_n(&remora_host_fn_, __ATOMIC_ACQUIRE); \
        if (!f_) {                                                                    \
            f_ = (__typeof__(&P##name))remora_host_symbol("P" #name);                 \
            __atomic_store_n(&remora_host_fn_, f_, __ATOMIC_RELEASE);                 \
        }                                                                             \
        f_;                                                                           \
    }))

#endif
