/* Teams: SHMEM_TEAM_WORLD, SHMEM_TEAM_SHARED and the queries on any team. */
#include <stdlib.h>

#include "runtime/bootstrap.h"
#include "shmem/api.h"
#include "shmem/ctx.h"
#include "shmem/ops.h"
#include "shmem/team.h"

struct remora_shmem_team remora_shmem_team_world, remora_shmem_team_shared;

/* team from the world PEs pes[0..n) (ascending), with comm. */
static int team_fill(struct remora_shmem_team *t, const int *pes, int n, MPI_Comm comm)
{
    t->world_pe = malloc((size_t)n * sizeof *t->world_pe);
    if (!t->world_pe)
        return -1;
    t->n_pes = n;
    t->my_pe = -1;
    for (int i = 0; i < n; i++) {
        t->world_pe[i] = pes[i];
        if (pes[i] == remora_shmem.my_pe)
            t->my_pe = i;
    }
    t->comm = comm;
    t->predefined = 1;
    return 0;
}

int remora_shmem_teams_init(void)
{
    int n = remora_shmem.n_pes, ok = 1;
    int *all = malloc((size_t)n * sizeof *all);
    MPI_Comm world, shared;
    PMPI_Comm_dup(remora_shmem.comm, &world);
    /* SHARED: the PEs whose heaps are mapped here, which map ours (the same set on each of them) */
    PMPI_Comm_split(remora_shmem.comm, remora_shmem.local_pe[0], remora_shmem.my_pe, &shared);
    for (int i = 0; all && i < n; i++)
        all[i] = i;
    ok = all && team_fill(&remora_shmem_team_world, all, n, world) == 0 &&
         team_fill(&remora_shmem_team_shared, remora_shmem.local_pe, remora_shmem.nlocal, shared) == 0;
    free(all);
    remora_shmem_ctx_default = (struct remora_shmem_ctx){.team = NULL, .owner_team = &remora_shmem_team_world};
    return remora_boot_agree(remora_shmem.comm, ok) ? 0 : -1;
}

void remora_shmem_teams_finalize(void)
{
    struct remora_shmem_team *pre[] = {&remora_shmem_team_world, &remora_shmem_team_shared};
    for (int i = 0; i < 2; i++) {
        if (pre[i]->comm != MPI_COMM_NULL)
            PMPI_Comm_free(&pre[i]->comm);
        free(pre[i]->world_pe);
        *pre[i] = (struct remora_shmem_team){0};
    }
}

static const struct remora_shmem_team *team_of(shmem_team_t team) { return (const struct remora_shmem_team *)team; }

int pshmem_team_my_pe(shmem_team_t team) { return team == SHMEM_TEAM_INVALID ? -1 : team_of(team)->my_pe; }
REMORA_SHMEM_ALIAS(shmem_team_my_pe);

int pshmem_team_n_pes(shmem_team_t team) { return team == SHMEM_TEAM_INVALID ? -1 : team_of(team)->n_pes; }
REMORA_SHMEM_ALIAS(shmem_team_n_pes);

int pshmem_team_get_config(shmem_team_t team, long config_mask, shmem_team_config_t *config)
{
    if (team == SHMEM_TEAM_INVALID || !config)
        return -1;
    if (config_mask & SHMEM_TEAM_NUM_CONTEXTS)
        config->num_contexts = team_of(team)->config.num_contexts;
    return 0;
}
REMORA_SHMEM_ALIAS(shmem_team_get_config);

int pshmem_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team)
{
    if (src_team == SHMEM_TEAM_INVALID || dest_team == SHMEM_TEAM_INVALID)
        return -1;
    const struct remora_shmem_team *s = team_of(src_team), *d = team_of(dest_team);
    if (src_pe < 0 || src_pe >= s->n_pes)
        return -1;
    int world = s->world_pe[src_pe];
    for (int i = 0; i < d->n_pes; i++)
        if (d->world_pe[i] == world)
            return i;
    return -1;
}
REMORA_SHMEM_ALIAS(shmem_team_translate_pe);

void *pshmem_team_ptr(shmem_team_t team, const void *dest, int pe)
{
    if (team == SHMEM_TEAM_INVALID)
        return NULL;
    int world = remora_shmem_team_world_pe("shmem_team_ptr", team_of(team), pe);
    return pshmem_ptr(dest, world);
}
REMORA_SHMEM_ALIAS(shmem_team_ptr);
