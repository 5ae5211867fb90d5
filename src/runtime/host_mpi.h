/* The host MPI's own entry points for the functions Remora serves itself.
 *
 * Remora exports each MPI function it serves under its PMPI_ name too, as
 * every MPI library does (the hosts' Fortran bindings and profiling tools call
 * the PMPI_ names).  Inside Remora a call to such a PMPI_ name would then
 * come back to Remora; where Remora means the host's (the host's MPI_Init
 * under Remora's, MPI_Errhandler_free of a handler Remora did not make), it
 * calls
 *   REMORA_HOST(MPI_Init)(argc, argv)
 * which is the host library's PMPI_Init, looked up once with
 * dlsym(RTLD_NEXT): the next library after Remora's in the search order,
 * whether Remora is preloaded or linked before the MPI library.  Other host
 * symbols Remora defines too (MPICH's MPII_Keyval_set_proxy):
 * REMORA_HOST_FN(symbol). */
#ifndef REMORA_RUNTIME_HOST_MPI_H
#define REMORA_RUNTIME_HOST_MPI_H

#include <mpi.h>

/* The host's symbol `name` (e.g. "PMPI_Init"); fatal if it has none. */
void *remora_host_symbol(const char *name);

/* The host library's function `sym`, of the type of the declaration of `sym`
 * in scope (Remora's own definition of the same name, or mpi.h's). */
#define REMORA_HOST_FN(sym)                                                           \
    (*({                                                                              \
        static __typeof__(&sym) remora_host_fn_;                                      \
        __typeof__(&sym) f_ = __atomic_load_n(&remora_host_fn_, __ATOMIC_ACQUIRE);    \
        if (!f_) {                                                                    \
            f_ = (__typeof__(&sym))remora_host_symbol(#sym);                          \
            __atomic_store_n(&remora_host_fn_, f_, __ATOMIC_RELEASE);                 \
        }                                                                             \
        f_;                                                                           \
    }))

#define REMORA_HOST(name) REMORA_HOST_FN(P##name)

#endif
