/* Which processes share a node, by what the kernel shows (see context.h).
 *
 * Two processes can map each other's memory (memfd passing by pid) and use
 * CMA only if they run on one kernel (the boot id, a random UUID per boot)
 * and in the same pid, IPC and mount namespaces (pids mean the same process,
 * /dev/shm is the same).  So shm_key hashes the hostname, the boot id and the
 * inode numbers of those namespaces: containers or simulated nodes on one
 * machine get different keys, as two real machines do. */
#include "runtime/context.h"

#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

static uint64_t hash_bytes(uint64_t h, const void *p, size_t n)
{
    const unsigned char *s = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ s[i]) * 0x100000001b3ull; /* FNV-1a */
    return h;
}

static uint64_t hash_str(uint64_t h, const char *s)
{
    size_t n = 0;
    while (s[n])
        n++;
    return hash_bytes(h, s, n);
}

static uint64_t hash_file(uint64_t h, const char *path)
{
    char buf[128] = "";
    FILE *f = fopen(path, "r");
    if (f) {
        if (!fgets(buf, sizeof buf, f))
            buf[0] = 0;
        fclose(f);
    }
    return hash_str(h, buf);
}

/* The namespace's inode (and device): equal for processes in one namespace. */
static uint64_t hash_namespace(uint64_t h, const char *name)
{
    char path[64];
    struct stat st = {0};
    snprintf(path, sizeof path, "/proc/self/ns/%s", name);
    if (stat(path, &st) != 0)
        return hash_str(h, "no-namespace-info");
    h = hash_bytes(h, &st.st_dev, sizeof st.st_dev);
    return hash_bytes(h, &st.st_ino, sizeof st.st_ino);
}

void remora_topology_init(void)
{
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    uint64_t h = hash_str(0xcbf29ce484222325ull, host);
    h = hash_file(h, "/proc/sys/kernel/random/boot_id");
    h = hash_namespace(h, "pid");
    h = hash_namespace(h, "ipc");
    h = hash_namespace(h, "mnt");
    remora_ctx.shm_key = h;

    /* Overrides that split a machine into nodes (never join two machines). */
    uint64_t node = h;
    if (remora_ctx.config.transport == REMORA_TRANSPORT_UCX)
        node = hash_str(h + (uint64_t)remora_ctx.world_rank + 1, "own node");
    else if (remora_ctx.config.node_size > 0)
        node = hash_str(h + (uint64_t)(remora_ctx.world_rank / remora_ctx.config.node_size) + 1, "node");
    remora_ctx.node_key = node;
}
