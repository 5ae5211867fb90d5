/* Teams: SHMEM_TEAM_WORLD, SHMEM_TEAM_SHARED, the teams the program splits
 * from them, and the queries on any team.
 *
 * A team is its PEs' world numbers in team order and a communicator of the
 * host MPI over the same PEs in the same order (MPI_Comm_split of the
 * parent's, keyed by the new team number), which the collectives use.  A
 * split is collective over the parent and ends with an agreement over it, so
 * that every PE of the parent returns the same status: nonzero everywhere
 * (and no team anywhere) when any PE could not make its team. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "runtime/bootstrap.h"
#include "shmem/api.h"
#include "shmem/coll.h"
#include "shmem/ctx.h"
#include "shmem/ops.h"
#include "shmem/team.h"

struct remora_shmem_team remora_shmem_team_world, remora_shmem_team_shared;

/* Teams made by splits, on a list so that shmem_finalize frees those the
 * program did not destroy.  A destroyed team that still has contexts stays
 * on it as a husk with no PEs (see pshmem_team_destroy). */
struct made_team {
    struct remora_shmem_team t; /* first: the handle points here */
    struct made_team *prev, *next;
};
static struct made_team made = {.prev = &made, .next = &made};
static pthread_mutex_t made_lock = PTHREAD_MUTEX_INITIALIZER;

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
    remora_shmem_coll_attach(&t->shm, &t->hier, comm, t->world_pe, n);
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

static void made_release(struct made_team *m)
{
    pthread_mutex_lock(&made_lock);
    m->prev->next = m->next;
    m->next->prev = m->prev;
    pthread_mutex_unlock(&made_lock);
    remora_shmem_coll_detach(&m->t.shm, &m->t.hier);
    if (m->t.comm != MPI_COMM_NULL)
        PMPI_Comm_free(&m->t.comm);
    free(m->t.world_pe);
    free(m);
}

void remora_shmem_teams_finalize(void)
{
    remora_shmem_active_sets_free();
    while (made.next != &made)
        made_release(made.next);
    struct remora_shmem_team *pre[] = {&remora_shmem_team_world, &remora_shmem_team_shared};
    for (int i = 0; i < 2; i++) {
        remora_shmem_coll_detach(&pre[i]->shm, &pre[i]->hier);
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

/* ---- splits ------------------------------------------------------------------------ */
static int config_valid(const shmem_team_config_t *config, long mask)
{
    if (mask & ~SHMEM_TEAM_NUM_CONTEXTS)
        return 0;
    return !(mask & SHMEM_TEAM_NUM_CONTEXTS) || (config && config->num_contexts >= 0);
}

/* The team of the PEs of `parent` that pass the same color (>= 0), numbered by
 * key; color < 0: this PE joins none.  Collective over parent.  *out is the new
 * team or SHMEM_TEAM_INVALID; returns 1 when this PE's part went well. */
static int team_make(const struct remora_shmem_team *parent, int color, int key, const shmem_team_config_t *config,
                     long mask, shmem_team_t *out)
{
    MPI_Comm comm = MPI_COMM_NULL;
    *out = SHMEM_TEAM_INVALID;
    if (PMPI_Comm_split(parent->comm, color >= 0 ? color : MPI_UNDEFINED, key, &comm) != MPI_SUCCESS)
        return 0;
    if (comm == MPI_COMM_NULL)
        return 1;
    int n, me;
    PMPI_Comm_size(comm, &n);
    PMPI_Comm_rank(comm, &me);
    struct made_team *m = calloc(1, sizeof *m);
    int *pes = malloc((size_t)n * sizeof *pes);
    /* the members learn each other's world numbers, in team order */
    if (!remora_boot_agree(comm, m && pes) ||
        PMPI_Allgather(&remora_shmem.my_pe, 1, MPI_INT, pes, 1, MPI_INT, comm) != MPI_SUCCESS) {
        free(m), free(pes);
        PMPI_Comm_free(&comm);
        return 0;
    }
    m->t = (struct remora_shmem_team){.my_pe = me, .n_pes = n, .world_pe = pes, .comm = comm, .config_mask = mask};
    remora_shmem_coll_attach(&m->t.shm, &m->t.hier, comm, pes, n);
    if ((mask & SHMEM_TEAM_NUM_CONTEXTS) && config) /* else invalid: the split fails (split_end) */
        m->t.config.num_contexts = config->num_contexts;
    pthread_mutex_lock(&made_lock);
    m->prev = made.prev, m->next = &made;
    made.prev->next = m, made.prev = m;
    pthread_mutex_unlock(&made_lock);
    *out = (shmem_team_t)&m->t;
    return 1;
}

/* Ends a split over parent: 0 when every PE made its teams, else nonzero on
 * every PE with the teams made here released. */
static int split_end(const struct remora_shmem_team *parent, int ok, shmem_team_t *a, shmem_team_t *b)
{
    if (remora_boot_agree(parent->comm, ok))
        return 0;
    shmem_team_t *made_here[] = {a, b};
    for (int i = 0; i < 2; i++)
        if (made_here[i] && *made_here[i] != SHMEM_TEAM_INVALID) {
            made_release((struct made_team *)*made_here[i]);
            *made_here[i] = SHMEM_TEAM_INVALID;
        }
    return -1;
}

/* The 1.6 text: PE i of the new team is parent PE start + i*stride, all of them
 * in [0, N) (so a wrap-around is out of range); stride 0 only with size 1. */
static int triplet_valid(int n, int start, int stride, int size)
{
    if (size < 1 || start < 0 || start >= n || (stride == 0 && size != 1))
        return 0;
    int64_t last = (int64_t)start + (int64_t)stride * (size - 1);
    return last >= 0 && last < n;
}

int pshmem_team_split_strided(shmem_team_t parent_team, int start, int stride, int size,
                              const shmem_team_config_t *config, long config_mask, shmem_team_t *new_team)
{
    remora_shmem_check_init("shmem_team_split_strided");
    if (new_team)
        *new_team = SHMEM_TEAM_INVALID;
    /* every PE of the parent passes the same triplet: an invalid one fails everywhere without communication */
    if (parent_team == SHMEM_TEAM_INVALID || !new_team)
        return -1;
    const struct remora_shmem_team *p = team_of(parent_team);
    if (!triplet_valid(p->n_pes, start, stride, size))
        return -1;
    int64_t d = (int64_t)p->my_pe - start, idx = -1;
    if (stride == 0)
        idx = d == 0 ? 0 : -1;
    else if (d % stride == 0 && d / stride >= 0 && d / stride < size)
        idx = d / stride;
    int ok = team_make(p, idx >= 0 ? 0 : -1, (int)idx, config, config_mask, new_team);
    ok = ok && (idx < 0 || config_valid(config, config_mask));
    return split_end(p, ok, new_team, NULL);
}
REMORA_SHMEM_ALIAS(shmem_team_split_strided);

/* (x, y) = (pe mod xrange, pe div xrange): an x-team is a row (same y, numbered
 * by x), a y-team a column (same x, numbered by y). */
int pshmem_team_split_2d(shmem_team_t parent_team, int xrange, const shmem_team_config_t *xaxis_config,
                         long xaxis_mask, shmem_team_t *xaxis_team, const shmem_team_config_t *yaxis_config,
                         long yaxis_mask, shmem_team_t *yaxis_team)
{
    remora_shmem_check_init("shmem_team_split_2d");
    if (xaxis_team)
        *xaxis_team = SHMEM_TEAM_INVALID;
    if (yaxis_team)
        *yaxis_team = SHMEM_TEAM_INVALID;
    /* xrange is the same on every PE of the parent; 0 leaves no x dimension */
    if (parent_team == SHMEM_TEAM_INVALID || !xaxis_team || !yaxis_team || xrange <= 0)
        return -1;
    const struct remora_shmem_team *p = team_of(parent_team);
    int x = p->my_pe % xrange, y = p->my_pe / xrange;
    int ok = team_make(p, y, x, xaxis_config, xaxis_mask, xaxis_team);
    ok = team_make(p, x, y, yaxis_config, yaxis_mask, yaxis_team) && ok;
    ok = ok && config_valid(xaxis_config, xaxis_mask) && config_valid(yaxis_config, yaxis_mask);
    return split_end(p, ok, xaxis_team, yaxis_team);
}
REMORA_SHMEM_ALIAS(shmem_team_split_2d);

/* The 1.6 text: destroying a team destroys the shareable contexts made from it
 * (private ones the program must have destroyed).  The contexts are ctx.c's and
 * it keeps no list of a team's contexts (only their count), so they cannot be
 * freed here: a team that still has contexts is kept as a husk with no PEs, so
 * that an operation on one of them ends the job with a message naming the
 * routine ("PE n is not in the team") and shmem_ctx_destroy on it stays safe;
 * shmem_finalize frees the husk.  Operations issued on those contexts are
 * completed first, as destroying them would. */
void pshmem_team_destroy(shmem_team_t team)
{
    if (team == SHMEM_TEAM_INVALID)
        return;
    struct remora_shmem_team *t = (struct remora_shmem_team *)team;
    if (t->predefined)
        remora_shmem_abort("shmem_team_destroy", "a predefined team (SHMEM_TEAM_WORLD, SHMEM_TEAM_SHARED) cannot be "
                                                 "destroyed");
    if (t->comm == MPI_COMM_NULL)
        remora_shmem_abort("shmem_team_destroy", "the team was already destroyed");
    if (__atomic_load_n(&t->contexts, __ATOMIC_RELAXED) == 0) {
        made_release((struct made_team *)t);
        return;
    }
    remora_shmem_quiet_all();
    remora_shmem_coll_detach(&t->shm, &t->hier);
    PMPI_Comm_free(&t->comm);
    free(t->world_pe);
    t->world_pe = NULL;
    t->n_pes = 0;
    t->my_pe = -1;
}
REMORA_SHMEM_ALIAS(shmem_team_destroy);

int pshmem_team_sync(shmem_team_t team)
{
    if (team == SHMEM_TEAM_INVALID || team_of(team)->comm == MPI_COMM_NULL)
        return -1;
    struct remora_shmem_group g = remora_shmem_team_group((struct remora_shmem_team *)team);
    return remora_shmem_group_sync(&g) == MPI_SUCCESS ? 0 : -1;
}
REMORA_SHMEM_ALIAS(shmem_team_sync);
