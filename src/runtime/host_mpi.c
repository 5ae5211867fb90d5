/* The host MPI's own entry points (host_mpi.h). */
#include "runtime/host_mpi.h"
#include "runtime/log.h"

#include <dlfcn.h>

void *remora_host_symbol(const char *name)
{
    void *f = dlsym(RTLD_NEXT, name);
    if (!f)
        remora_fatal("the host MPI library has no %s (is Remora loaded before it?)", name);
    return f;
}
