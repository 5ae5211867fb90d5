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
#include "runtime/write_hold.h"

struct shared {
    uintptr_t lo, hi; /* the pages */
    int fd;
    uint32_t serial;
    int refs;         /* windows over them */
    int beside;       /* they hold bytes beside the windows' (partial end pages): moved only with writes held */
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

/* Copies len bytes between memory and the file fd (to_file: from at into
 * the file, else from the file to at): 1 when all went.  Through the kernel:
 * the pages hold other data of the program, which a sanitizer would see as
 * read out of bounds or raced with. */
static int copy_by_kernel(int fd, void *at, size_t len, int to_file)
{
    for (size_t done = 0; done < len;) {
        long n = syscall(to_file ? SYS_pwrite64 : SYS_pread64, fd, (char *)at + done, len - done, (off_t)done);
        if (n <= 0)
            return 0;
        done += (size_t)n;
    }
    return 1;
}

/* Replaces [lo, lo + len) by copy (a mapping of len bytes), filled with its
 * bytes (which are the file fd's already when !to_file), in one step: 1; 0
 * when it cannot (copy unmapped, nothing changed).  The writes of every
 * thread to the range are held meanwhile, so none is lost; a range that
 * holds others' bytes (beside) moves only so.
 *
 * The move is the mremap system call itself: memory hooks that wrap mremap
 * may drop its fifth argument (UCX 1.13's ucm does, and MREMAP_FIXED then
 * reads a stray address).  Then the same-size mremap in place, a no-op,
 * through whatever wraps it: registration caches (UCX's, Open MPI's) forget
 * the old pages.  Nothing in between writes to the range: this thread would
 * wait for itself. */
static int fill_and_move(void *copy, uintptr_t lo, size_t len, int beside, int fd, int to_file)
{
    if (copy == MAP_FAILED)
        return 0;
    struct remora_write_hold hold;
    int held = remora_hold_writes((void *)lo, len, &hold), moved = 0;
    if ((held || !beside) && copy_by_kernel(fd, to_file ? (void *)lo : copy, len, to_file))
        moved = (void *)syscall(SYS_mremap, copy, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, lo) == (void *)lo;
    if (held)
        remora_release_writes(&hold);
    if (!moved) {
        munmap(copy, len);
        return 0;
    }
    mremap((void *)lo, len, len, 0);
    return 1;
}

/* Moves [lo, hi) into a new memfd; its fd, or -1 (nothing changed). */
static int move_into_file(uintptr_t lo, uintptr_t hi, int beside)
{
    size_t len = hi - lo;
    int fd = memfd_create("remora-window", MFD_CLOEXEC);
    if (fd < 0)
        return -1;
    if (ftruncate(fd, (off_t)len) == 0 &&
        fill_and_move(mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), lo, len, beside, fd, 1))
        return fd;
    close(fd);
    return -1;
}

/* Moves s's pages back into private anonymous memory: 1; 0 when it cannot
 * (the pages stay shared, which is still correct memory); -1 when it need
 * not: the program has unmapped or replaced them already (freed its memory
 * before the window, which a large free() does with munmap). */
static int move_back(const struct shared *s)
{
    size_t len = s->hi - s->lo;
    struct stat st;
    if (fstat(s->fd, &st) != 0)
        return 0;
    if (mapped_as(s->lo, s->hi, (unsigned long)st.st_ino) == 0)
        return -1;
    return fill_and_move(mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), s->lo, len,
                         s->beside, s->fd, 0);
}

/* The pages of [base, base + size): those wholly inside it (around 0), or
 * every page it touches (around 1). */
static void pages_of(const void *base, size_t size, int around, uintptr_t *lo, uintptr_t *hi)
{
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), b = (uintptr_t)base, in = around ? 0 : page - 1;
    *lo = (b + in) / page * page;
    *hi = (b + size + page - 1 - in) / page * page;
}

/* The entry overlapping [lo, hi), or NULL. */
static struct shared *overlapping(uintptr_t lo, uintptr_t hi)
{
    for (int i = 0; i < nshared; i++)
        if (shared[i].lo < hi && lo < shared[i].hi)
            return &shared[i];
    return NULL;
}

/* Shares [lo, hi) (beside: bytes beside the window's lie there): counted
 * when another window holds these very pages; moved into a file when none
 * of them is shared yet and all are private anonymous memory.  The entry, or
 * NULL. */
static struct shared *share(uintptr_t lo, uintptr_t hi, int beside)
{
    struct shared *s = overlapping(lo, hi);
    if (s) /* another window's pages: the same ones, or none (no partial overlap) */
        return s->lo == lo && s->hi == hi ? (s->refs++, s) : NULL;
    if (lo >= hi || mapped_as(lo, hi, 0) != 1 ||
        !remora_grow((void **)&shared, &cap_shared, nshared + 1, sizeof *shared))
        return NULL;
    int fd = move_into_file(lo, hi, beside);
    if (fd < 0) {
        remora_log(REMORA_LOG_INFO, "window pages at %p (%zu bytes%s) stay private: %s", (void *)lo, (size_t)(hi - lo),
                   beside ? ", with others' bytes, whose writes must be held" : "", strerror(errno));
        return NULL;
    }
    s = &shared[nshared++];
    *s = (struct shared){lo, hi, fd, next_serial++, 1, beside};
    return s;
}

int remora_pages_share(void *base, size_t size, struct remora_pool_ref *ref)
{
    uintptr_t lo, hi, around_lo, around_hi;
    if ((uintptr_t)base + size < (uintptr_t)base)
        return 0;
    pages_of(base, size, 0, &lo, &hi);
    pages_of(base, size, 1, &around_lo, &around_hi);
    pthread_mutex_lock(&remora_ctx.lock);
    struct shared *s = NULL;
    if (remora_ctx.config.share_window_pages == REMORA_SHARE_PAGES_AROUND && (around_lo != lo || around_hi != hi))
        s = share(around_lo, around_hi, 1);
    if (!s) /* the whole pages alone */
        s = share(lo, hi, 0);
    if (s)
        *ref = (struct remora_pool_ref){s->fd, s->serial, s->lo, s->hi - s->lo};
    pthread_mutex_unlock(&remora_ctx.lock);
    return s != NULL;
}

void remora_pages_unshare(const struct remora_pool_ref *ref)
{
    pthread_mutex_lock(&remora_ctx.lock);
    struct shared *s = overlapping(ref->chunk_addr, ref->chunk_addr + ref->chunk_size);
    if (s && --s->refs == 0) {
        if (move_back(s)) /* the file's pages go, though peers may still map it */
            (void)!ftruncate(s->fd, 0);
        else
            remora_log(REMORA_LOG_INFO, "window pages at %p stay in shared memory after MPI_Win_free", (void *)s->lo);
        close(s->fd);
        *s = shared[--nshared];
    }
    pthread_mutex_unlock(&remora_ctx.lock);
}
