/* hashtable's two-sided mode (main.c describes the protocol): active
 * messages to the owners, who insert by loads and stores, and NBX's
 * termination (synchronous sends, then a nonblocking barrier). */
#include "check.h"
#include "hashtable.h"

enum { TAG_INSERT = 1, IN_FLIGHT = 64 /* synchronous sends not yet matched */ };

/* the keys on their way, each in a buffer of its own until its send completes */
struct sends {
    MPI_Request request[IN_FLIGHT];
    uint64_t key[IN_FLIGHT];
    int idle[IN_FLIGHT], n_idle;
};

/* inserts every key that has arrived */
static void serve_arrivals(struct volume *v, const struct problem *pb, MPI_Comm comm)
{
    for (;;) {
        int arrived;
        MPI_Status status;
        APP_CHECK(MPI_Iprobe(MPI_ANY_SOURCE, TAG_INSERT, comm, &arrived, &status));
        if (!arrived)
            return;
        uint64_t key;
        APP_CHECK(MPI_Recv(&key, 1, MPI_UINT64_T, status.MPI_SOURCE, TAG_INSERT, comm, MPI_STATUS_IGNORE));
        volume_insert_local(v, pb, key);
    }
}

/* the buffers of the completed sends become idle */
static void reclaim(struct sends *s)
{
    int completed, index[IN_FLIGHT];
    MPI_Status status[IN_FLIGHT]; /* not MPI_STATUSES_IGNORE: gcc 12 takes MPICH's (MPI_Status *)1 for an array */
    APP_CHECK(MPI_Testsome(IN_FLIGHT, s->request, &completed, index, status));
    for (int i = 0; completed != MPI_UNDEFINED && i < completed; i++)
        s->idle[s->n_idle++] = index[i];
}

void twosided_insert(struct volume *v, const struct problem *pb, MPI_Comm comm, struct motif_times *t)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    struct sends s = {.n_idle = IN_FLIGHT};
    for (int i = 0; i < IN_FLIGHT; i++) {
        s.request[i] = MPI_REQUEST_NULL;
        s.idle[i] = i;
    }
    double t0 = MPI_Wtime();
    for (uint64_t i = 0; i < pb->inserts; i++) {
        uint64_t key = key_of(pb, rank, i);
        int owner = owner_of(pb, key);
        if (owner == rank) {
            volume_insert_local(v, pb, key);
            continue;
        }
        while (s.n_idle == 0) {
            serve_arrivals(v, pb, comm);
            reclaim(&s);
        }
        int b = s.idle[--s.n_idle];
        s.key[b] = key;
        APP_CHECK(MPI_Issend(&s.key[b], 1, MPI_UINT64_T, owner, TAG_INSERT, comm, &s.request[b]));
        serve_arrivals(v, pb, comm);
    }
    double t1 = MPI_Wtime();
    motif_phase(t, "insert", t1 - t0);
    /* my keys are all received once my synchronous sends complete; everybody's
     * once the barrier that every rank enters after that completes */
    while (s.n_idle < IN_FLIGHT) {
        serve_arrivals(v, pb, comm);
        reclaim(&s);
    }
    MPI_Request barrier;
    APP_CHECK(MPI_Ibarrier(comm, &barrier));
    for (int done = 0; !done;) {
        serve_arrivals(v, pb, comm);
        APP_CHECK(MPI_Test(&barrier, &done, MPI_STATUS_IGNORE));
    }
    motif_phase(t, "sync", MPI_Wtime() - t1);
}
