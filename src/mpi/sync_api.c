/* The synchronisation calls: fence, PSCW, locks, flushes, sync. */
#include "core/sync.h"
#include "mpi/api.h"

REMORA_API int MPI_Win_fence(int assert, MPI_Win win)
{
    REMORA_WIN_OR_RETURN(w, win);
    return remora_done(w, remora_fence(w, assert), __func__);
}
REMORA_PMPI(MPI_Win_fence);

REMORA_API int MPI_Win_post(MPI_Group group, int assert, MPI_Win win)
{
    REMORA_WIN_OR_RETURN(w, win);
    return remora_done(w, remora_post(w, group, assert), __func__);
}
REMORA_PMPI(MPI_Win_post);

REMORA_API int MPI_Win_start(MPI_Group group, int assert, MPI_Win win)
{
    REMORA_WIN_OR_RETURN(w, win);
    return remora_done(w, remora_start(w, group, assert), __func__);
}
REMORA_PMPI(MPI_Win_start);

REMORA_API int MPI_Win_complete(MPI_Win win)
{
    REMORA_WIN_OR_RETURN(w, win);
    return remora_done(w, remora_complete(w), __func__);
}
REMORA_PMPI(MPI_Win_complete);

REMORA_API int MPI_Win_wait(MPI_Win win)
{
    REMORA_WIN_OR_RETURN(w, win);
    return remora_done(w, remora_wait(w), __func__);
}
REMORA_PMPI(MPI_Win_wait);

REMORA_API int MPI_Win_test(MPI_Win win, int *flag)
{
    REMORA_WIN_OR_RETURN(w, win);
    return remora_done(w, remora_test(w, flag), __func__);
}
REMORA_PMPI(MPI_Win_test);

REMORA_API int MPI_Win_lock(int lock_type, int rank, int assert, MPI_Win win)
{
    REMORA_WIN_OR_RETURN(w, win);
    return remora_done(w, remora_lock(w, lock_type, rank, assert), __func__);
}
REMORA_PMPI(MPI_Win_lock);

REMORA_API int MPI_Win_unlock(int rank, MPI_Win win)
{
    REMORA_WIN_OR_RETURN(w, win);
    return remora_done(w, remora_unlock(w, rank), __func__);
}
REMORA_PMPI(MPI_Win_unlock);

REMORA_API int MPI_Win_lock_all(int assert, MPI_Win win)
{
    REMORA_WIN_OR_RETURN(w, win);
    return remora_done(w, remora_lock_all(w, assert), __func__);
}
REMORA_PMPI(MPI_Win_lock_all);

REMORA_API int MPI_Win_unlock_all(MPI_Win win)
{
    REMORA_WIN_OR_RETURN(w, win);
    return remora_done(w, remora_unlock_all(w), __func__);
}
REMORA_PMPI(MPI_Win_unlock_all);

REMORA_API int MPI_Win_flush(int rank, MPI_Win win)
{
    REMORA_WIN_OR_RETURN(w, win);
    return remora_done(w, remora_flush_rma(w, rank, 0), __func__);
}
REMORA_PMPI(MPI_Win_flush);

REMORA_API int MPI_Win_flush_all(MPI_Win win)
{
    REMORA_WIN_OR_RETURN(w, win);
    return remora_done(w, remora_flush_rma(w, REMORA_ALL_TARGETS, 0), __func__);
}
REMORA_PMPI(MPI_Win_flush_all);

REMORA_API int MPI_Win_flush_local(int rank, MPI_Win win)
{
    REMORA_WIN_OR_RETURN(w, win);
    return remora_done(w, remora_flush_rma(w, rank, 1), __func__);
}
REMORA_PMPI(MPI_Win_flush_local);

REMORA_API int MPI_Win_flush_local_all(MPI_Win win)
{
    REMORA_WIN_OR_RETURN(w, win);
    return remora_done(w, remora_flush_rma(w, REMORA_ALL_TARGETS, 1), __func__);
}
REMORA_PMPI(MPI_Win_flush_local_all);

REMORA_API int MPI_Win_sync(MPI_Win win)
{
    REMORA_WIN_OR_RETURN(w, win);
    return remora_done(w, remora_win_sync(w), __func__);
}
REMORA_PMPI(MPI_Win_sync);
