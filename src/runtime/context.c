/* Start-up and shutdown of the runtime's state. */
#include "runtime/context.h"
#include "runtime/log.h"

#include <sched.h>
#include <stdlib.h>
#include <unistd.h>

struct remora_context remora_ctx = {
    .lock = PTHREAD_MUTEX_INITIALIZER,
    .world_rank = -1,
};

static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;

/* How many processes of this job share the machine, from the launcher's
 * environment; 0 when unknown (windows then tell, see core/win.c). */
static int local_job_size(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS", "PMI_LOCAL_SIZE"};
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) {
        const char *v = getenv(vars[i]);
        if (v && atoi(v) > 0)
            return atoi(v);
    }
    return 0;
}

static int cpu_count(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return CPU_COUNT(&set);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

void remora_runtime_init(void)
{
    pthread_mutex_lock(&init_lock);
    if (remora_ctx.initialized) {
        pthread_mutex_unlock(&init_lock);
        return;
    }
    remora_ctx.pid = getpid();
    PMPI_Comm_rank(MPI_COMM_WORLD, &remora_ctx.world_rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &remora_ctx.world_size);
    PMPI_Query_thread(&remora_ctx.thread_level);
    remora_config_read(&remora_ctx.config);
    remora_topology_init();
    remora_ctx.ncpus = cpu_count();
    if (local_job_size() > remora_ctx.ncpus)
        atomic_store_explicit(&remora_ctx.oversubscribed, 1, memory_order_relaxed);
    remora_ctx.initialized = 1;
    pthread_mutex_unlock(&init_lock);
}

void remora_runtime_finalize(void)
{
    remora_pool_finalize();
}
