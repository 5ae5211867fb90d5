/* Serving where the process already waits: inside the host MPI.
 *
 * Over a network without hardware RMA (TCP) a put, get or atomic toward
 * this process completes only when this process's CPU carries it out
 * (remora_serve).  A process that waits in the host MPI (a blocking receive,
 * MPI_Wait, a probe, a collective, a barrier, or MPI_Test in a loop) does so
 * from the thread that waits, without a hand-off to the progress thread:
 *   Open MPI 4 and 5  call the functions registered with
 *                     opal_progress_register from every wait and test of
 *                     theirs: Remora registers one;
 *   other hosts       (MPICH, Intel MPI) have no such hook in their ABI:
 *                     host_waits.c turns each blocking call into the host's
 *                     non-blocking form and tests it while serving.
 * The progress thread serves a process that does neither (it computes). */
#include <dlfcn.h>

#include "mpi/host_waits.h"
#include "runtime/log.h"
#include "transport/transport.h"

int remora_host_waits_serve;
static int started;

/* Open MPI's progress callbacks: int (*)(void), the number of events handled. */
typedef int (*opal_callback)(void);
static int (*opal_unregister)(opal_callback);

static int serve_in_opal_progress(void) { return remora_serve(); }

void remora_host_progress_init(void)
{
    if (started++)
        return;
    int (*opal_register)(opal_callback) = (int (*)(opal_callback))dlsym(RTLD_DEFAULT, "opal_progress_register");
    opal_unregister = (int (*)(opal_callback))dlsym(RTLD_DEFAULT, "opal_progress_unregister");
    if (opal_register && opal_unregister && opal_register(serve_in_opal_progress) == 0) {
        remora_log(REMORA_LOG_DEBUG, "serving network requests in the host's progress (opal_progress_register)");
        return;
    }
    opal_unregister = NULL;
    remora_host_waits_serve = 1;
    remora_log(REMORA_LOG_DEBUG, "serving network requests in the host's blocking calls (non-blocking forms)");
}

void remora_host_progress_finalize(void)
{
    if (opal_unregister)
        opal_unregister(serve_in_opal_progress);
    opal_unregister = NULL;
    remora_host_waits_serve = 0;
    started = 0;
}
