/* REMORA_* environment variables.  Unknown values are reported, never fatal:
 * a typo must not stop a production job, but it must not pass silently. */
#include "runtime/config.h"
#include "runtime/log.h"

#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

static int choose(const char *var, const char *const *names, int n, int dflt)
{
    const char *v = getenv(var);
    if (!v || !*v)
        return dflt;
    for (int i = 0; i < n; i++)
        if (strcmp(v, names[i]) == 0)
            return i;
    remora_log(REMORA_LOG_WARN, "%s=%s is not one of the known values; using %s", var, v, names[dflt]);
    return dflt;
}

static int number(const char *var, int dflt, int min)
{
    const char *v = getenv(var);
    if (!v || !*v)
        return dflt;
    char *end;
    long x = strtol(v, &end, 10);
    if (*end || x < min || x > (1 << 30)) {
        remora_log(REMORA_LOG_WARN, "%s=%s is not a number >= %d; using %d", var, v, min, dflt);
        return dflt;
    }
    return (int)x;
}

/* REMORA_NT_COPY_MIN, the size from which a put on the node counts as large
 * (transport/nt_copy.c decides whether it streams): by default half of a
 * core's L2 cache, 256 KiB when the size is unknown.  0: never.  Never on
 * other architectures than x86-64. */
static size_t nt_copy_min(void)
{
#if defined(__x86_64__)
    long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
    int dflt = l2 > 0 && l2 <= (1L << 30) ? (int)(l2 / 2) : 256 << 10;
#else
    int dflt = 0;
#endif
    int n = number("REMORA_NT_COPY_MIN", dflt, 0);
    return n ? (size_t)n : SIZE_MAX;
}

void remora_config_read(struct remora_config *cfg)
{
    static const char *const transports[] = {"auto", "ucx"};
    static const char *const progress[] = {"auto", "on", "off"};
    static const char *const levels[] = {"error", "warn", "info", "debug"};

    cfg->log_level = (enum remora_log_level)choose("REMORA_LOG", levels, 4, REMORA_LOG_WARN);
    cfg->transport = (enum remora_transport_choice)choose("REMORA_TRANSPORT", transports, 2, REMORA_TRANSPORT_AUTO);
    cfg->progress_thread = (enum remora_progress_choice)choose("REMORA_PROGRESS_THREAD", progress, 3, REMORA_PROGRESS_AUTO);
    cfg->node_size = number("REMORA_NODE_SIZE", 0, 0);
    cfg->ucx_instances = number("REMORA_UCX_INSTANCES", 16, 1);
    cfg->shm_pool_mib = number("REMORA_ALLOC_MEM_POOL_MIB", 1024, 0);
    static const char *const share_pages[] = {"0", "1", "whole"}; /* enum remora_share_pages */
    cfg->share_window_pages =
        (enum remora_share_pages)choose("REMORA_SHARE_WINDOW_PAGES", share_pages, 3, REMORA_SHARE_PAGES_AROUND);
    cfg->dyn_regions = number("REMORA_DYN_REGIONS", 4096, 1);
    static const char *const shm[] = {"memfd", "posix"};
    cfg->shm_posix = choose("REMORA_SHM", shm, 2, 0);
    cfg->nt_copy_min = nt_copy_min();
    cfg->spin_us = number("REMORA_SPIN_US", 1000, 0);
    cfg->net_spin_us = number("REMORA_NET_SPIN_US", 50, 0);
    cfg->net_recheck_us = number("REMORA_NET_RECHECK_US", 1000, 1);
    static const char *const barriers[] = {"auto", "central", "dissemination"};
    cfg->shmem_barrier = (enum remora_shmem_barrier_choice)choose("REMORA_SHMEM_BARRIER", barriers, 3,
                                                                  REMORA_SHMEM_BARRIER_AUTO);
}
