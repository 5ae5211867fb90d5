/* Logging on stderr; level and rank live in the runtime context. */
#include "runtime/log.h"
#include "runtime/context.h"

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static void vlog(const char *tag, const char *fmt, va_list ap)
{
    char line[1024];
    vsnprintf(line, sizeof line, fmt, ap);
    fprintf(stderr, "remora[%d] %s: %s\n", remora_ctx.world_rank, tag, line);
}

void remora_log(enum remora_log_level level, const char *fmt, ...)
{
    static const char *const tags[] = {"error", "warning", "info", "debug"};
    if (level > remora_ctx.config.log_level)
        return;
    va_list ap;
    va_start(ap, fmt);
    vlog(tags[level], fmt, ap);
    va_end(ap);
}

_Noreturn void remora_fatal(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vlog("fatal", fmt, ap);
    va_end(ap);
    int initialized = 0, finalized = 0;
    PMPI_Initialized(&initialized);
    PMPI_Finalized(&finalized);
    if (initialized && !finalized)
        PMPI_Abort(MPI_COMM_WORLD, MPI_ERR_INTERN);
    abort();
}
