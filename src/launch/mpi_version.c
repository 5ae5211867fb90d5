/* remora-mpi-version LIBRARY: the first line of LIBRARY's MPI_Get_library_version
 * string ("Open MPI v5.0.11, package: ...", "MPICH Version:      5.0.2",
 * "Intel(R) MPI Library 2021.19.0 for Linux* OS"), asked of the library
 * itself.  remora-run tells from it which MPI, and which version, a program
 * uses.  MPI_Get_library_version may be called before MPI_Init (MPI-3.0,
 * 8.1.1), and the library is opened RTLD_LOCAL in this process of its own:
 * nothing of it reaches the program.  No MPI is linked here.
 * Exit status: 0 with the line on stdout; 1 with the reason on stderr. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: remora-mpi-version LIBRARY\n");
        return 1;
    }
    void *lib = dlopen(argv[1], RTLD_LAZY | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "remora-mpi-version: cannot open %s: %s\n", argv[1], dlerror());
        return 1;
    }
    int (*get_version)(char *, int *) = (int (*)(char *, int *))dlsym(lib, "MPI_Get_library_version");
    if (!get_version) {
        fprintf(stderr, "remora-mpi-version: %s has no MPI_Get_library_version (an MPI older than 3.0?)\n", argv[1]);
        return 1;
    }
    /* MPI_MAX_LIBRARY_VERSION_STRING: 256 in Open MPI, 8192 in MPICH; more here */
    static char text[65536];
    int len = 0;
    if (get_version(text, &len) != 0 || len < 0 || len >= (int)sizeof text) {
        fprintf(stderr, "remora-mpi-version: MPI_Get_library_version of %s failed\n", argv[1]);
        return 1;
    }
    text[len] = 0;
    printf("%.*s\n", (int)strcspn(text, "\n"), text);
    return 0;
}
