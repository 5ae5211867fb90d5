/* What a window carries besides memory: attributes, name, info, group, error
 * handlers, Fortran handles. */
#include <stdio.h>
#include <string.h>

#include "mpi/api.h"
#include "core/engine.h"
#include "runtime/host_abi.h"
#include "runtime/host_mpi.h"

/* ---- attributes ---- */
REMORA_API int MPI_Win_create_keyval(MPI_Win_copy_attr_function *copy_fn, MPI_Win_delete_attr_function *delete_fn,
                                     int *keyval, void *extra_state)
{
    int rc = remora_keyval_create(copy_fn, delete_fn, extra_state, keyval);
    return rc ? remora_raise(0, MPI_COMM_NULL, rc, __func__, 0) : rc;
}
REMORA_PMPI(MPI_Win_create_keyval);

REMORA_API int MPI_Win_free_keyval(int *keyval)
{
    int rc = remora_keyval_free(keyval);
    return rc ? remora_raise(0, MPI_COMM_NULL, rc, __func__, 0) : rc;
}
REMORA_PMPI(MPI_Win_free_keyval);

REMORA_API int MPI_Win_set_attr(MPI_Win win, int keyval, void *attribute_val)
{
    REMORA_WIN_OR_RETURN(w, win);
    return remora_done(w, remora_attr_set(w, keyval, attribute_val, 0), __func__);
}
REMORA_PMPI(MPI_Win_set_attr);

REMORA_API int MPI_Win_get_attr(MPI_Win win, int keyval, void *attribute_val, int *flag)
{
    REMORA_WIN_OR_RETURN(w, win);
    return remora_done(w, remora_attr_get(w, keyval, attribute_val, flag), __func__);
}
REMORA_PMPI(MPI_Win_get_attr);

REMORA_API int MPI_Win_delete_attr(MPI_Win win, int keyval)
{
    REMORA_WIN_OR_RETURN(w, win);
    return remora_done(w, remora_attr_delete(w, keyval), __func__);
}
REMORA_PMPI(MPI_Win_delete_attr);

/* ---- name ---- */
REMORA_API int MPI_Win_set_name(MPI_Win win, const char *name)
{
    REMORA_WIN_OR_RETURN(w, win);
    if (!name)
        return remora_done(w, remora_err(MPI_ERR_ARG, "NULL name"), __func__);
    snprintf(w->name, sizeof w->name, "%s", name);
    return MPI_SUCCESS;
}
REMORA_PMPI(MPI_Win_set_name);

REMORA_API int MPI_Win_get_name(MPI_Win win, char *name, int *resultlen)
{
    REMORA_WIN_OR_RETURN(w, win);
    strcpy(name, w->name);
    *resultlen = (int)strlen(w->name);
    return MPI_SUCCESS;
}
REMORA_PMPI(MPI_Win_get_name);

/* ---- info ---- */
/* Hints Remora understands, with the value in force when the user set none. */
static const char *const default_hints[][2] = {
    {"no_locks", "false"},
    {"accumulate_ordering", "rar,raw,war,waw"},
    {"accumulate_ops", "same_op_no_op"},
    {"same_size", "false"},
    {"same_disp_unit", "false"},
};

REMORA_API int MPI_Win_get_info(MPI_Win win, MPI_Info *info_used)
{
    REMORA_WIN_OR_RETURN(w, win);
    int rc = PMPI_Info_dup(w->info, info_used);
    if (rc != MPI_SUCCESS)
        return remora_done(w, remora_err(MPI_ERR_NO_MEM, "info"), __func__);
    for (size_t i = 0; i < sizeof default_hints / sizeof *default_hints; i++) {
        int len, flag;
        PMPI_Info_get_valuelen(*info_used, default_hints[i][0], &len, &flag);
        if (!flag)
            PMPI_Info_set(*info_used, default_hints[i][0], default_hints[i][1]);
    }
    if (w->flavor == MPI_WIN_FLAVOR_SHARED)
        PMPI_Info_set(*info_used, "alloc_shared_noncontig", w->shared_noncontig ? "true" : "false");
    return MPI_SUCCESS;
}
REMORA_PMPI(MPI_Win_get_info);

REMORA_API int MPI_Win_set_info(MPI_Win win, MPI_Info info)
{
    REMORA_WIN_OR_RETURN(w, win);
    int nkeys;
    if (info == MPI_INFO_NULL || PMPI_Info_get_nkeys(info, &nkeys) != MPI_SUCCESS)
        return remora_done(w, remora_err(MPI_ERR_INFO, "invalid info object"), __func__);
    for (int i = 0; i < nkeys; i++) {
        char key[MPI_MAX_INFO_KEY + 1], value[MPI_MAX_INFO_VAL + 1];
        int flag;
        PMPI_Info_get_nthkey(info, i, key);
        PMPI_Info_get(info, key, MPI_MAX_INFO_VAL, value, &flag);
        if (flag)
            PMPI_Info_set(w->info, key, value);
    }
    remora_win_apply_hints(w);
    return MPI_SUCCESS;
}
REMORA_PMPI(MPI_Win_set_info);

/* ---- group ---- */
REMORA_API int MPI_Win_get_group(MPI_Win win, MPI_Group *group)
{
    REMORA_WIN_OR_RETURN(w, win);
    return remora_done(w, PMPI_Comm_group(w->comm, group), __func__);
}
REMORA_PMPI(MPI_Win_get_group);

/* ---- error handlers ---- */
REMORA_API int MPI_Win_create_errhandler(MPI_Win_errhandler_function *fn, MPI_Errhandler *errhandler)
{
    int rc = remora_errhandler_create(fn, 0, errhandler);
    return rc ? remora_raise(0, MPI_COMM_NULL, rc, __func__, 0) : rc;
}
REMORA_PMPI(MPI_Win_create_errhandler);

/* Remora counts the references to the handlers it made (core/errhandler.h). */
REMORA_API int MPI_Errhandler_free(MPI_Errhandler *errhandler)
{
    int rc = errhandler ? remora_errhandler_free(errhandler) : -1;
    return rc >= 0 ? rc : REMORA_HOST(MPI_Errhandler_free)(errhandler);
}
REMORA_PMPI(MPI_Errhandler_free);

REMORA_API int MPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler)
{
    REMORA_WIN_OR_RETURN(w, win);
    struct remora_errh h;
    int rc = remora_errh_acquire(errhandler, &h);
    if (rc != MPI_SUCCESS)
        return remora_done(w, rc, __func__);
    struct remora_errh old = w->errh;
    w->errh = h;
    remora_errh_release(&old);
    return MPI_SUCCESS;
}
REMORA_PMPI(MPI_Win_set_errhandler);

REMORA_API int MPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler *errhandler)
{
    REMORA_WIN_OR_RETURN(w, win);
    return remora_done(w, remora_errh_handle_for_user(&w->errh, errhandler), __func__);
}
REMORA_PMPI(MPI_Win_get_errhandler);

REMORA_API int MPI_Win_call_errhandler(MPI_Win win, int errorcode)
{
    REMORA_WIN_OR_RETURN(w, win);
    remora_raise(w, MPI_COMM_NULL, errorcode, __func__, "MPI_Win_call_errhandler");
    return MPI_SUCCESS;
}
REMORA_PMPI(MPI_Win_call_errhandler);

/* ---- Fortran handles ---- */
/* MPICH defines MPI_Win_c2f/f2c as casts in mpi.h: its Fortran handle of a
 * window is the C handle itself, ours included.  libmpich.so exports no such
 * function either (checked with nm -D on MPICH 4.0.2: only MPI_File_c2f/f2c
 * and MPI_Status_c2f/f2c; libmpichfort.so has the mpi_f08 module's own
 * Fortran functions, which also pass the integer through), so nothing can
 * reach the host's conversion with our handle and there is nothing to
 * intercept.  tests/symbols checks that this stays so.  Open MPI has
 * functions.  The standard ABI has MPI_Win_toint/fromint instead (in
 * libmpi_abi.so.1 of MPICH 5 and Intel MPI): a window's int is its handle's
 * value, as MPICH's Fortran handle is, above the host's own ints (small
 * constants), which pass through to the host. */
#if defined(OPEN_MPI)
REMORA_API MPI_Fint MPI_Win_c2f(MPI_Win win)
{
    struct remora_win *w = remora_win_from_handle(win);
    return w ? (MPI_Fint)w->index : 0;
}
REMORA_PMPI(MPI_Win_c2f);

REMORA_API MPI_Win MPI_Win_f2c(MPI_Fint win)
{
    struct remora_win *w = remora_win_table_get(&remora_core.wins, (int)win);
    return w ? remora_win_handle(w) : MPI_WIN_NULL;
}
REMORA_PMPI(MPI_Win_f2c);
#elif REMORA_STANDARD_ABI
REMORA_API int MPI_Win_toint(MPI_Win win)
{
    struct remora_win *w = remora_win_from_handle(win);
    return w ? (int)(uintptr_t)remora_win_handle(w) : REMORA_HOST(MPI_Win_toint)(win); /* MPI_WIN_NULL: the host's */
}
REMORA_PMPI(MPI_Win_toint);

REMORA_API MPI_Win MPI_Win_fromint(int win)
{
    MPI_Win h = (MPI_Win)(uintptr_t)(unsigned)win;
    return remora_win_from_handle(h) ? h : REMORA_HOST(MPI_Win_fromint)(win);
}
REMORA_PMPI(MPI_Win_fromint);
#endif
