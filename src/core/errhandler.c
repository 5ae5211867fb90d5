/* Window error handlers and raising errors (see errhandler.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/errhandler.h"
#include "core/win.h"
#include "core/engine.h"
#include "runtime/log.h"
#include "runtime/host_mpi.h"

/* Why the last error of this thread happened: shown when the error is fatal. */
static _Thread_local char err_detail[256];

int remora_err(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err_detail, sizeof err_detail, fmt, ap);
    va_end(ap);
    return code;
}

static int is_predefined(MPI_Errhandler eh)
{
    return eh == MPI_ERRORS_ARE_FATAL || eh == MPI_ERRORS_RETURN
#ifdef MPI_ERRORS_ABORT
           || eh == MPI_ERRORS_ABORT
#endif
        ;
}

int remora_errhandler_create(MPI_Win_errhandler_function *fn, int fortran, MPI_Errhandler *eh)
{
    int rc = REMORA_HOST(MPI_Win_create_errhandler)(fn, eh);
    if (rc != MPI_SUCCESS)
        return rc;
    struct remora_errhandler_table *t = &remora_core.errhandlers;
    pthread_mutex_lock(&remora_core.lock);
    int i;
    for (i = 0; i < t->n && t->v[i].handle != *eh; i++)
        ; /* a freed handler's handle may come back for a new one */
    if (i == t->n) {
        if (t->n == t->cap) {
            int cap = t->cap ? 2 * t->cap : 16;
            struct remora_errhandler_entry *v = realloc(t->v, sizeof *v * (size_t)cap);
            if (!v) {
                pthread_mutex_unlock(&remora_core.lock);
                PMPI_Errhandler_free(eh);
                return MPI_ERR_NO_MEM;
            }
            t->v = v;
            t->cap = cap;
        }
        t->n++;
    }
    t->v[i].handle = *eh;
    t->v[i].fn = fn;
    t->v[i].fortran = fortran;
    pthread_mutex_unlock(&remora_core.lock);
    return MPI_SUCCESS;
}

/* The anchor host window; caller holds remora_core.lock. */
static MPI_Win anchor(void)
{
    struct remora_errhandler_table *t = &remora_core.errhandlers;
    if (!t->anchor_made) {
        if (REMORA_HOST(MPI_Win_create)(NULL, 0, 1, MPI_INFO_NULL, MPI_COMM_SELF, &t->anchor) != MPI_SUCCESS)
            remora_fatal("cannot create the host window that anchors error handlers");
        t->anchor_made = 1;
    }
    return t->anchor;
}

/* A new host reference to a user handler, checking it is a window handler. */
static int retain(MPI_Errhandler eh, MPI_Errhandler *ref)
{
    MPI_Win a = anchor();
    REMORA_HOST(MPI_Win_set_errhandler)(a, MPI_ERRORS_RETURN);
    int rc = REMORA_HOST(MPI_Win_set_errhandler)(a, eh);
    if (rc == MPI_SUCCESS)
        REMORA_HOST(MPI_Win_get_errhandler)(a, ref);
    REMORA_HOST(MPI_Win_set_errhandler)(a, MPI_ERRORS_RETURN);
    return rc == MPI_SUCCESS ? MPI_SUCCESS : MPI_ERR_ARG;
}

int remora_errh_acquire(MPI_Errhandler eh, struct remora_errh *out)
{
    if (eh == MPI_ERRHANDLER_NULL)
        return remora_err(MPI_ERR_ARG, "MPI_ERRHANDLER_NULL");
    if (is_predefined(eh)) {
        out->handle = eh;
        out->fn = NULL;
        out->fortran = 0;
        return MPI_SUCCESS;
    }
    pthread_mutex_lock(&remora_core.lock);
    const struct remora_errhandler_table *t = &remora_core.errhandlers;
    MPI_Win_errhandler_function *fn = NULL;
    int fortran = 0;
    for (int i = 0; i < t->n; i++)
        if (t->v[i].handle == eh) {
            fn = t->v[i].fn;
            fortran = t->v[i].fortran;
        }
    MPI_Errhandler ref = MPI_ERRHANDLER_NULL;
    int rc = retain(eh, &ref);
    pthread_mutex_unlock(&remora_core.lock);
    if (rc != MPI_SUCCESS || !fn) {
        if (rc == MPI_SUCCESS)
            PMPI_Errhandler_free(&ref);
        return remora_err(MPI_ERR_ARG, "the error handler was not made by MPI_Win_create_errhandler");
    }
    out->handle = ref;
    out->fn = fn;
    out->fortran = fortran;
    return MPI_SUCCESS;
}

void remora_errh_release(struct remora_errh *h)
{
    if (!is_predefined(h->handle) && h->handle != MPI_ERRHANDLER_NULL)
        PMPI_Errhandler_free(&h->handle);
    h->handle = MPI_ERRORS_ARE_FATAL;
    h->fn = NULL;
    h->fortran = 0;
}

int remora_errh_handle_for_user(const struct remora_errh *h, MPI_Errhandler *eh)
{
    if (is_predefined(h->handle)) {
        *eh = h->handle;
        return MPI_SUCCESS;
    }
    pthread_mutex_lock(&remora_core.lock);
    int rc = retain(h->handle, eh);
    pthread_mutex_unlock(&remora_core.lock);
    return rc;
}

void remora_errhandler_table_destroy(struct remora_errhandler_table *t)
{
    if (t->anchor_made)
        REMORA_HOST(MPI_Win_free)(&t->anchor);
    t->anchor_made = 0;
    free(t->v);
    t->v = NULL;
    t->n = t->cap = 0;
}

static const char *class_name(int code, char buf[MPI_MAX_ERROR_STRING])
{
    int len = 0;
    if (PMPI_Error_string(code, buf, &len) != MPI_SUCCESS)
        return "unknown error";
    return buf;
}

int remora_raise(struct remora_win *w, MPI_Comm comm, int code, const char *fn_name, const char *detail)
{
    if (code == MPI_SUCCESS)
        return code;
    if (!detail)
        detail = err_detail;
    char name[MPI_MAX_ERROR_STRING];
    class_name(code, name);
    remora_log(REMORA_LOG_DEBUG, "%s: %s (%s)", fn_name, detail, name);
    if (!w) {
        /* no window yet (creation) or an invalid one: the communicator's handler decides */
        if (comm == MPI_COMM_NULL)
            comm = MPI_COMM_WORLD;
        MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
        PMPI_Comm_get_errhandler(comm, &eh);
        int fatal = eh == MPI_ERRORS_ARE_FATAL;
        if (eh != MPI_ERRHANDLER_NULL && !is_predefined(eh))
            PMPI_Errhandler_free(&eh);
        if (fatal)
            remora_fatal("%s: %s: %s", fn_name, name, detail);
        PMPI_Comm_call_errhandler(comm, code);
        return code;
    }
    if (w->errh.fn && w->errh.fortran) { /* Open MPI's Fortran handle of a window of ours: its index */
        MPI_Fint handle = (MPI_Fint)w->index, c = (MPI_Fint)code;
        ((remora_fortran_errhandler *)(void (*)(void))w->errh.fn)(&handle, &c);
        return code;
    }
    if (w->errh.fn) {
        MPI_Win handle = w->handle;
        int c = code;
        w->errh.fn(&handle, &c);
        return code;
    }
    if (w->errh.handle == MPI_ERRORS_RETURN)
        return code;
    /* MPI_ERRORS_ARE_FATAL, MPI_ERRORS_ABORT */
    remora_fatal("%s: %s: %s%s%s", fn_name, name, detail, w->name[0] ? " on window " : "", w->name);
}
