/* APP_CHECK: the mini-apps' MPI calls that must succeed. */
#ifndef APP_CHECK_H
#define APP_CHECK_H

#include <mpi.h>
#include <stdio.h>

/* an MPI call that must succeed: the app stops with the call and the error */
#define APP_CHECK(call)                                                                         \
    do {                                                                                        \
        int rc_ = (call);                                                                       \
        if (rc_ != MPI_SUCCESS) {                                                               \
            fprintf(stderr, "%s failed (error %d) at %s:%d\n", #call, rc_, __FILE__, __LINE__); \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                       \
        }                                                                                       \
    } while (0)

#endif
