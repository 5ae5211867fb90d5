/* Window creation, destruction and shared-memory queries. */
#include "core/dynamic.h"
#include "mpi/api.h"
#include "core/engine.h"

static int create(MPI_Comm comm, int flavor, MPI_Aint size, int disp_unit, MPI_Info info, void *base,
                  void *baseptr, MPI_Win *win, const char *fn)
{
    remora_engine_init();
    struct remora_win *w;
    int rc = remora_win_create(comm, flavor, size, disp_unit, info, base, &w);
    if (rc != MPI_SUCCESS)
        return remora_raise(0, rc == MPI_ERR_COMM ? MPI_COMM_NULL : comm, rc, fn, 0);
    if (baseptr)
        *(void **)baseptr = remora_win_user_base(w);
    *win = w->handle = remora_win_handle(w);
    return MPI_SUCCESS;
}

REMORA_API int MPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
    return create(comm, MPI_WIN_FLAVOR_CREATE, size, disp_unit, info, base, 0, win, __func__);
}
REMORA_PMPI(MPI_Win_create);

REMORA_API int MPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr,
                                MPI_Win *win)
{
    return create(comm, MPI_WIN_FLAVOR_ALLOCATE, size, disp_unit, info, 0, baseptr, win, __func__);
}
REMORA_PMPI(MPI_Win_allocate);

REMORA_API int MPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr,
                                       MPI_Win *win)
{
    return create(comm, MPI_WIN_FLAVOR_SHARED, size, disp_unit, info, 0, baseptr, win, __func__);
}
REMORA_PMPI(MPI_Win_allocate_shared);

REMORA_API int MPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
    return create(comm, MPI_WIN_FLAVOR_DYNAMIC, 0, 1, info, 0, 0, win, __func__);
}
REMORA_PMPI(MPI_Win_create_dynamic);

REMORA_API int MPI_Win_free(MPI_Win *win)
{
    REMORA_WIN_OR_RETURN(w, *win);
    int released, rc = remora_win_free(w, &released);
    if (!released)
        return remora_done(w, rc, __func__);
    *win = MPI_WIN_NULL;
    return rc;
}
REMORA_PMPI(MPI_Win_free);

REMORA_API int MPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint *size, int *disp_unit, void *baseptr)
{
    REMORA_WIN_OR_RETURN(w, win);
    return remora_done(w, remora_win_shared_query(w, rank, size, disp_unit, (void **)baseptr), __func__);
}
REMORA_PMPI(MPI_Win_shared_query);

#if MPI_VERSION >= 4
/* MPI-4 large-count forms (MPICH 4): the same windows, displacement units as MPI_Aint. */
static int disp_unit_int(MPI_Aint du, int *out)
{
    if (du > 0x7fffffff)
        return remora_err(MPI_ERR_DISP, "displacement unit %ld is too large", (long)du);
    *out = (int)du;
    return MPI_SUCCESS;
}

REMORA_API int MPI_Win_create_c(void *base, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                                MPI_Win *win)
{
    int du = 0, rc = disp_unit_int(disp_unit, &du);
    return rc ? remora_raise(0, comm, rc, __func__, 0) : create(comm, MPI_WIN_FLAVOR_CREATE, size, du, info, base, 0, win, __func__);
}
REMORA_PMPI(MPI_Win_create_c);

REMORA_API int MPI_Win_allocate_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr,
                                  MPI_Win *win)
{
    int du = 0, rc = disp_unit_int(disp_unit, &du);
    return rc ? remora_raise(0, comm, rc, __func__, 0) : create(comm, MPI_WIN_FLAVOR_ALLOCATE, size, du, info, 0, baseptr, win, __func__);
}
REMORA_PMPI(MPI_Win_allocate_c);

REMORA_API int MPI_Win_allocate_shared_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                                         void *baseptr, MPI_Win *win)
{
    int du = 0, rc = disp_unit_int(disp_unit, &du);
    return rc ? remora_raise(0, comm, rc, __func__, 0) : create(comm, MPI_WIN_FLAVOR_SHARED, size, du, info, 0, baseptr, win, __func__);
}
REMORA_PMPI(MPI_Win_allocate_shared_c);

REMORA_API int MPI_Win_shared_query_c(MPI_Win win, int rank, MPI_Aint *size, MPI_Aint *disp_unit, void *baseptr)
{
    REMORA_WIN_OR_RETURN(w, win);
    int du = 0, rc = remora_win_shared_query(w, rank, size, &du, (void **)baseptr);
    if (rc == MPI_SUCCESS)
        *disp_unit = du;
    return remora_done(w, rc, __func__);
}
REMORA_PMPI(MPI_Win_shared_query_c);
#endif

REMORA_API int MPI_Win_attach(MPI_Win win, void *base, MPI_Aint size)
{
    REMORA_WIN_OR_RETURN(w, win);
    return remora_done(w, remora_win_attach(w, base, size), __func__);
}
REMORA_PMPI(MPI_Win_attach);

REMORA_API int MPI_Win_detach(MPI_Win win, const void *base)
{
    REMORA_WIN_OR_RETURN(w, win);
    return remora_done(w, remora_win_detach(w, base), __func__);
}
REMORA_PMPI(MPI_Win_detach);
