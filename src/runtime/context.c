/* Start-up and shutdown of the library's one context. */
#include "runtime/context.h"
#include "core/datatype.h"
#include "core/win.h"
#include "runtime/log.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct remora_context remora_ctx = {
    .lock = PTHREAD_MUTEX_INITIALIZER,
    .world_rank = -1,
    .ucx = {.init_lock = PTHREAD_MUTEX_INITIALIZER},
    .dt_cache = {.lock = PTHREAD_MUTEX_INITIALIZER},
};

static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;

static uint64_t hash_bytes(uint64_t h, const char *s)
{
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ull; /* FNV-1a */
    return h;
}

/* The machine: hostname and the kernel's boot id (two VMs or boots with one
 * hostname must not look alike). */
static uint64_t machine_id(void)
{
    char host[256] = "", boot[64] = "";
    gethostname(host, sizeof host - 1);
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (f) {
        if (!fgets(boot, sizeof boot, f))
            boot[0] = 0;
        fclose(f);
    }
    return hash_bytes(hash_bytes(0xcbf29ce484222325ull, host), boot);
}

/* How many processes of this job share the machine, from the launcher's
 * environment; 0 when unknown (windows then tell, see win.c). */
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

void remora_context_init(void)
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

    remora_ctx.shm_id = machine_id();
    remora_ctx.node_id = remora_ctx.shm_id;
    if (remora_ctx.config.transport == REMORA_TRANSPORT_UCX)
        remora_ctx.node_id = hash_bytes(remora_ctx.shm_id + (uint64_t)remora_ctx.world_rank + 1, "own node");
    else if (remora_ctx.config.node_size > 0)
        remora_ctx.node_id =
            hash_bytes(remora_ctx.shm_id + (uint64_t)(remora_ctx.world_rank / remora_ctx.config.node_size) + 1, "node");
    remora_ctx.ncpus = cpu_count();
    if (local_job_size() > remora_ctx.ncpus)
        atomic_store_explicit(&remora_ctx.oversubscribed, 1, memory_order_relaxed);

    remora_type_table_init(&remora_ctx.types);
    remora_ctx.initialized = 1;
    pthread_mutex_unlock(&init_lock);
    remora_log(REMORA_LOG_INFO, "Remora active: %d processes, thread level %d", remora_ctx.world_size,
               remora_ctx.thread_level);
}

/* Windows the user did not free: their memory goes (the segments have no
 * names, so nothing outlives the process anyway); collectives are not
 * possible here, so their communicators go with the host's MPI_Finalize. */
static void drop_leftover_windows(void)
{
    int left = 0;
    for (int i = 1; i < REMORA_WIN_CHUNK * REMORA_WIN_CHUNKS; i++) {
        if (!atomic_load_explicit(&remora_ctx.wins.chunk[i / REMORA_WIN_CHUNK], memory_order_relaxed)) {
            i += REMORA_WIN_CHUNK - 1;
            continue;
        }
        struct remora_win *w = remora_win_table_get(&remora_ctx.wins, i);
        if (w) {
            remora_segment_destroy(&w->seg);
            left++;
        }
    }
    if (left)
        remora_log(REMORA_LOG_WARN, "%d window(s) not freed before MPI_Finalize", left);
}

void remora_context_finalize(void)
{
    if (!remora_ctx.initialized || remora_ctx.finalized)
        return;
    drop_leftover_windows();
    remora_ucx_finalize();
    remora_dt_finalize();
    remora_errhandler_table_destroy(&remora_ctx.errhandlers);
    remora_keyval_table_destroy(&remora_ctx.keyvals);
    remora_win_table_destroy(&remora_ctx.wins);
    remora_pool_finalize();
    remora_ctx.finalized = 1;
}
