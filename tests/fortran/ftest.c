/* The C side of the Fortran RMA tests: whether Remora serves the run, and
 * whether a Fortran window handle is one of Remora's windows.  Looked up at
 * run time, so that the same program also runs over a host MPI alone. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>

int ftest_remora_mode(void)
{
    int (*active)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "remora_active");
    return active && active();
}

int ftest_win_served(MPI_Fint win)
{
    int (*served)(MPI_Win) = (int (*)(MPI_Win))dlsym(RTLD_DEFAULT, "remora_win_served");
    return served && served(MPI_Win_f2c(win));
}
