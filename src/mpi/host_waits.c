/* The host's blocking calls, waiting in their non-blocking forms (see
 * host_waits.h) under a host without a progress hook (MPICH, Intel MPI),
 * whose own waits spin for as long as they last: between two tests a wait
 * serves the network, yields an oversubscribed core, and naps once it has
 * lasted its budget (core/host_wait.h).  When the host has a progress hook
 * (Open MPI), each call is the host's own, behind one test. */
#include <stdlib.h>

#include "core/host_wait.h"
#include "mpi/api.h"
#include "mpi/host_waits.h"
#include "runtime/host_mpi.h"
#include "transport/transport.h"

static inline int serving(void) { return __builtin_expect(remora_host_waits_serve, 0) && remora_serve_wanted(); }

/* A blocking call waits here, in the host's non-blocking form, under a host
 * without a progress hook. */
static inline int waiting_here(void) { return __builtin_expect(remora_host_waits_serve, 0); }

/* Until the host's test says done, waiting between tests as core/host_wait.h says. */
#define UNTIL_DONE(test_call, done)                                                                     \
    do {                                                                                                \
        int rc_;                                                                                        \
        REMORA_HOST_WAIT_UNTIL(rc_, test_call, done);                                                   \
        return rc_;                                                                                     \
    } while (0)

static int wait_request(MPI_Request *r, MPI_Status *status)
{
    int flag = 0;
    UNTIL_DONE(REMORA_HOST(MPI_Test)(r, &flag, status), flag);
}

#define REMORA_UNPAREN(...) __VA_ARGS__

#define NONBLOCKING_FORM(name, iname, params, args)                                                    \
    REMORA_API int MPI_##name params                                                                   \
    {                                                                                                  \
        if (!waiting_here())                                                                           \
            return REMORA_HOST(MPI_##name) args;                                                       \
        MPI_Request r;                                                                                 \
        int rc = REMORA_HOST(MPI_##iname)(REMORA_UNPAREN args, &r);                                    \
        return rc == MPI_SUCCESS ? wait_request(&r, MPI_STATUS_IGNORE) : rc;                           \
    }                                                                                                  \
    REMORA_PMPI(MPI_##name);
REMORA_HOST_WAITS_NB(NONBLOCKING_FORM)

#define SERVE_ONCE(name, params, args)                                                                 \
    REMORA_API int MPI_##name params                                                                   \
    {                                                                                                  \
        if (serving())                                                                                 \
            remora_serve();                                                                            \
        return REMORA_HOST(MPI_##name) args;                                                           \
    }                                                                                                  \
    REMORA_PMPI(MPI_##name);
REMORA_HOST_TESTS(SERVE_ONCE)

REMORA_API int MPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                        MPI_Status *status)
{
    if (!waiting_here())
        return REMORA_HOST(MPI_Recv)(buf, count, datatype, source, tag, comm, status);
    MPI_Request r;
    int rc = REMORA_HOST(MPI_Irecv)(buf, count, datatype, source, tag, comm, &r);
    return rc == MPI_SUCCESS ? wait_request(&r, status) : rc;
}
REMORA_PMPI(MPI_Recv);

REMORA_API int MPI_Mrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message, MPI_Status *status)
{
    if (!waiting_here())
        return REMORA_HOST(MPI_Mrecv)(buf, count, datatype, message, status);
    MPI_Request r;
    int rc = REMORA_HOST(MPI_Imrecv)(buf, count, datatype, message, &r);
    return rc == MPI_SUCCESS ? wait_request(&r, status) : rc;
}
REMORA_PMPI(MPI_Mrecv);

REMORA_API int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    if (!waiting_here())
        return REMORA_HOST(MPI_Probe)(source, tag, comm, status);
    int flag = 0;
    UNTIL_DONE(REMORA_HOST(MPI_Iprobe)(source, tag, comm, &flag, status), flag);
}
REMORA_PMPI(MPI_Probe);

REMORA_API int MPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status)
{
    if (!waiting_here())
        return REMORA_HOST(MPI_Mprobe)(source, tag, comm, message, status);
    int flag = 0;
    UNTIL_DONE(REMORA_HOST(MPI_Improbe)(source, tag, comm, &flag, message, status), flag);
}
REMORA_PMPI(MPI_Mprobe);

/* The receive's status, as MPI_Sendrecv gives it. */
static int wait_pair(MPI_Request r[2], MPI_Status *status)
{
    MPI_Status st[2];
    int flag = 0, rc;
    REMORA_HOST_WAIT_UNTIL(rc, REMORA_HOST(MPI_Testall)(2, r, &flag, st), flag);
    if (rc == MPI_ERR_IN_STATUS) /* both completed, one with an error */
        rc = st[0].MPI_ERROR != MPI_SUCCESS ? st[0].MPI_ERROR : st[1].MPI_ERROR;
    if (rc == MPI_SUCCESS && status != MPI_STATUS_IGNORE)
        *status = st[0];
    return rc;
}

REMORA_API int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                            void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                            MPI_Comm comm, MPI_Status *status)
{
    if (!waiting_here())
        return REMORA_HOST(MPI_Sendrecv)(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype,
                                         source, recvtag, comm, status);
    MPI_Request r[2];
    int rc = REMORA_HOST(MPI_Irecv)(recvbuf, recvcount, recvtype, source, recvtag, comm, &r[0]);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = REMORA_HOST(MPI_Isend)(sendbuf, sendcount, sendtype, dest, sendtag, comm, &r[1]);
    if (rc != MPI_SUCCESS) {
        PMPI_Cancel(&r[0]);
        PMPI_Request_free(&r[0]);
        return rc;
    }
    return wait_pair(r, status);
}
REMORA_PMPI(MPI_Sendrecv);

/* The message to send leaves from a packed copy, so that the receive may
 * land in the buffer while it is sent (MPI_PACKED matches any type signature
 * the packed data has). */
REMORA_API int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source,
                                    int recvtag, MPI_Comm comm, MPI_Status *status)
{
    if (!waiting_here())
        return REMORA_HOST(MPI_Sendrecv_replace)(buf, count, datatype, dest, sendtag, source, recvtag, comm, status);
    int size = 0, pos = 0;
    int rc = PMPI_Pack_size(count, datatype, comm, &size);
    if (rc != MPI_SUCCESS)
        return rc;
    void *packed = malloc(size > 0 ? (size_t)size : 1);
    if (!packed)
        return REMORA_HOST(MPI_Sendrecv_replace)(buf, count, datatype, dest, sendtag, source, recvtag, comm, status);
    MPI_Request r[2];
    rc = PMPI_Pack(buf, count, datatype, packed, size, &pos, comm);
    if (rc == MPI_SUCCESS)
        rc = REMORA_HOST(MPI_Irecv)(buf, count, datatype, source, recvtag, comm, &r[0]);
    if (rc == MPI_SUCCESS) {
        rc = REMORA_HOST(MPI_Isend)(packed, pos, MPI_PACKED, dest, sendtag, comm, &r[1]);
        if (rc == MPI_SUCCESS) {
            rc = wait_pair(r, status);
        } else {
            PMPI_Cancel(&r[0]);
            PMPI_Request_free(&r[0]);
        }
    }
    free(packed);
    return rc;
}
REMORA_PMPI(MPI_Sendrecv_replace);

REMORA_API int MPI_Wait(MPI_Request *request, MPI_Status *status)
{
    if (!waiting_here())
        return REMORA_HOST(MPI_Wait)(request, status);
    return wait_request(request, status);
}
REMORA_PMPI(MPI_Wait);

REMORA_API int MPI_Waitall(int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[])
{
    if (!waiting_here())
        return REMORA_HOST(MPI_Waitall)(count, array_of_requests, array_of_statuses);
    int flag = 0;
    UNTIL_DONE(REMORA_HOST(MPI_Testall)(count, array_of_requests, &flag, array_of_statuses), flag);
}
REMORA_PMPI(MPI_Waitall);

REMORA_API int MPI_Waitany(int count, MPI_Request array_of_requests[], int *index, MPI_Status *status)
{
    if (!waiting_here())
        return REMORA_HOST(MPI_Waitany)(count, array_of_requests, index, status);
    int flag = 0;
    UNTIL_DONE(REMORA_HOST(MPI_Testany)(count, array_of_requests, index, &flag, status), flag);
}
REMORA_PMPI(MPI_Waitany);

/* Testsome's outcount: 0 while none completed, MPI_UNDEFINED with no active request. */
REMORA_API int MPI_Waitsome(int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[],
                            MPI_Status array_of_statuses[])
{
    if (!waiting_here())
        return REMORA_HOST(MPI_Waitsome)(incount, array_of_requests, outcount, array_of_indices, array_of_statuses);
    UNTIL_DONE(REMORA_HOST(MPI_Testsome)(incount, array_of_requests, outcount, array_of_indices, array_of_statuses),
               *outcount != 0);
}
REMORA_PMPI(MPI_Waitsome);
