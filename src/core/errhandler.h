/* Window error handlers.
 *
 * Handler objects are the host's (MPI_Win_create_errhandler creates a host
 * errhandler), so handles stay host handles; Remora remembers the function
 * each one carries and counts its references: the user's handle, every
 * window it is set on, every handle MPI_Win_get_errhandler gave out.
 * MPI_Errhandler_free drops one (Remora serves it for the handlers it made,
 * and passes the others to the host); the last frees the host's handler, so
 * a window keeps its handler after the user frees the handle.
 *
 * A predefined handler is the host's object too, and the host counts its
 * references (Open MPI: MPI_Errhandler_free of one refuses with MPI_ERR_ARG
 * when the count would reach its last, and a count gone below makes the host
 * free a static object, "free(): invalid pointer" in MPI_Comm_free).  The
 * references MPI_Win_get_errhandler gives out for a predefined handler are
 * Remora's, never the host's: Remora counts them per predefined handler, and
 * MPI_Errhandler_free of a predefined handle drops one of Remora's while any
 * is out, else passes it to the host (a handle the host gave out, e.g. by
 * MPI_Comm_get_errhandler).  Handles of one handler are interchangeable, so
 * which of the two a given free drops does not matter: both counts end where
 * they would have been. */
#ifndef REMORA_CORE_ERRHANDLER_H
#define REMORA_CORE_ERRHANDLER_H

#include <mpi.h>

#include "runtime/host_abi.h"

struct remora_win;

/* A handler made from Fortran (Open MPI's Fortran MPI_WIN_CREATE_ERRHANDLER,
 * which does not go through the C function): a subroutine taking the
 * window's Fortran handle and the code, both by reference. */
typedef void remora_fortran_errhandler(remora_fint *win, remora_fint *code);

struct remora_errh {
    MPI_Errhandler handle;             /* host handle (predefined or user)         */
    MPI_Win_errhandler_function *fn;   /* NULL for MPI_ERRORS_ARE_FATAL/_RETURN/_ABORT */
    int fortran;                       /* fn is a remora_fortran_errhandler        */
};

struct remora_errhandler_entry {
    MPI_Errhandler handle;
    MPI_Win_errhandler_function *fn;
    int fortran;
    int refs;
};

enum { REMORA_NPREDEF_ERRH = 3 }; /* MPI_ERRORS_ARE_FATAL, _RETURN, _ABORT */

struct remora_errhandler_table {
    struct remora_errhandler_entry *v;
    int n, cap;
    long predef_refs[REMORA_NPREDEF_ERRH]; /* references to predefined handlers given to the user */
};

/* A new window handler calling fn (a remora_fortran_errhandler when fortran is set). */
int remora_errhandler_create(MPI_Win_errhandler_function *fn, int fortran, MPI_Errhandler *eh);
/* A new reference to `eh` as a window handler (MPI_ERR_ARG if Remora did not make it). */
int remora_errh_acquire(MPI_Errhandler eh, struct remora_errh *out);
void remora_errh_release(struct remora_errh *h);
/* A reference for the user (MPI_Win_get_errhandler). */
int remora_errh_handle_for_user(const struct remora_errh *h, MPI_Errhandler *eh);
/* MPI_Errhandler_free of a handler Remora made, or of a predefined handler
 * while Remora has given out references to it: drops the user's reference,
 * sets *eh to MPI_ERRHANDLER_NULL; -1 for a handler the host should free. */
int remora_errhandler_free(MPI_Errhandler *eh);
void remora_errhandler_table_destroy(struct remora_errhandler_table *t);

/* Raise error `code` (an MPI error class) on window w from MPI function `fn_name`
 * (`detail` says what was wrong): calls w's handler and returns code (unless the
 * handler aborts).  With w == NULL the error goes to `comm`'s handler (window
 * creation), or MPI_COMM_WORLD's when comm is MPI_COMM_NULL. */
int remora_raise(struct remora_win *w, MPI_Comm comm, int code, const char *fn_name, const char *detail);



/* Record why an error happened (for the fatal message / logs) and return its class:
 *   return remora_err(MPI_ERR_RMA_SYNC, "target %d is not locked", t);           */
int remora_err(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#endif
