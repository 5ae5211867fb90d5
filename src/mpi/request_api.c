/* Request-based RMA: MPI_Rput, MPI_Rget, MPI_Raccumulate, MPI_Rget_accumulate
 * (and their MPI-4 large-count forms).
 *
 * The operation is done and flushed to its target before the call returns, so
 * the request handed back is a host generalized request that is complete from
 * birth: MPI_Wait/Test/Waitall/... treat it like any of the host's own
 * requests. */
#include "core/accumulate.h"
#include "core/rma.h"
#include "mpi/api.h"
#include "core/status.h"
#include "core/sync.h"

static int query_fn(void *extra, MPI_Status *status)
{
    (void)extra;
    PMPI_Status_set_elements(status, MPI_BYTE, 0);
    PMPI_Status_set_cancelled(status, 0);
    status->MPI_SOURCE = MPI_UNDEFINED;
    status->MPI_TAG = MPI_UNDEFINED;
    return MPI_SUCCESS;
}

static int free_fn(void *extra)
{
    (void)extra;
    return MPI_SUCCESS;
}

static int cancel_fn(void *extra, int complete)
{
    (void)extra, (void)complete;
    return MPI_SUCCESS;
}

/* The standard allows request-based operations only in passive-target epochs. */
static int passive_epoch(struct remora_win *w, int target)
{
    if (target == MPI_PROC_NULL)
        return MPI_SUCCESS;
    int rc = remora_check_target(w, target);
    if (rc != MPI_SUCCESS)
        return rc;
    if (remora_passive_toward(w, remora_rank_known(w, target)))
        return MPI_SUCCESS;
    return remora_err(MPI_ERR_RMA_SYNC, "request-based RMA outside a passive-target epoch on target %d", target);
}

/* Finish a request-based call: rc from the operation, a complete request on
 * success.  The operation is flushed first: network transfers complete there. */
static int finish(struct remora_win *w, int target, int rc, MPI_Request *request, const char *fn)
{
    if (rc == MPI_SUCCESS && target != MPI_PROC_NULL)
        rc = remora_status_err(remora_flush_target(w, target), "completing a request-based operation");
    if (rc == MPI_SUCCESS) {
        rc = PMPI_Grequest_start(query_fn, free_fn, cancel_fn, NULL, request);
        if (rc == MPI_SUCCESS)
            rc = PMPI_Grequest_complete(*request);
    }
    if (rc != MPI_SUCCESS)
        *request = MPI_REQUEST_NULL;
    return remora_done(w, rc, fn);
}

/* One helper per operation, shared by the int-count form and its MPI-4
 * large-count twin (_c): the core takes MPI_Count, an int count widens.  The
 * caller has turned the handle into `w` and names itself by `fn`. */
static int rput(struct remora_win *w, const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                int target_rank, MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype,
                MPI_Request *request, const char *fn)
{
    int rc = passive_epoch(w, target_rank);
    if (rc == MPI_SUCCESS)
        rc = remora_rma_put(w, origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
                        target_datatype);
    return finish(w, target_rank, rc, request, fn);
}

static int rget(struct remora_win *w, void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                int target_rank, MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype,
                MPI_Request *request, const char *fn)
{
    int rc = passive_epoch(w, target_rank);
    if (rc == MPI_SUCCESS)
        rc = remora_rma_get(w, origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
                        target_datatype);
    return finish(w, target_rank, rc, request, fn);
}

/* Raccumulate is Rget_accumulate without a result (res NULL). */
static int rget_accumulate(struct remora_win *w, const void *origin_addr, MPI_Count origin_count,
                           MPI_Datatype origin_datatype, const struct remora_acc_result *res, int target_rank,
                           MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op,
                           MPI_Request *request, const char *fn)
{
    int rc = passive_epoch(w, target_rank);
    if (rc == MPI_SUCCESS)
        rc = remora_accumulate(w, origin_addr, origin_count, origin_datatype, res, target_rank, target_disp,
                               target_count, target_datatype, op);
    return finish(w, target_rank, rc, request, fn);
}

REMORA_API int MPI_Rput(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
                        MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win,
                        MPI_Request *request)
{
    REMORA_WIN_OR_RETURN(w, win);
    return rput(w, origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
                target_datatype, request, __func__);
}
REMORA_PMPI(MPI_Rput);

REMORA_API int MPI_Rget(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
                        MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win,
                        MPI_Request *request)
{
    REMORA_WIN_OR_RETURN(w, win);
    return rget(w, origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
                target_datatype, request, __func__);
}
REMORA_PMPI(MPI_Rget);

REMORA_API int MPI_Raccumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                               int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype,
                               MPI_Op op, MPI_Win win, MPI_Request *request)
{
    REMORA_WIN_OR_RETURN(w, win);
    return rget_accumulate(w, origin_addr, origin_count, origin_datatype, NULL, target_rank, target_disp, target_count,
                           target_datatype, op, request, __func__);
}
REMORA_PMPI(MPI_Raccumulate);

REMORA_API int MPI_Rget_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                                   void *result_addr, int result_count, MPI_Datatype result_datatype,
                                   int target_rank, MPI_Aint target_disp, int target_count,
                                   MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request)
{
    REMORA_WIN_OR_RETURN(w, win);
    struct remora_acc_result res = {result_addr, result_count, result_datatype};
    return rget_accumulate(w, origin_addr, origin_count, origin_datatype, &res, target_rank, target_disp, target_count,
                           target_datatype, op, request, __func__);
}
REMORA_PMPI(MPI_Rget_accumulate);

#if MPI_VERSION >= 4
REMORA_API int MPI_Rput_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                          int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                          MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request)
{
    REMORA_WIN_OR_RETURN(w, win);
    return rput(w, origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
                target_datatype, request, __func__);
}
REMORA_PMPI(MPI_Rput_c);

REMORA_API int MPI_Rget_c(void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank,
                          MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win,
                          MPI_Request *request)
{
    REMORA_WIN_OR_RETURN(w, win);
    return rget(w, origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
                target_datatype, request, __func__);
}
REMORA_PMPI(MPI_Rget_c);

REMORA_API int MPI_Raccumulate_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                                 int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                                 MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request)
{
    REMORA_WIN_OR_RETURN(w, win);
    return rget_accumulate(w, origin_addr, origin_count, origin_datatype, NULL, target_rank, target_disp, target_count,
                           target_datatype, op, request, __func__);
}
REMORA_PMPI(MPI_Raccumulate_c);

REMORA_API int MPI_Rget_accumulate_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                                     void *result_addr, MPI_Count result_count, MPI_Datatype result_datatype,
                                     int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                                     MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request)
{
    REMORA_WIN_OR_RETURN(w, win);
    struct remora_acc_result res = {result_addr, result_count, result_datatype};
    return rget_accumulate(w, origin_addr, origin_count, origin_datatype, &res, target_rank, target_disp, target_count,
                           target_datatype, op, request, __func__);
}
REMORA_PMPI(MPI_Rget_accumulate_c);
#endif
