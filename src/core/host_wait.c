/* Waiting for the host MPI's requests while this process stays reachable
 * (host_wait.h). */
#include "core/host_wait.h"

/* How long a wait naps between tests once it has waited REMORA_SPIN_US. */
#define HOST_NAP_NS 50000

/* Whether wait w has lasted its budget: once it has, it naps from then on. */
static int budget_spent(struct remora_host_wait *w)
{
    if (!w->napping) {
        w->spin.rounds++;
        w->napping = remora_wait_spun(&w->spin, 1);
    }
    return w->napping;
}

void remora_host_wait_between(struct remora_host_wait *w)
{
    if (remora_serve())
        return;
    if (!remora_serve_wanted() && budget_spent(w))
        nanosleep(&(struct timespec){0, HOST_NAP_NS}, NULL);
    else if (remora_ctx.oversubscribed)
        sched_yield();
}
