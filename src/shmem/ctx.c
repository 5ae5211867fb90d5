/* Contexts, sessions and the ordering routines (fence, quiet, pe_quiet). */
#include <stdlib.h>

#include "shmem/api.h"
#include "shmem/ctx.h"
#include "shmem/ops.h"
#include "transport/mapped.h"

struct remora_shmem_ctx remora_shmem_ctx_default;

void remora_shmem_quiet_all(void)
{
    remora_mapped_fence();
    if (atomic_load_explicit(&remora_shmem.net_pending, memory_order_relaxed) &&
        atomic_exchange_explicit(&remora_shmem.net_pending, 0, memory_order_acq_rel)) {
        remora_status_t st = remora_flush_all();
        if (!remora_ok(st))
            remora_shmem_abort("shmem_quiet", "completing the operations failed: %s", remora_status_str(st));
    }
}

/* ---- ordering --------------------------------------------------------------------- */
/* Stores through shmem_ptr, or by another thread into this PE's heap, ring
 * no doorbell; the quiet that a program puts after them does (wait.c): every
 * PE of the node is rung, which costs a load per PE when nobody sleeps.  The
 * memory fence before (in quiet_all) orders the stores before the loads of
 * the doorbells' sleeper counts (the doorbell protocol, runtime/doorbell.h). */
static void quiet_ring(void)
{
    remora_shmem_quiet_all();
    for (int i = 0; i < remora_shmem.nlocal; i++)
        remora_shmem_ring(remora_shmem.local_pe[i]);
}

/* Puts to a mapped view are stores, ordered by the fence; what went through the
 * network is ordered by completing it (the transport offers no cheaper fence). */
static void fence(void) { quiet_ring(); }

void pshmem_quiet(void) { quiet_ring(); }
REMORA_SHMEM_ALIAS(shmem_quiet);
/* SHMEM_CTX_INVALID: "no operation is performed" (OpenSHMEM 1.5 and later:
 * shmem_ctx_quiet, shmem_ctx_fence, shmem_ctx_pe_quiet, shmem_ctx_destroy,
 * and shmem_ctx_get_team returns nonzero). */
void pshmem_ctx_quiet(shmem_ctx_t ctx)
{
    if (ctx != SHMEM_CTX_INVALID)
        quiet_ring();
}
REMORA_SHMEM_ALIAS(shmem_ctx_quiet);
void pshmem_fence(void) { fence(); }
REMORA_SHMEM_ALIAS(shmem_fence);
void pshmem_ctx_fence(shmem_ctx_t ctx)
{
    if (ctx != SHMEM_CTX_INVALID)
        fence();
}
REMORA_SHMEM_ALIAS(shmem_ctx_fence);

/* Completion toward some PEs: what is outstanding is completed for all (a superset). */
void pshmem_ctx_pe_quiet(shmem_ctx_t ctx, const int *target_pes, size_t npes)
{
    if (ctx == SHMEM_CTX_INVALID)
        return;
    const struct remora_shmem_ctx *c = remora_shmem_ctx_of("shmem_ctx_pe_quiet", ctx);
    for (size_t i = 0; i < npes; i++)
        remora_shmem_world_pe("shmem_ctx_pe_quiet", c, target_pes[i]);
    quiet_ring();
}
REMORA_SHMEM_ALIAS(shmem_ctx_pe_quiet);
void pshmem_pe_quiet(const int *target_pes, size_t npes) { pshmem_ctx_pe_quiet(SHMEM_CTX_DEFAULT, target_pes, npes); }
REMORA_SHMEM_ALIAS(shmem_pe_quiet);

/* ---- contexts --------------------------------------------------------------------- */
int pshmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t *ctx)
{
    if (ctx)
        *ctx = SHMEM_CTX_INVALID;
    if (!ctx || team == SHMEM_TEAM_INVALID || (options & ~(SHMEM_CTX_PRIVATE | SHMEM_CTX_SERIALIZED |
                                                            SHMEM_CTX_NOSTORE)))
        return -1;
    struct remora_shmem_team *t = (struct remora_shmem_team *)team;
    /* a team made with SHMEM_TEAM_NUM_CONTEXTS reserved that many; others have no limit */
    if ((t->config_mask & SHMEM_TEAM_NUM_CONTEXTS) && t->contexts >= t->config.num_contexts)
        return -1;
    struct remora_shmem_ctx *c = malloc(sizeof *c);
    if (!c)
        return -1;
    c->team = t == &remora_shmem_team_world ? NULL : t;
    c->owner_team = t;
    c->options = options;
    __atomic_fetch_add(&t->contexts, 1, __ATOMIC_RELAXED);
    *ctx = (shmem_ctx_t)c;
    return 0;
}
REMORA_SHMEM_ALIAS(shmem_team_create_ctx);

int pshmem_ctx_create(long options, shmem_ctx_t *ctx)
{
    remora_shmem_check_init("shmem_ctx_create");
    return pshmem_team_create_ctx(SHMEM_TEAM_WORLD, options, ctx);
}
REMORA_SHMEM_ALIAS(shmem_ctx_create);

void pshmem_ctx_destroy(shmem_ctx_t ctx)
{
    if (ctx == SHMEM_CTX_INVALID)
        return;
    if (ctx == SHMEM_CTX_DEFAULT)
        remora_shmem_abort("shmem_ctx_destroy", "SHMEM_CTX_DEFAULT cannot be destroyed");
    struct remora_shmem_ctx *c = (struct remora_shmem_ctx *)ctx;
    remora_shmem_quiet_all(); /* destroying a context completes its operations */
    __atomic_fetch_sub(&c->owner_team->contexts, 1, __ATOMIC_RELAXED);
    free(c);
}
REMORA_SHMEM_ALIAS(shmem_ctx_destroy);

int pshmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t *team)
{
    if (!team)
        return -1;
    if (ctx == SHMEM_CTX_INVALID) {
        *team = SHMEM_TEAM_INVALID;
        return -1;
    }
    const struct remora_shmem_ctx *c = (const struct remora_shmem_ctx *)ctx;
    *team = ctx == SHMEM_CTX_DEFAULT ? SHMEM_TEAM_WORLD : (shmem_team_t)c->owner_team;
    return 0;
}
REMORA_SHMEM_ALIAS(shmem_ctx_get_team);

/* Sessions are hints that a burst of operations follows; every operation here
 * is already issued at once, so there is nothing to batch.  A session on
 * SHMEM_CTX_INVALID does nothing (as quiet and fence on it). */
void pshmem_ctx_session_start(shmem_ctx_t ctx, long options, const shmem_session_config_t *config, long config_mask)
{
    (void)ctx, (void)options, (void)config, (void)config_mask;
}
REMORA_SHMEM_ALIAS(shmem_ctx_session_start);

void pshmem_ctx_session_stop(shmem_ctx_t ctx)
{
    if (ctx != SHMEM_CTX_INVALID)
        quiet_ring(); /* the end of a session completes it */
}
REMORA_SHMEM_ALIAS(shmem_ctx_session_stop);
