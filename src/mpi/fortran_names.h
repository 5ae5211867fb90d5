/* Fortran entry points Remora defines for Open MPI's Fortran bindings, under
 * every name Open MPI 4.1 gives one Fortran routine (nm -D
 * libmpi_mpifh.so): the mangled mpif.h / mpi module names, their profiling
 * twins, the mpi_f08 names and the ompi_*_f function those layers call. */
#ifndef REMORA_MPI_FORTRAN_NAMES_H
#define REMORA_MPI_FORTRAN_NAMES_H

#define FORTRAN_ALIAS(fn, name) extern __typeof__(fn) name __attribute__((alias(#fn), visibility("default")))
#define FORTRAN_NAMES(fn, lower, UPPER, Mixed, ompi_f)                                                     \
    FORTRAN_ALIAS(fn, lower); FORTRAN_ALIAS(fn, lower##_); FORTRAN_ALIAS(fn, lower##__);                  \
    FORTRAN_ALIAS(fn, p##lower); FORTRAN_ALIAS(fn, p##lower##_); FORTRAN_ALIAS(fn, p##lower##__);         \
    FORTRAN_ALIAS(fn, UPPER); FORTRAN_ALIAS(fn, P##UPPER);                                                 \
    FORTRAN_ALIAS(fn, Mixed##_f); FORTRAN_ALIAS(fn, Mixed##_f08);                                          \
    FORTRAN_ALIAS(fn, P##Mixed##_f); FORTRAN_ALIAS(fn, P##Mixed##_f08);                                    \
    FORTRAN_ALIAS(fn, ompi_f)

#endif
