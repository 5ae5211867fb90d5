/* MPI_Put and MPI_Get (and their MPI-4 large-count forms). */
#include "core/rma.h"
#include "mpi/api.h"

/* The slow paths are separate functions so that the fast path saves no registers. */
static __attribute__((noinline)) int put_slow(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                                              int target_rank, MPI_Aint target_disp, int target_count,
                                              MPI_Datatype target_datatype, MPI_Win win)
{
    REMORA_WIN_OR_RETURN(w, win);
    return remora_done(w, remora_rma_put(w, origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                                     target_count, target_datatype), "MPI_Put");
}

static __attribute__((noinline)) int get_slow(void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                                              int target_rank, MPI_Aint target_disp, int target_count,
                                              MPI_Datatype target_datatype, MPI_Win win)
{
    REMORA_WIN_OR_RETURN(w, win);
    return remora_done(w, remora_rma_get(w, origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                                     target_count, target_datatype), "MPI_Get");
}

/* The fast path (core/rma.h) once the origin's and target's type and count
 * are equal; from there on only the target's are used (they arrive in a
 * register and on the stack, where the slow path wants them): fewer live
 * registers, no saves on the fast path. */
REMORA_API int MPI_Put(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
                       MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win)
{
    if (origin_datatype != target_datatype || origin_count != target_count)
        return put_slow(origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
                        target_datatype, win);
    if (__builtin_expect(remora_fast_rma(remora_win_from_handle(win), (void *)origin_addr, target_count,
                                         target_datatype, target_rank, target_disp, 1), 1))
        return MPI_SUCCESS;
    return put_slow(origin_addr, target_count, target_datatype, target_rank, target_disp, target_count,
                    target_datatype, win);
}
REMORA_PMPI(MPI_Put);

REMORA_API int MPI_Get(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
                       MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win)
{
    if (origin_datatype != target_datatype || origin_count != target_count)
        return get_slow(origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
                        target_datatype, win);
    if (__builtin_expect(remora_fast_rma(remora_win_from_handle(win), origin_addr, target_count, target_datatype,
                                         target_rank, target_disp, 0), 1))
        return MPI_SUCCESS;
    return get_slow(origin_addr, target_count, target_datatype, target_rank, target_disp, target_count,
                    target_datatype, win);
}
REMORA_PMPI(MPI_Get);

#if MPI_VERSION >= 4
REMORA_API int MPI_Put_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                         int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                         MPI_Datatype target_datatype, MPI_Win win)
{
    REMORA_WIN_OR_RETURN(w, win);
    return remora_done(w, remora_rma_put(w, origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                                     target_count, target_datatype), __func__);
}
REMORA_PMPI(MPI_Put_c);

REMORA_API int MPI_Get_c(void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank,
                         MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win)
{
    REMORA_WIN_OR_RETURN(w, win);
    return remora_done(w, remora_rma_get(w, origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                                     target_count, target_datatype), __func__);
}
REMORA_PMPI(MPI_Get_c);
#endif
