/* The host MPI's own entry points (host_mpi.h).
 *
 * Which host: whichever MPI the process has.  libremora links no MPI library
 * (src/CMakeLists.txt); it is compiled against Debian's Open MPI 4.1.4 and
 * MPICH 4.0.2 headers and serves, unchanged, the MPIs of the same ABI that
 * remora-run accepts.  What was checked (issue 31), against the PyPI wheels
 * Open MPI 5.0.11, MPICH 5.0.2 and Intel MPI 2021.19 (runtime only, no
 * headers: taken as the MPICH ABI it declares, libmpi.so.12):
 *
 *   symbols      every undefined symbol of libremora.so / libremora-shmem.so
 *                (nm -D --undefined-only) is defined by Open MPI 5's
 *                libmpi.so.40, of libremora-mpich.so / -shmem-mpich.so by
 *                MPICH 5's and Intel MPI's libmpi.so.12, and so is every name
 *                looked up here with REMORA_HOST (Open MPI's MPII_* aside:
 *                MPICH only).  MPI_UB / MPI_LB (ompi_mpi_ub/lb, gone in Open
 *                MPI 5) are not referenced; predefined objects are reached
 *                through the GOT, so their sizes (padding of Open MPI's
 *                predefined structs) do not matter.
 *   constants    Open MPI 4.1.4 vs 5.0.11 mpi.h: the same error classes up to
 *                MPI_ERR_RMA_SHARED 71 and MPI_ERR_LASTCODE 92 (5.0 adds
 *                classes 74-79, which Remora never raises), MPI_MAX_* (via
 *                OPAL_MAX_*: the same), thread levels, MPI_MODE_*, MPI_LOCK_*,
 *                the window attribute keyvals and flavours, MPI_ANY_*,
 *                MPI_PROC_NULL, MPI_UNDEFINED: identical.  MPICH 4.0.2 vs
 *                5.0.2: handles of every predefined object Remora's header
 *                knows, error classes (5.0 adds MPI_ERR_ERRHANDLER 80,
 *                MPI_ERR_ABI 81; MPI_ERR_LASTCODE 0x3fffffff both), keyvals
 *                (MPI_WIN_BASE 0x66000001...), MPI_WIN_NULL, thread levels:
 *                identical; MPI_Count and MPI_Offset long -> long long, 64
 *                bits both.
 *   layouts      MPI_Status: Open MPI {SOURCE, TAG, ERROR, _cancelled,
 *                size_t _ucount}, MPICH {count_lo, count_hi_and_cancelled,
 *                SOURCE, TAG, ERROR}: unchanged in 5.0 / 5.0.2; handles
 *                pointers (Open MPI) and ints (MPICH) both.
 *   Fortran      MPI_Fint int both; Open MPI's Fortran status 6 ints both
 *                (5.0 names it MPI_F_STATUS_SIZE); MPICH's MPIR_Attr_type
 *                (PTR 0, AINT 1, INT 3) and MPII_Win_get_attr /
 *                MPII_Win_set_attr / MPII_Keyval_set_proxy, which
 *                mpi/fortran_attr.c defines, are what Intel MPI's
 *                libmpifort.so.12 calls too.  (The Open MPI 5 and MPICH 5
 *                wheels carry no Fortran library: not exercised there.)
 *   hooks        opal_progress_register / _unregister (mpi/host_progress.c)
 *                live in libopen-pal.so.80 under Open MPI 5, looked up with
 *                RTLD_DEFAULT: found there ("serving network requests in the
 *                host's progress" under the 5.0.11 wheel), since remora-run
 *                preloads the program's libmpi and with it libopen-pal.
 *   environment  OMPI_COMM_WORLD_LOCAL_SIZE (runtime/context.c) is set by
 *                Open MPI 5's prterun too.
 *   predefined   What differs: datatypes new in the newer headers (MPICH 5:
 *   datatypes    MPI_REAL2, MPI_COMPLEX4, MPI_LOGICAL1..16, and MPI_INTEGER16,
 *                MPI_DATATYPE_NULL in 4.0.2's header; Open MPI 5: MPI_REAL2,
 *                MPI_COMPLEX4) are not in Remora's compiled table of
 *                predefined types (core/predefined_types.h): puts and gets
 *                of them work (sizes are asked of the host), accumulates are
 *                refused with MPI_ERR_TYPE. */
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
