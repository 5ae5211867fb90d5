/* The two-sided baseline of the same patterns (--pattern): latency
 * (ping-pong 0 <-> 1, half the round trip), bandwidth (rank 0 -> 1, a batch
 * of Isend per thread and round, acknowledged), message rate (ranks < P/2 ->
 * rank + P/2, as bandwidth) and halo (Isend/Irecv with the neighbours).
 * Thread t talks to thread t of the peer, by tag or (--thread-comms) on a
 * communicator of its own.  Receivers check every message's pattern. */
#include <stdlib.h>
#include <string.h>

#include "rmamt.h"

struct tworun {
    const struct options *o;
    size_t size;
    int threads, batch, rank, peer_to, peer_from; /* -1: none */
    MPI_Comm *comms;
    long round, errors;
};

static void fill(const struct tworun *r, int thread, unsigned char *buf)
{
    fill_pattern(buf, r->size, r->rank, thread, r->round);
    if (r->o->inject_corruption && r->round == r->o->warmup + r->o->iterations - 1 && thread == 0)
        buf[0] ^= 0x10;
}

static void check(struct tworun *r, int from, int thread, const unsigned char *buf)
{
    if (!r->o->verify)
        return;
    unsigned char want;
    size_t k = check_pattern(buf, r->size, from, thread, r->round, &want);
    if (k < r->size) {
        report_mismatch("message at the receiver", from, thread, r->round, k, want, buf[k]);
        __atomic_fetch_add(&r->errors, 1, __ATOMIC_RELAXED);
    }
}

static void thread_round(int t, void *arg)
{
    struct tworun *r = arg;
    MPI_Comm comm = r->comms[r->o->thread_comms ? t : 0];
    int tag = r->o->thread_comms ? 0 : t, B = r->batch;
    size_t S = r->size;
    /* room for every pattern: a batch from and to each of up to 26 neighbours */
    size_t slots = (size_t)B * 2 * 27;
    unsigned char *buf = malloc(S * slots + 1);
    MPI_Request *req = calloc(slots, sizeof *req);
    MPI_Status *st = calloc(slots, sizeof *st); /* not MPI_STATUSES_IGNORE: MPICH's header makes gcc warn */
    if (r->o->pattern == P_LATENCY) {
        if (r->peer_to >= 0) {
            fill(r, t, buf);
            MPI_Send(buf, (int)S, MPI_BYTE, r->peer_to, tag, comm);
            MPI_Recv(buf + S, (int)S, MPI_BYTE, r->peer_to, tag, comm, MPI_STATUS_IGNORE);
            check(r, r->peer_to, t, buf + S);
        } else if (r->peer_from >= 0) {
            MPI_Recv(buf, (int)S, MPI_BYTE, r->peer_from, tag, comm, MPI_STATUS_IGNORE);
            check(r, r->peer_from, t, buf);
            fill(r, t, buf);
            MPI_Send(buf, (int)S, MPI_BYTE, r->peer_from, tag, comm);
        }
    } else if (r->o->pattern == P_HALO) {
        int nn = r->o->neighbors, n = t < nn ? (nn - t + r->threads - 1) / r->threads : 0;
        int k = 0, i = 0;
        for (int d = t; d < nn; d += r->threads, i++) {
            int from = halo_neighbor(d, -1), dtag = r->o->thread_comms ? d : d * 1024 + t;
            for (int b = 0; b < B; b++)
                MPI_Irecv(buf + ((size_t)i * B + b) * S, (int)S, MPI_BYTE, from, dtag, comm, &req[k++]);
        }
        unsigned char *out = buf + (size_t)n * B * S;
        fill(r, t, out);
        i = 0;
        for (int d = t; d < nn; d += r->threads, i++) {
            int to = halo_neighbor(d, +1), dtag = r->o->thread_comms ? d : d * 1024 + t;
            for (int b = 0; b < B; b++)
                MPI_Isend(out, (int)S, MPI_BYTE, to, dtag, comm, &req[k++]);
        }
        MPI_Waitall(k, req, st);
        i = 0;
        for (int d = t; d < nn; d += r->threads, i++)
            for (int b = 0; b < B; b++)
                check(r, halo_neighbor(d, -1), t, buf + ((size_t)i * B + b) * S);
    } else if (r->peer_to >= 0) { /* bandwidth, message rate: sender */
        fill(r, t, buf);
        for (int b = 0; b < B; b++)
            MPI_Isend(buf, (int)S, MPI_BYTE, r->peer_to, tag, comm, &req[b]);
        MPI_Waitall(B, req, st);
        MPI_Recv(NULL, 0, MPI_BYTE, r->peer_to, tag, comm, MPI_STATUS_IGNORE);
    } else if (r->peer_from >= 0) { /* receiver */
        for (int b = 0; b < B; b++)
            MPI_Irecv(buf + (size_t)b * S, (int)S, MPI_BYTE, r->peer_from, tag, comm, &req[b]);
        MPI_Waitall(B, req, st);
        for (int b = 0; b < B; b++)
            check(r, r->peer_from, t, buf + (size_t)b * S);
        MPI_Send(NULL, 0, MPI_BYTE, r->peer_from, tag, comm);
    }
    free(buf);
    free(req);
    free(st);
}

double run_twosided(const struct options *o, int threads, size_t size, long *errors)
{
    int nprocs;
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    struct tworun r = {.o = o, .size = size, .threads = threads, .peer_to = -1, .peer_from = -1,
                       .batch = o->pattern == P_LATENCY ? 1 : o->window};
    MPI_Comm_rank(MPI_COMM_WORLD, &r.rank);
    if (o->pattern == P_HALO && o->thread_per_neighbor)
        r.threads = threads = o->neighbors;
    int half = nprocs / 2;
    if (o->pattern == P_MSGRATE) {
        r.peer_to = r.rank < half ? r.rank + half : -1;
        r.peer_from = r.rank >= half && r.rank < 2 * half ? r.rank - half : -1;
    } else if (o->pattern != P_HALO) {
        r.peer_to = r.rank == 0 ? 1 : -1;
        r.peer_from = r.rank == 1 ? 0 : -1;
    }
    int ncomms = o->thread_comms ? threads : 1;
    r.comms = malloc(sizeof *r.comms * (size_t)ncomms);
    for (int i = 0; i < ncomms; i++)
        MPI_Comm_dup(MPI_COMM_WORLD, &r.comms[i]);
    struct team *team = team_create(threads, thread_round, &r, o->place);
    double elapsed = 0;
    for (r.round = 0; r.round < o->warmup + o->iterations; r.round++) {
        double t0 = MPI_Wtime();
        team_release(team);
        team_wait(team);
        if (r.round >= o->warmup)
            elapsed += MPI_Wtime() - t0;
    }
    team_destroy(team);
    for (int i = 0; i < ncomms; i++)
        MPI_Comm_free(&r.comms[i]);
    free(r.comms);
    MPI_Allreduce(&r.errors, errors, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    double slowest;
    MPI_Allreduce(&elapsed, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    long msgs = 0, all;
    if (o->pattern == P_HALO)
        msgs = (long)o->neighbors * r.batch * o->iterations;
    else if (r.peer_to >= 0)
        msgs = (long)threads * r.batch * o->iterations;
    MPI_Allreduce(&msgs, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (slowest <= 0)
        return 0;
    switch (o->pattern) {
    case P_LATENCY: return slowest / (double)o->iterations / 2 * 1e6;
    case P_BANDWIDTH: return (double)all * (double)size / slowest / 1e6;
    default: return (double)all / slowest / 1e6;
    }
}
