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

/* The index of a predefined handler in predef_refs, or -1. */
static int predefined_index(MPI_Errhandler eh)
{
    if (eh == MPI_ERRORS_ARE_FATAL)
        return 0;
    if (eh == MPI_ERRORS_RETURN)
        return 1;
#ifdef MPI_ERRORS_ABORT
    if (eh == MPI_ERRORS_ABORT)
        return 2;
#endif
    return -1;
}

static int is_predefined(MPI_Errhandler eh)
{
    return predefined_index(eh) >= 0;
}

int remora_errhandler_create(MPI_Win_errhandler_function *fn, int fortran, MPI_Errhandler *eh)
{
    int rc = REMORA_HOST(MPI_Win_create_errhandler)(fn, eh);
    if (rc != MPI_SUCCESS)
        return rc;
    struct remora_errhandler_table *t = &remora_core.errhandlers;
    pthread_mutex_lock(&remora_core.lock);
    if (t->n == t->cap) {
        int cap = t->cap ? 2 * t->cap : 16;
        struct remora_errhandler_entry *v = realloc(t->v, sizeof *v * (size_t)cap);
        if (!v) {
            pthread_mutex_unlock(&remora_core.lock);
            REMORA_HOST(MPI_Errhandler_free)(eh);
            return MPI_ERR_NO_MEM;
        }
        t->v = v;
        t->cap = cap;
    }
    /* the host's handler lives while the entry does: its handle is not in the table twice */
    t->v[t->n++] = (struct remora_errhandler_entry){*eh, fn, fortran, 1 /* the user's handle */};
    pthread_mutex_unlock(&remora_core.lock);
    return MPI_SUCCESS;
}

/* The entry of a handler we made, or NULL; caller holds remora_core.lock. */
static struct remora_errhandler_entry *entry_of(MPI_Errhandler eh)
{
    struct remora_errhandler_table *t = &remora_core.errhandlers;
    for (int i = 0; i < t->n; i++)
        if (t->v[i].handle == eh)
            return &t->v[i];
    return NULL;
}

/* Drops one reference; the last frees the host's handler.  Caller holds
 * remora_core.lock. */
static void unref(struct remora_errhandler_entry *e)
{
    if (--e->refs > 0)
        return;
    MPI_Errhandler eh = e->handle;
    REMORA_HOST(MPI_Errhandler_free)(&eh);
    struct remora_errhandler_table *t = &remora_core.errhandlers;
    *e = t->v[--t->n];
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
    struct remora_errhandler_entry *e = entry_of(eh);
    if (e) {
        e->refs++;
        out->handle = eh;
        out->fn = e->fn;
        out->fortran = e->fortran;
    }
    pthread_mutex_unlock(&remora_core.lock);
    return e ? MPI_SUCCESS : remora_err(MPI_ERR_ARG, "the error handler was not made by MPI_Win_create_errhandler");
}

void remora_errh_release(struct remora_errh *h)
{
    if (!is_predefined(h->handle) && h->handle != MPI_ERRHANDLER_NULL) {
        pthread_mutex_lock(&remora_core.lock);
        struct remora_errhandler_entry *e = entry_of(h->handle);
        if (e)
            unref(e);
        pthread_mutex_unlock(&remora_core.lock);
    }
    h->handle = MPI_ERRORS_ARE_FATAL;
    h->fn = NULL;
    h->fortran = 0;
}

int remora_errh_handle_for_user(const struct remora_errh *h, MPI_Errhandler *eh)
{
    int p = predefined_index(h->handle);
    pthread_mutex_lock(&remora_core.lock);
    if (p >= 0) {
        remora_core.errhandlers.predef_refs[p]++;
    } else {
        struct remora_errhandler_entry *e = entry_of(h->handle);
        if (e)
            e->refs++;
    }
    pthread_mutex_unlock(&remora_core.lock);
    *eh = h->handle;
    return MPI_SUCCESS;
}

int remora_errhandler_free(MPI_Errhandler *eh)
{
    int p = predefined_index(*eh), found = 0;
    pthread_mutex_lock(&remora_core.lock);
    if (p >= 0) {
        long *refs = &remora_core.errhandlers.predef_refs[p];
        if (*refs > 0) {
            --*refs;
            found = 1;
        }
    } else {
        struct remora_errhandler_entry *e = entry_of(*eh);
        if (e) {
            unref(e);
            found = 1;
        }
    }
    pthread_mutex_unlock(&remora_core.lock);
    if (!found)
        return -1;
    *eh = MPI_ERRHANDLER_NULL;
    return MPI_SUCCESS;
}

void remora_errhandler_table_destroy(struct remora_errhandler_table *t)
{
    free(t->v);
    t->v = NULL;
    t->n = t->cap = 0;
    for (int i = 0; i < REMORA_NPREDEF_ERRH; i++)
        t->predef_refs[i] = 0;
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
        /* the host's reference, predefined handlers included (the host counts those too) */
        if (eh != MPI_ERRHANDLER_NULL)
            REMORA_HOST(MPI_Errhandler_free)(&eh);
        if (fatal)
            remora_fatal("%s: %s: %s", fn_name, name, detail);
        PMPI_Comm_call_errhandler(comm, code);
        return code;
    }
    if (w->errh.fn && w->errh.fortran) { /* Open MPI's Fortran handle of a window of ours: its index */
        remora_fint handle = (remora_fint)w->index, c = (remora_fint)code;
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
