/* Accumulates and atomics. */
#include "core/accumulate.h"
#include "core/fop_fast.h"
#include "mpi/api.h"

REMORA_API int MPI_Accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                              int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype,
                              MPI_Op op, MPI_Win win)
{
    REMORA_WIN_OR_RETURN(w, win);
    return remora_done(w, remora_accumulate(w, origin_addr, origin_count, origin_datatype, NULL, target_rank,
                                            target_disp, target_count, target_datatype, op), __func__);
}
REMORA_PMPI(MPI_Accumulate);

REMORA_API int MPI_Get_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                                  void *result_addr, int result_count, MPI_Datatype result_datatype, int target_rank,
                                  MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op,
                                  MPI_Win win)
{
    REMORA_WIN_OR_RETURN(w, win);
    struct remora_acc_result res = {result_addr, result_count, result_datatype};
    return remora_done(w, remora_accumulate(w, origin_addr, origin_count, origin_datatype, &res, target_rank,
                                            target_disp, target_count, target_datatype, op), __func__);
}
REMORA_PMPI(MPI_Get_accumulate);

static __attribute__((noinline)) int fetch_and_op_slow(const void *origin_addr, void *result_addr,
                                                       MPI_Datatype datatype, int target_rank, MPI_Aint target_disp,
                                                       MPI_Op op, MPI_Win win)
{
    REMORA_WIN_OR_RETURN(w, win);
    return remora_done(w, remora_fetch_and_op(w, origin_addr, result_addr, datatype, target_rank, target_disp, op),
                       "MPI_Fetch_and_op");
}

REMORA_API int MPI_Fetch_and_op(const void *origin_addr, void *result_addr, MPI_Datatype datatype, int target_rank,
                                MPI_Aint target_disp, MPI_Op op, MPI_Win win)
{
    if (__builtin_expect(result_addr && remora_fast_fetch_and_op(remora_win_from_handle(win), origin_addr,
                                                                 result_addr, datatype, target_rank, target_disp, op),
                         1))
        return MPI_SUCCESS;
    return fetch_and_op_slow(origin_addr, result_addr, datatype, target_rank, target_disp, op, win);
}
REMORA_PMPI(MPI_Fetch_and_op);

REMORA_API int MPI_Compare_and_swap(const void *origin_addr, const void *compare_addr, void *result_addr,
                                    MPI_Datatype datatype, int target_rank, MPI_Aint target_disp, MPI_Win win)
{
    REMORA_WIN_OR_RETURN(w, win);
    return remora_done(w, remora_compare_and_swap(w, origin_addr, compare_addr, result_addr, datatype, target_rank,
                                                  target_disp), __func__);
}
REMORA_PMPI(MPI_Compare_and_swap);

#if MPI_VERSION >= 4
REMORA_API int MPI_Accumulate_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                                int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                                MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
    REMORA_WIN_OR_RETURN(w, win);
    return remora_done(w, remora_accumulate(w, origin_addr, origin_count, origin_datatype, NULL, target_rank,
                                            target_disp, target_count, target_datatype, op), __func__);
}
REMORA_PMPI(MPI_Accumulate_c);

REMORA_API int MPI_Get_accumulate_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                                    void *result_addr, MPI_Count result_count, MPI_Datatype result_datatype,
                                    int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                                    MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
    REMORA_WIN_OR_RETURN(w, win);
    struct remora_acc_result res = {result_addr, result_count, result_datatype};
    return remora_done(w, remora_accumulate(w, origin_addr, origin_count, origin_datatype, &res, target_rank,
                                            target_disp, target_count, target_datatype, op), __func__);
}
REMORA_PMPI(MPI_Get_accumulate_c);
#endif
