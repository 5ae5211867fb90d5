/* Teams (team.c): an ordered set of PEs with its own PE numbers, a
 * communicator of the host MPI over the same PEs in the same order, how its
 * collectives run (coll.h: in shared memory when all its PEs are on this
 * node, else as a hierarchy or on the communicator), and its configuration. */
#ifndef REMORA_SHMEM_TEAM_H
#define REMORA_SHMEM_TEAM_H

#include <mpi.h>
#include <shmem.h>

#include "shmem/coll.h"
#include "shmem/state.h"

struct remora_shmem_team {
    int my_pe, n_pes;         /* this PE's number in the team, the team's size             */
    int *world_pe;            /* by team PE: its number in SHMEM_TEAM_WORLD                 */
    MPI_Comm comm;            /* the team's PEs, ranked as in the team                      */
    shmem_team_config_t config;
    long config_mask;
    int contexts;             /* contexts made from the team and not destroyed              */
    int predefined;           /* SHMEM_TEAM_WORLD or SHMEM_TEAM_SHARED: never destroyed     */
    struct remora_shmem_coll_shm shm; /* the collectives in shared memory (coll_shm.c)          */
    struct remora_shmem_coll_hier *hier; /* or across nodes as a hierarchy (coll_hier.c)        */
};

/* What the team's collectives run on (coll.h). */
static inline struct remora_shmem_group remora_shmem_team_group(struct remora_shmem_team *t)
{
    return (struct remora_shmem_group){.comm = t->comm, .me = t->my_pe, .n = t->n_pes,
                                       .shm = t->shm.slot >= 0 ? &t->shm : NULL, .hier = t->hier};
}

extern struct remora_shmem_team remora_shmem_team_world, remora_shmem_team_shared;

/* The world PE of team PE pe; aborts naming the routine when pe is not in the team. */
static inline __attribute__((always_inline)) int remora_shmem_team_world_pe(const char *routine, const struct remora_shmem_team *t, int pe)
{
    if (__builtin_expect((unsigned)pe >= (unsigned)t->n_pes, 0))
        remora_shmem_abort(routine, "PE %d is not in the team (it has %d PEs)", pe, t->n_pes);
    return t->world_pe[pe];
}

/* shmem_init: SHMEM_TEAM_WORLD and SHMEM_TEAM_SHARED (the PEs whose heap is
 * mapped here).  0, or -1 alike everywhere. */
int remora_shmem_teams_init(void);
/* shmem_finalize: frees every team left. */
void remora_shmem_teams_finalize(void);

#endif
