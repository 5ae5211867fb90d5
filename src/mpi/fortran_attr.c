/* Window attributes and keyvals from Fortran programs.
 *
 * The hosts' Fortran bindings reach Remora through the PMPI_ names (api.h),
 * except for attributes:
 *   Open MPI: MPI_WIN_GET_ATTR / MPI_WIN_SET_ATTR (mpif.h, the mpi module
 *     and, through pmpi_win_get_attr_ and ompi_win_set_attr_f, mpi_f08) read
 *     the attribute table inside the host's own window object, which a
 *     Remora window is not; Remora defines those Fortran entry points, under
 *     every name the host gives them.
 *   MPICH: its Fortran layer calls MPII_Win_get_attr / MPII_Win_set_attr,
 *     internal functions of libmpich taking the value's language; Remora
 *     defines them.
 * Keyvals made from Fortran call a Fortran delete subroutine
 * (WIN, KEYVAL, ATTRIBUTE_VAL, EXTRA_STATE, IERROR, all by reference): Open
 * MPI's MPI_WIN_CREATE_KEYVAL makes a host keyval, so Remora defines it too;
 * MPICH's calls MPI_Win_create_keyval (Remora's) and then hands the keyval a
 * proxy with MPII_Keyval_set_proxy, which Remora takes for its keyvals and
 * passes on to the host for the others.
 * Fortran attribute values are INTEGER(KIND=MPI_ADDRESS_KIND): predefined
 * attributes by value (core/attr.h), a value set from Fortran is stored as
 * the value itself (C reads it back as a pointer-sized integer), as the
 * standard's attribute interoperability rules say.
 * The standard ABI (abi flavour): C programs only, nothing here
 * (runtime/host_abi.h). */
#include <stdint.h>

#include "core/attr.h"
#include "mpi/api.h"
#include "mpi/fortran_names.h"
#include "runtime/host_abi.h"
#include "runtime/host_mpi.h"

#if defined(OPEN_MPI)
/* Open MPI's Fortran LOGICAL (ompi_fortran_logical_t): gfortran's default
 * kind, .TRUE. being 1 in Debian's build (OMPI_FORTRAN_VALUE_TRUE). */
typedef int remora_fortran_logical;

/* The window of a Fortran handle, or NULL with *ierr set (MPI_ERR_WIN raised). */
static struct remora_win *fortran_win(const MPI_Fint *win, MPI_Fint *ierr, const char *fn)
{
    struct remora_win *w = remora_win_table_get(&remora_core.wins, (int)*win);
    if (!w)
        *ierr = remora_bad_win(fn);
    return w;
}

static void win_get_attr_f(MPI_Fint *win, MPI_Fint *keyval, MPI_Aint *value, remora_fortran_logical *flag,
                           MPI_Fint *ierr)
{
    struct remora_win *w = fortran_win(win, ierr, "MPI_Win_get_attr");
    if (!w)
        return;
    int f = 0;
    int rc = remora_attr_get_value(w, (int)*keyval, value, &f);
    if (rc == MPI_SUCCESS)
        *flag = f ? 1 : 0;
    *ierr = remora_done(w, rc, "MPI_Win_get_attr");
}

static void win_set_attr_f(MPI_Fint *win, MPI_Fint *keyval, MPI_Aint *value, MPI_Fint *ierr)
{
    struct remora_win *w = fortran_win(win, ierr, "MPI_Win_set_attr");
    if (w)
        *ierr = remora_done(w, remora_attr_set(w, (int)*keyval, (void *)(uintptr_t)*value, 1), "MPI_Win_set_attr");
}

typedef void fortran_delete_fn(MPI_Fint *win, MPI_Fint *keyval, MPI_Aint *value, MPI_Aint *extra, MPI_Fint *ierr);

static int fortran_delete(void *thunk_arg, void *user_fn, MPI_Win handle, int fortran_handle, int keyval,
                          void *value, int fortran_value, void *extra_state)
{
    (void)thunk_arg, (void)handle, (void)fortran_value;
    MPI_Fint win = fortran_handle, key = keyval, ierr = MPI_SUCCESS;
    MPI_Aint v = (MPI_Aint)(uintptr_t)value, extra = (MPI_Aint)(uintptr_t)extra_state;
    ((fortran_delete_fn *)user_fn)(&win, &key, &v, &extra, &ierr);
    return (int)ierr;
}

/* The copy callback is kept but never called: windows are not copied. */
static void win_create_keyval_f(void *copy_fn, void *delete_fn, MPI_Fint *keyval, MPI_Aint *extra_state,
                                MPI_Fint *ierr)
{
    int k = 0;
    int rc = remora_keyval_create((MPI_Win_copy_attr_function *)copy_fn, (MPI_Win_delete_attr_function *)delete_fn,
                                  (void *)(uintptr_t)*extra_state, &k);
    if (rc == MPI_SUCCESS)
        rc = remora_keyval_set_thunk(k, fortran_delete, NULL);
    if (rc == MPI_SUCCESS)
        *keyval = (MPI_Fint)k;
    *ierr = rc ? remora_raise(0, MPI_COMM_NULL, rc, "MPI_Win_create_keyval", 0) : MPI_SUCCESS;
}

FORTRAN_NAMES(win_get_attr_f, mpi_win_get_attr, MPI_WIN_GET_ATTR, MPI_Win_get_attr, ompi_win_get_attr_f);
FORTRAN_NAMES(win_set_attr_f, mpi_win_set_attr, MPI_WIN_SET_ATTR, MPI_Win_set_attr, ompi_win_set_attr_f);
FORTRAN_NAMES(win_create_keyval_f, mpi_win_create_keyval, MPI_WIN_CREATE_KEYVAL, MPI_Win_create_keyval,
              ompi_win_create_keyval_f);

#elif !REMORA_STANDARD_ABI
/* MPICH 4.0's MPIR_Attr_type (src/include/mpir_attr_generic.h; not in its
 * installed headers): the language of an attribute value. */
enum { MPICH_ATTR_PTR = 0, MPICH_ATTR_AINT = 1, MPICH_ATTR_INT = 3 };

/* MPICH's Fortran names of the predefined window attributes are the C
 * keyvals + 1 (mpif.h: MPI_WIN_BASE = 0x66000002 where mpi.h has 0x66000001). */
static int c_keyval(int keyval)
{
    static const int predefined[] = {MPI_WIN_BASE, MPI_WIN_SIZE, MPI_WIN_DISP_UNIT, MPI_WIN_CREATE_FLAVOR,
                                     MPI_WIN_MODEL};
    for (size_t i = 0; i < sizeof predefined / sizeof *predefined; i++)
        if (keyval == predefined[i] + 1)
            return predefined[i];
    return keyval;
}

REMORA_API int MPII_Win_get_attr(MPI_Win win, int keyval, void *value, int *flag, int type)
{
    REMORA_WIN_OR_RETURN(w, win);
    keyval = c_keyval(keyval);
    if (type == MPICH_ATTR_PTR)
        return remora_done(w, remora_attr_get(w, keyval, value, flag), __func__);
    MPI_Aint v = 0;
    int rc = remora_attr_get_value(w, keyval, &v, flag);
    if (rc == MPI_SUCCESS && *flag) {
        if (type == MPICH_ATTR_INT)
            *(int *)value = (int)v;
        else
            *(void **)value = (void *)(uintptr_t)v;
    }
    return remora_done(w, rc, __func__);
}

REMORA_API int MPII_Win_set_attr(MPI_Win win, int keyval, void *value, int type)
{
    REMORA_WIN_OR_RETURN(w, win);
    /* a Fortran value arrives as the pointer-sized integer itself */
    return remora_done(w, remora_attr_set(w, keyval, value, type != MPICH_ATTR_PTR), __func__);
}

/* MPICH's MPII_Attr_delete_proxy: calls user_function in its language. */
typedef int mpich_delete_proxy(MPI_Win_delete_attr_function *user_function, int handle, int keyval, int type,
                               void *value, void *extra_state);
typedef void mpich_copy_proxy(void);

static int proxy_delete(void *thunk_arg, void *user_fn, MPI_Win handle, int fortran_handle, int keyval, void *value,
                        int fortran_value, void *extra_state)
{
    (void)fortran_handle;
    return ((mpich_delete_proxy *)thunk_arg)((MPI_Win_delete_attr_function *)user_fn, (int)handle, keyval,
                                             fortran_value ? MPICH_ATTR_AINT : MPICH_ATTR_PTR, value, extra_state);
}

REMORA_API void MPII_Keyval_set_proxy(int keyval, mpich_copy_proxy *copy_proxy, mpich_delete_proxy *delete_proxy)
{
    if (remora_keyval_set_thunk(keyval, proxy_delete, (void *)delete_proxy) == MPI_SUCCESS)
        return; /* windows are never copied: the copy proxy is not needed */
    REMORA_HOST_FN(MPII_Keyval_set_proxy)(keyval, copy_proxy, delete_proxy); /* a communicator's or datatype's */
}
#endif
