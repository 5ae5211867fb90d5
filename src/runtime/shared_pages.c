/* Window pages moved into shared memory and back (see shared_pages.h).
 * Guarded by remora_ctx.lock. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "runtime/context.h"
#include "runtime/grow.h"
#include "runtime/log.h"
#include "runtime/shared_pages.h"

struct shared {
    uintptr_t lo, hi; /* the pages */
    int fd;
    uint32_t serial;
    int refs;         /* windows over them */
};

static struct shared *shared;
static int nshared, cap_shared;
static uint32_t next_serial;

/* Whether every mapping that covers [lo, hi) is, with inode 0, private
 * anonymous memory of ours: read-write, not shared, no file, not the main
 * stack, no huge pages; else the shared mapping of the file with that inode
 * (/proc/self/maps: "start-end perms offset dev inode [name]").  1 or 0; -1
 * when the maps cannot be read. */
static int mapped_as(uintptr_t lo, uintptr_t hi, unsigned long file)
{
    FILE *f = fopen("/proc/self/maps", "re");
    if (!f)
        return -1;
    char line[512];
    uintptr_t covered = lo;
    int ok = 1;
    while (ok && covered < hi && fgets(line, sizeof line, f)) {
        uintptr_t start, end;
        char perms[5], name[256] = "";
        unsigned long inode;
        if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR " %4s %*s %*s %lu %255s", &start, &end, perms, &inode, name) < 4)
            continue;
        if (end <= covered || start >= hi)
            continue;
        ok = start <= covered && inode == file &&
             (file ? !strcmp(perms, "rw-s") : !strcmp(perms, "rw-p") && (!name[0] || !strcmp(name, "[heap]")));
        covered = end;
    }
    fclose(f);
    return ok && covered >= hi;
}

/* Replaces [at, at + len) by the mapping at from (same length) in one step.
 * The system call itself: memory hooks that wrap mremap may drop its fifth
 * argument (UCX 1.13's ucm does, and MREMAP_FIXED then reads a stray
 * address).  Then the same-size mremap in place, a no-op, through whatever
 * wraps it: registration caches (UCX's, Open MPI's) forget the old pages. */
static int move_over(void *from, void *at, size_t len)
{
    if ((void *)syscall(SYS_mremap, from, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, at) != at)
        return 0;
    mremap(at, len, len, 0);
    return 1;
}

/* Fills copy (a mapping of len bytes) with [lo, lo + len) and moves it
 * there: 1; 0 when it cannot (copy unmapped, nothing changed). */
static int fill_and_move(void *copy, uintptr_t lo, size_t len)
{
    if (copy == MAP_FAILED)
        return 0;
    memcpy(copy, (void *)lo, len);
    if (move_over(copy, (void *)lo, len))
        return 1;
    munmap(copy, len);
    return 0;
}

/* Moves [lo, hi) into a new memfd; its fd, or -1 (nothing changed). */
static int move_into_file(uintptr_t lo, uintptr_t hi)
{
    size_t len = hi - lo;
    int fd = memfd_create("remora-window", MFD_CLOEXEC);
    if (fd < 0)
        return -1;
    if (ftruncate(fd, (off_t)len) == 0 &&
        fill_and_move(mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), lo, len))
        return fd;
    close(fd);
    return -1;
}

/* Moves [lo, hi), the file fd's pages, back into private anonymous memory:
 * 1; 0 when it cannot (the pages stay shared, which is still correct
 * memory); -1 when it need not: the program has unmapped or replaced them
 * already (freed its memory before the window, which a large free() does
 * with munmap). */
static int move_back(uintptr_t lo, uintptr_t hi, int fd)
{
    size_t len = hi - lo;
    struct stat st;
    if (fstat(fd, &st) != 0)
        return 0;
    if (mapped_as(lo, hi, (unsigned long)st.st_ino) == 0)
        return -1;
    return fill_and_move(mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), lo, len);
}

static void pages_of(const void *base, size_t size, uintptr_t *lo, uintptr_t *hi)
{
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), b = (uintptr_t)base;
    *lo = (b + page - 1) / page * page;
    *hi = (b + size) / page * page;
}

/* The entry overlapping [lo, hi), or NULL. */
static struct shared *overlapping(uintptr_t lo, uintptr_t hi)
{
    for (int i = 0; i < nshared; i++)
        if (shared[i].lo < hi && lo < shared[i].hi)
            return &shared[i];
    return NULL;
}

static void ref_of(const struct shared *s, struct remora_pool_ref *ref)
{
    *ref = (struct remora_pool_ref){s->fd, s->serial, s->lo, s->hi - s->lo};
}

int remora_pages_share(void *base, size_t size, struct remora_pool_ref *ref)
{
    uintptr_t lo, hi;
    pages_of(base, size, &lo, &hi);
    if (lo >= hi || (uintptr_t)base + size < (uintptr_t)base)
        return 0;
    pthread_mutex_lock(&remora_ctx.lock);
    struct shared *s = overlapping(lo, hi);
    int ok = 0;
    if (s) { /* another window's pages: the same ones, or none (no partial overlap) */
        ok = s->lo == lo && s->hi == hi;
        s->refs += ok;
    } else if (mapped_as(lo, hi, 0) == 1) {
        int fd = remora_grow((void **)&shared, &cap_shared, nshared + 1, sizeof *shared) ? move_into_file(lo, hi) : -1;
        if (fd >= 0) {
            s = &shared[nshared++];
            *s = (struct shared){lo, hi, fd, next_serial++, 1};
            ok = 1;
        } else {
            remora_log(REMORA_LOG_INFO, "window pages at %p (%zu bytes) stay private: %s", (void *)lo,
                       (size_t)(hi - lo), strerror(errno));
        }
    }
    if (ok)
        ref_of(s, ref);
    pthread_mutex_unlock(&remora_ctx.lock);
    return ok;
}

void remora_pages_unshare(void *base, size_t size)
{
    uintptr_t lo, hi;
    pages_of(base, size, &lo, &hi);
    pthread_mutex_lock(&remora_ctx.lock);
    struct shared *s = overlapping(lo, hi);
    if (s && --s->refs == 0) {
        if (move_back(s->lo, s->hi, s->fd)) /* the file's pages go, though peers may still map it */
            (void)!ftruncate(s->fd, 0);
        else
            remora_log(REMORA_LOG_INFO, "window pages at %p stay in shared memory after MPI_Win_free", (void *)s->lo);
        close(s->fd);
        *s = shared[--nshared];
    }
    pthread_mutex_unlock(&remora_ctx.lock);
}
