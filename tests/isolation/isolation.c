/* isolation: checks that scripts/mpirun's simulated nodes share nothing but
 * the network (plain MPI, no Remora needed).
 *
 *   isolation [--node-size K] [--shared-net]
 *
 * Ranks r and s are on the same simulated node iff r / K == s / K (K = 1 by
 * default).  For every pair of ranks, with the facts each rank reports by
 * MPI_Allgather and what it finds itself:
 *   same node:      same /proc/self/ns/{pid,ipc,mnt,uts,net} inodes and
 *                   hostname; sees the other's /dev/shm file; can
 *                   process_vm_readv the other by the pid it reports;
 *   different node: different pid, ipc, mnt, uts (and net, unless
 *                   --shared-net) namespaces and hostnames; does not see the
 *                   other's /dev/shm file; process_vm_readv by the pid the
 *                   other reports does not reach the other's memory.
 * Then MPI traffic between every pair (MPI_Sendrecv of 1 MiB, checked), so
 * that the host MPI's path between nodes is exercised.
 * Exits 0 if every check holds on every rank, 1 otherwise; without the
 * isolation (scripts/mpirun --no-isolate) the different-node checks fail.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

enum { NS_PID, NS_IPC, NS_MNT, NS_UTS, NS_NET, NS_COUNT };
static const char *ns_names[NS_COUNT] = {"pid", "ipc", "mnt", "uts", "net"};

struct facts {
    uint64_t ns[NS_COUNT];  /* inode numbers of /proc/self/ns/<name> */
    int64_t pid;            /* getpid() as this rank sees it */
    uint64_t secret_addr;   /* address of secret[] in this rank */
    uint64_t secret;        /* its value: unique per rank and run */
    char host[64];
};

static volatile uint64_t secret[1];
static int failures;

#define CHECK(cond, ...)                                                     \
    do {                                                                     \
        if (!(cond)) {                                                       \
            failures++;                                                      \
            fprintf(stderr, "isolation: rank %d: ", me);                     \
            fprintf(stderr, __VA_ARGS__);                                    \
            fputc('\n', stderr);                                             \
        }                                                                    \
    } while (0)

static uint64_t ns_inode(const char *name)
{
    char path[64];
    struct stat st;
    snprintf(path, sizeof path, "/proc/self/ns/%s", name);
    return stat(path, &st) == 0 ? (uint64_t)st.st_ino : 0;
}

static void shm_name(char *buf, size_t n, uint64_t tag, int rank)
{
    snprintf(buf, n, "/dev/shm/remora-isolation-%016" PRIx64 "-%d", tag, rank);
}

int main(int argc, char **argv)
{
    int node_size = 1, shared_net = 0, me, np;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--node-size") && i + 1 < argc)
            node_size = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--shared-net"))
            shared_net = 1;
        else {
            fprintf(stderr, "usage: isolation [--node-size K] [--shared-net]\n");
            return 2;
        }
    }
    if (node_size < 1)
        node_size = 1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);

    /* A tag for this run's /dev/shm files (runs side by side must not meet). */
    uint64_t tag = 0;
    if (me == 0) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        tag = ((uint64_t)ts.tv_sec << 32) ^ (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 16);
    }
    MPI_Bcast(&tag, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);

    struct facts mine, *all = calloc((size_t)np, sizeof *all);
    memset(&mine, 0, sizeof mine);
    for (int k = 0; k < NS_COUNT; k++)
        mine.ns[k] = ns_inode(ns_names[k]);
    mine.pid = getpid();
    secret[0] = tag ^ (0x9e3779b97f4a7c15ULL * (uint64_t)(me + 1));
    mine.secret = secret[0];
    mine.secret_addr = (uint64_t)(uintptr_t)secret;
    gethostname(mine.host, sizeof mine.host - 1);
    MPI_Allgather(&mine, (int)sizeof mine, MPI_BYTE, all, (int)sizeof mine, MPI_BYTE, MPI_COMM_WORLD);

    char path[128];
    shm_name(path, sizeof path, tag, me);
    int fd = open(path, O_CREAT | O_EXCL | O_WRONLY, 0600);
    CHECK(fd >= 0, "cannot create %s: %s", path, strerror(errno));
    if (fd >= 0) {
        CHECK(write(fd, &mine.secret, sizeof mine.secret) == (ssize_t)sizeof mine.secret, "write %s", path);
        close(fd);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    for (int s = 0; s < np; s++) {
        if (s == me)
            continue;
        const struct facts *o = &all[s];
        int same = me / node_size == s / node_size;
        for (int k = 0; k < NS_COUNT; k++) {
            if (same || (k == NS_NET && shared_net))
                CHECK(mine.ns[k] == o->ns[k], "%s namespace differs from rank %d's on the same node", ns_names[k], s);
            else
                CHECK(mine.ns[k] != o->ns[k], "%s namespace is rank %d's (another node)", ns_names[k], s);
        }
        if (same)
            CHECK(!strcmp(mine.host, o->host), "hostname %s, rank %d on the same node has %s", mine.host, s, o->host);
        else
            CHECK(strcmp(mine.host, o->host), "hostname %s is also rank %d's (another node)", mine.host, s);

        /* the other's /dev/shm file */
        shm_name(path, sizeof path, tag, s);
        uint64_t v = 0;
        int f = open(path, O_RDONLY);
        int seen = f >= 0 && read(f, &v, sizeof v) == (ssize_t)sizeof v && v == o->secret;
        if (f >= 0)
            close(f);
        if (same)
            CHECK(seen, "does not see rank %d's %s (same node)", s, path);
        else
            CHECK(f < 0, "sees rank %d's %s (another node)", s, path);

        /* the other's memory by the pid it reports */
        v = 0;
        struct iovec local = {&v, sizeof v};
        struct iovec remote = {(void *)(uintptr_t)o->secret_addr, sizeof v};
        errno = 0;
        ssize_t got = process_vm_readv((pid_t)o->pid, &local, 1, &remote, 1, 0);
        int reached = got == (ssize_t)sizeof v && v == o->secret;
        if (same)
            CHECK(reached, "process_vm_readv of rank %d (pid %" PRId64 ", same node) failed: %s", s, o->pid,
                  got < 0 ? strerror(errno) : "wrong data");
        else
            /* The pid may name another process of this node (pid namespaces
             * number from 1 each): what counts is not reaching the other. */
            CHECK(!reached, "process_vm_readv reached rank %d (pid %" PRId64 ", another node)", s, o->pid);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    shm_name(path, sizeof path, tag, me);
    unlink(path);

    /* MPI traffic between every pair: 1 MiB each way, checked. */
    const int count = 1 << 20;
    unsigned char *out = malloc((size_t)count), *in = malloc((size_t)count);
    for (int d = 1; d < np; d++) {
        int to = (me + d) % np, from = (me - d + np) % np;
        for (int i = 0; i < count; i++)
            out[i] = (unsigned char)(i * 7 + me * 13 + d);
        memset(in, 0, (size_t)count);
        MPI_Sendrecv(out, count, MPI_BYTE, to, d, in, count, MPI_BYTE, from, d, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        int bad = 0;
        for (int i = 0; i < count && !bad; i++)
            bad = in[i] != (unsigned char)(i * 7 + from * 13 + d);
        CHECK(!bad, "1 MiB from rank %d arrived wrong", from);
    }
    free(out);
    free(in);

    int total = 0;
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0)
        printf("isolation: %d ranks, %d per node (%s), host %s: %s (%d failed checks)\n", np, node_size,
               shared_net ? "shared network" : "own network", mine.host, total ? "FAILED" : "ok", total);
    free(all);
    MPI_Finalize();
    return total ? 1 : 0;
}
