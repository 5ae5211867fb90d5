/* The host's binary interface, as far as Remora's source depends on it: the
 * one place that tells the three apart.
 *   Open MPI's mpi.h (OPEN_MPI): handles are pointers to host objects.
 *   MPICH's mpi.h: handles are ints; Fortran handles are the C handles.
 *   The MPI-5 standard ABI (mpi_abi.h, MPI_ABI_VERSION; the abi flavour,
 *     served by MPICH 5's and Intel MPI 2021.19's libmpi_abi.so.1): handles
 *     are pointers to incomplete structs, the predefined ones small integer
 *     constants cast to pointers; there is no MPI_Fint and no MPI_*_c2f/f2c:
 *     a handle's Fortran INTEGER is MPI_<Kind>_toint's int.
 * Remora's own window handles are integers (REMORA_MPICH_WIN_BASE + index,
 * core/win_table.h) under MPICH and the standard ABI alike, cast to the
 * pointer type there; only Open MPI's are pointers to the window.
 *
 * What a host computes or accepts (MPI_CHAR reductions, zero-size
 * accumulates, ...) is behaviour, not ABI: those places test OPEN_MPI, and
 * the standard ABI takes MPICH's side, its two providers being MPICH and
 * the MPICH-derived Intel MPI.
 *
 * Fortran: the abi flavour serves C programs only.  The standard ABI's
 * Fortran bindings (libmpifort_abi) reach windows and attributes in ways
 * Remora has not been checked against; mpi/init.c refuses a program that
 * carries an MPI Fortran binding (refuse_fortran). */
#ifndef REMORA_RUNTIME_HOST_ABI_H
#define REMORA_RUNTIME_HOST_ABI_H

#include <mpi.h>

#if defined(MPI_ABI_VERSION)
#define REMORA_STANDARD_ABI 1
/* a Fortran INTEGER handle or code, as MPI_Win_toint returns it */
typedef int remora_fint;
#else
#define REMORA_STANDARD_ABI 0
typedef MPI_Fint remora_fint;
#endif

/* MPI_Datatype and the other host handles are pointers (else ints). */
#if defined(OPEN_MPI) || REMORA_STANDARD_ABI
#define REMORA_POINTER_HANDLES 1
#else
#define REMORA_POINTER_HANDLES 0
#endif

#endif
