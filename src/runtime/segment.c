/* Node-shared segments: memfd + pidfd_getfd, /proc/<pid>/fd, POSIX shm (see segment.h). */
#include "runtime/segment.h"
#include "runtime/bootstrap.h"
#include "runtime/context.h"
#include "runtime/log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

enum share_method { SHARE_MEMFD = 1, SHARE_POSIX = 2 };

struct share_msg {  /* what the creator tells the others */
    int method;     /* 0: creation failed */
    int fd;
    pid_t pid;
    char name[64];  /* SHARE_POSIX only */
};

/* Open the creator's memfd in this process: pidfd_getfd first, /proc second. */
int remora_fetch_peer_fd(pid_t pid, int fd)
{
#if defined(SYS_pidfd_open) && defined(SYS_pidfd_getfd)
    int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
    if (pidfd >= 0) {
        int mine = (int)syscall(SYS_pidfd_getfd, pidfd, fd, 0);
        close(pidfd);
        if (mine >= 0)
            return mine;
    }
#endif
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/fd/%d", (int)pid, fd);
    return open(path, O_RDWR | O_CLOEXEC);
}

static void *map_fd(int fd, size_t size)
{
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    return p == MAP_FAILED ? NULL : p;
}

void *remora_map_peer_fd(pid_t pid, int fd, size_t size)
{
    int mine = remora_fetch_peer_fd(pid, fd);
    if (mine < 0)
        return NULL;
    void *p = map_fd(mine, size);
    int e = errno;
    close(mine);
    errno = e;
    return p;
}

/* Creator side: an fd of `size` bytes, by memfd or else (or when REMORA_SHM=
 * posix asks) by a POSIX name, unlinked as soon as every member holds it. */
static int create_fd(size_t size, struct share_msg *msg)
{
    int fd = remora_ctx.config.shm_posix ? -1 : memfd_create("remora", MFD_CLOEXEC);
    msg->method = SHARE_MEMFD;
    if (fd < 0) {
        snprintf(msg->name, sizeof msg->name, "/remora-%d-%llu", (int)getpid(),
                 (unsigned long long)atomic_fetch_add(&remora_ctx.segment_serial, 1));
        fd = shm_open(msg->name, O_RDWR | O_CREAT | O_EXCL, 0600);
        msg->method = SHARE_POSIX;
    }
    if (fd < 0)
        return -1;
    if (ftruncate(fd, (off_t)size) != 0) {
        close(fd);
        if (msg->method == SHARE_POSIX)
            shm_unlink(msg->name);
        return -1;
    }
    return fd;
}

int remora_segment_create(MPI_Comm comm, int leader, int group_size, size_t size, struct remora_segment *seg)
{
    int rank, nprocs;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &nprocs);
    seg->addr = NULL;
    seg->size = size;
    seg->fd_passing = 0;

    struct share_msg mine = {0};
    int fd = -1, shared = size > 0 && group_size > 1;
    if (rank == leader) {
        mine.method = SHARE_MEMFD; /* "no failure" also for private and empty segments */
        if (shared) {
            fd = create_fd(size, &mine);
            mine.fd = fd;
            mine.pid = getpid();
            if (fd < 0) {
                remora_log(REMORA_LOG_ERROR, "cannot create a shared segment of %zu bytes: %s", size, strerror(errno));
                mine.method = 0;
            }
        }
    }
    /* One exchange for all groups: no per-node communicator is needed (MPICH
     * has room for only ~2000 communicators, and windows are many).  One
     * group: a broadcast (O(log p) time, O(1) memory). */
    struct share_msg msg = mine;
    if (group_size == nprocs) {
        PMPI_Bcast(&msg, sizeof msg, MPI_BYTE, leader, comm);
    } else {
        struct share_msg *all = malloc((size_t)nprocs * sizeof *all);
        if (!remora_boot_agree(comm, all != NULL)) {
            free(all);
            if (fd >= 0)
                close(fd);
            if (rank == leader && shared && mine.method == SHARE_POSIX)
                shm_unlink(mine.name);
            return MPI_ERR_NO_MEM;
        }
        PMPI_Allgather(&mine, sizeof mine, MPI_BYTE, all, sizeof mine, MPI_BYTE, comm);
        msg = all[leader];
        free(all);
    }

    int ok = msg.method != 0;
    if (ok && !shared) {
        ok = remora_segment_create_private(size, seg) == MPI_SUCCESS;
    } else if (ok) {
        if (rank != leader)
            fd = msg.method == SHARE_MEMFD ? remora_fetch_peer_fd(msg.pid, msg.fd) : shm_open(msg.name, O_RDWR, 0600);
        seg->addr = fd >= 0 ? map_fd(fd, size) : NULL;
        ok = seg->addr != NULL;
        if (!ok)
            remora_log(REMORA_LOG_ERROR, "cannot map a node-shared segment (%s): %s",
                       fd < 0 ? "fd not obtained" : "mmap", strerror(errno));
    }
    /* The leader's fd must stay open until every member holds its own
     * reference; after this point a POSIX name can go too. */
    int all_ok;
    PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, comm);
    if (fd >= 0)
        close(fd);
    if (rank == leader && shared && msg.method == SHARE_POSIX)
        shm_unlink(msg.name);
    if (!all_ok) {
        remora_segment_destroy(seg);
        return MPI_ERR_NO_MEM;
    }
    seg->size = size;
    seg->fd_passing = shared && msg.method == SHARE_MEMFD;
    return MPI_SUCCESS;
}

int remora_segment_create_private(size_t size, struct remora_segment *seg)
{
    seg->size = size;
    seg->addr = NULL;
    if (size == 0)
        return MPI_SUCCESS;
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return MPI_ERR_NO_MEM;
    seg->addr = p;
    return MPI_SUCCESS;
}

void remora_segment_destroy(struct remora_segment *seg)
{
    if (seg->addr)
        munmap(seg->addr, seg->size);
    seg->addr = NULL;
    seg->size = 0;
}
