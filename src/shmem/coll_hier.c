/* How a group runs its collectives, chosen once when it is made: in shared
 * memory when all its PEs are on this node (coll_shm.c); across nodes, as a
 * hierarchy when some node holds several of its PEs; otherwise with the host
 * MPI's collectives on the group's communicator (coll.c).
 *
 * The hierarchy: the group's PEs on each node form a node group (in shared
 * memory when it gets a slot), and the first PE of each node a leaders' group
 * on the host MPI.  A sync is a node sync, a leaders' barrier and a node sync
 * again (nobody leaves before every node has arrived); a reduction reduces on
 * the node, then among the leaders, then the leader broadcasts the result on
 * its node.  Only the leaders' messages cross nodes.  Against the whole
 * communicator's collectives (Open MPI, isolated simulated nodes on 2 loaded
 * cores, alternating runs of rmamt-shmem), barrier and 8-byte sum: 4 PEs on
 * 2 nodes 22-90 us against 75-440 us; 8 PEs on 2 nodes 38-48 us against
 * 290-340 us; 8 PEs on 4 nodes 87-230 us against 300-2170 us.  Reductions
 * combine in another order than the flat rank order; every PE still gets the
 * same result (the leaders' Allreduce gives them one, the node broadcast
 * copies it).  Scans depend on the rank order, and data movement gains
 * nothing from the hierarchy: they stay on the communicator. */
#include <stdlib.h>

#include "shmem/coll.h"
#include "shmem/state.h"

/* The hierarchy of a group that spans nodes, or NULL when no node holds more
 * than one of its PEs (then it would only add steps).  Collective over comm. */
static struct remora_shmem_coll_hier *make_hier(MPI_Comm comm, const int *world_pe, int n)
{
    int me, here = 0, color = -1;
    PMPI_Comm_rank(comm, &me);
    for (int i = 0; i < n; i++)
        if (remora_shmem.view[world_pe[i]]) { /* on this node: the lowest is the node's color */
            here++;
            if (color < 0)
                color = world_pe[i];
        }
    int most = 0;
    if (PMPI_Allreduce(&here, &most, 1, MPI_INT, MPI_MAX, comm) != MPI_SUCCESS)
        remora_shmem_abort("shmem team", "the host MPI could not agree on the team's collectives");
    if (most < 2)
        return NULL;
    struct remora_shmem_coll_hier *h = calloc(1, sizeof *h);
    int *pes = malloc((size_t)here * sizeof *pes);
    if (!h || !pes)
        remora_shmem_abort("shmem team", "out of memory for the team's collectives");
    for (int i = 0, k = 0; i < n; i++)
        if (remora_shmem.view[world_pe[i]])
            pes[k++] = world_pe[i];
    h->node_world_pe = pes;
    struct remora_shmem_group *node = &h->node, *leaders = &h->leaders;
    if (PMPI_Comm_split(comm, color, me, &node->comm) != MPI_SUCCESS)
        remora_shmem_abort("shmem team", "the host MPI could not split the team by node");
    PMPI_Comm_rank(node->comm, &node->me);
    node->n = here;
    remora_shmem_coll_shm_attach(&h->shm, node->comm, pes, here);
    node->shm = h->shm.slot >= 0 ? &h->shm : NULL;
    if (PMPI_Comm_split(comm, node->me == 0 ? 0 : MPI_UNDEFINED, me, &leaders->comm) != MPI_SUCCESS)
        remora_shmem_abort("shmem team", "the host MPI could not make the team's leaders");
    if (leaders->comm != MPI_COMM_NULL) {
        PMPI_Comm_rank(leaders->comm, &leaders->me);
        PMPI_Comm_size(leaders->comm, &leaders->n);
    }
    return h;
}

void remora_shmem_coll_attach(struct remora_shmem_coll_shm *s, struct remora_shmem_coll_hier **h, MPI_Comm comm,
                              const int *world_pe, int n)
{
    *h = NULL;
    int all_here = 1; /* the same answer at every PE: being on one node is mutual */
    for (int i = 0; i < n && all_here; i++)
        all_here = remora_shmem.view[world_pe[i]] != NULL;
    if (all_here)
        remora_shmem_coll_shm_attach(s, comm, world_pe, n);
    else {
        *s = (struct remora_shmem_coll_shm){.slot = -1, .world_pe = world_pe};
        *h = make_hier(comm, world_pe, n);
    }
}

void remora_shmem_coll_detach(struct remora_shmem_coll_shm *s, struct remora_shmem_coll_hier **h)
{
    remora_shmem_coll_shm_detach(s);
    if (!*h)
        return;
    remora_shmem_coll_shm_detach(&(*h)->shm);
    PMPI_Comm_free(&(*h)->node.comm);
    if ((*h)->leaders.comm != MPI_COMM_NULL)
        PMPI_Comm_free(&(*h)->leaders.comm);
    free((*h)->node_world_pe);
    free(*h);
    *h = NULL;
}

int remora_shmem_hier_sync(const struct remora_shmem_coll_hier *h)
{
    int rc = remora_shmem_group_sync(&h->node);
    if (rc == MPI_SUCCESS && h->leaders.comm != MPI_COMM_NULL)
        rc = PMPI_Barrier(h->leaders.comm);
    return rc == MPI_SUCCESS ? remora_shmem_group_sync(&h->node) : rc;
}

int remora_shmem_hier_reduce(const struct remora_shmem_coll_hier *h, void *dest, const void *source, size_t nreduce,
                             MPI_Datatype type, size_t elem, MPI_Op op)
{
    int rc = remora_shmem_group_reduce(&h->node, dest, source, nreduce, type, elem, op);
    if (rc == MPI_SUCCESS && h->leaders.comm != MPI_COMM_NULL)
        rc = remora_shmem_group_reduce(&h->leaders, dest, dest, nreduce, type, elem, op);
    return rc == MPI_SUCCESS ? remora_shmem_group_broadcast(&h->node, dest, dest, nreduce, elem, 0, 0) : rc;
}
