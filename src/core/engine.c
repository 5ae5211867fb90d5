/* Start-up and shutdown of the engine and the layers below it. */
#include "core/acc_call.h"
#include "core/engine.h"
#include "core/win.h"
#include "runtime/context.h"
#include "runtime/log.h"
#include "transport/transport.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

struct remora_core remora_core = {
    .lock = PTHREAD_MUTEX_INITIALIZER,
    .dt_cache = {.lock = PTHREAD_MUTEX_INITIALIZER},
};

static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;

/* REMORA_SERVED_DIR (scripts/mpirun --remora sets it): <dir>/rank<N> says
 * that Remora's engine started in world rank N, so that a test run through
 * remora-run fails when the host MPI alone ran it. */
static void mark_served(void)
{
    const char *dir = getenv("REMORA_SERVED_DIR");
    if (!dir || !*dir)
        return;
    char path[4096];
    snprintf(path, sizeof path, "%s/rank%d", dir, remora_ctx.world_rank);
    int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
        remora_log(REMORA_LOG_WARN, "REMORA_SERVED_DIR: cannot create %s", path);
    else
        close(fd);
}

void remora_engine_init(void)
{
    pthread_mutex_lock(&init_lock);
    if (!remora_core.initialized) {
        remora_runtime_init();
        remora_type_table_init(&remora_core.types);
        remora_acc_owner_register();
        remora_core.initialized = 1;
        remora_log(REMORA_LOG_INFO, "Remora active: %d processes, thread level %d", remora_ctx.world_size,
                   remora_ctx.thread_level);
        mark_served();
    }
    pthread_mutex_unlock(&init_lock);
}

/* Windows the user did not free: their memory goes (segments have no names,
 * so nothing outlives the process anyway); collectives are not possible here,
 * so their communicators go with the host's MPI_Finalize. */
static void drop_leftover_windows(void)
{
    int left = 0;
    for (int i = 1; i < remora_core.wins.next_unused; i++) {
        struct remora_win *w = remora_win_table_get(&remora_core.wins, i);
        if (w) {
            remora_win_release_memory(w);
            left++;
        }
    }
    if (left)
        remora_log(REMORA_LOG_WARN, "%d window(s) not freed before MPI_Finalize", left);
}

void remora_engine_finalize(void)
{
    if (!remora_core.initialized || remora_core.finalized)
        return;
    drop_leftover_windows();
    remora_transport_finalize();
    remora_dt_finalize();
    remora_errhandler_table_destroy(&remora_core.errhandlers);
    remora_keyval_table_destroy(&remora_core.keyvals);
    remora_win_table_destroy(&remora_core.wins);
    remora_runtime_finalize();
    remora_core.finalized = 1;
}
