/* Communication contexts (ctx.c).  A context is an ordering and completion
 * scope: fence and quiet act on its operations.  PE numbers passed with a
 * context made from a team are that team's numbers (ctx->team; NULL for the
 * default context and contexts of SHMEM_TEAM_WORLD, which need no translation).
 *
 * Resources: a context's operations run on the communication resource
 * instance of the thread that issues them (the transport's per-thread UCX
 * worker), so a thread that uses its own private context shares no lock with
 * other threads.  Quiet on any context completes at least that context's
 * operations (the transport's flush completes the whole process's). */
#ifndef REMORA_SHMEM_CTX_H
#define REMORA_SHMEM_CTX_H

#include <shmem.h>

#include "shmem/team.h"

struct remora_shmem_ctx {
    const struct remora_shmem_team *team; /* NULL: SHMEM_TEAM_WORLD */
    struct remora_shmem_team *owner_team; /* the team it was made from (counts its contexts) */
    long options;                         /* SHMEM_CTX_PRIVATE | SERIALIZED | NOSTORE */
};

extern struct remora_shmem_ctx remora_shmem_ctx_default;

/* The context behind a handle; aborts naming the routine for SHMEM_CTX_INVALID. */
static inline const struct remora_shmem_ctx *remora_shmem_ctx_of(const char *routine, shmem_ctx_t ctx)
{
    if (__builtin_expect(ctx == SHMEM_CTX_INVALID, 0))
        remora_shmem_abort(routine, "the context is SHMEM_CTX_INVALID");
    return (const struct remora_shmem_ctx *)ctx;
}

/* Remote completion of everything outstanding (quiet). */
void remora_shmem_quiet_all(void);

#endif
