/* Window error handlers made from Fortran programs.
 *
 * Open MPI's Fortran MPI_WIN_CREATE_ERRHANDLER (mpif.h, the mpi module and,
 * through ompi_win_create_errhandler_f, mpi_f08) makes a host handler of
 * Fortran language without calling the C function, so Remora would not know
 * the subroutine to call; Remora defines it under every name the host gives
 * it.  The handler is called with the window's Fortran handle and the code,
 * by reference (core/errhandler.c).  Setting, getting, calling and freeing
 * handlers from Fortran go through the C functions (PMPI_ names).
 * MPICH's Fortran binding calls MPI_Win_create_errhandler (Remora's) and
 * passes Fortran INTEGER handles, which are its C handles: nothing to add. */
#include "core/errhandler.h"
#include "mpi/api.h"
#include "mpi/fortran_names.h"

#if defined(OPEN_MPI)
static void win_create_errhandler_f(remora_fortran_errhandler *fn, MPI_Fint *errhandler, MPI_Fint *ierr)
{
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
    int rc = remora_errhandler_create((MPI_Win_errhandler_function *)(void (*)(void))fn, 1, &eh);
    if (rc == MPI_SUCCESS)
        *errhandler = PMPI_Errhandler_c2f(eh);
    rc = rc ? remora_raise(0, MPI_COMM_NULL, rc, "MPI_Win_create_errhandler", 0) : MPI_SUCCESS;
    if (ierr)
        *ierr = (MPI_Fint)rc;
}

FORTRAN_NAMES(win_create_errhandler_f, mpi_win_create_errhandler, MPI_WIN_CREATE_ERRHANDLER,
              MPI_Win_create_errhandler, ompi_win_create_errhandler_f);
#endif
