/* Holding writes with userfaultfd's write protection (see write_hold.h). */
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "runtime/write_hold.h"

#ifndef UFFD_FEATURE_WP_UNPOPULATED /* Linux 6.4; Debian 12's headers are older */
#define UFFD_FEATURE_WP_UNPOPULATED (1 << 13)
#endif
#ifndef USERFAULTFD_IOC_NEW /* /dev/userfaultfd, Linux 6.1 */
#define USERFAULTFD_IOC_NEW _IO(0xAA, 0x00)
#endif

/* A userfaultfd whose faults include those of system calls: by the system
 * call, else from /dev/userfaultfd; -1 when neither is allowed. */
static int open_uffd(void)
{
    int fd = -1;
#ifdef SYS_userfaultfd
    fd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
#endif
    if (fd < 0) {
        int dev = open("/dev/userfaultfd", O_RDWR | O_CLOEXEC);
        if (dev >= 0) {
            fd = ioctl(dev, USERFAULTFD_IOC_NEW, O_CLOEXEC | O_NONBLOCK);
            close(dev);
        }
    }
    return fd;
}

/* A userfaultfd ready to write-protect (see open_uffd); *unpopulated: it
 * protects pages never touched too (Linux 6.4).  -1 when there is none. */
static int ready_uffd(int *unpopulated)
{
    /* the API handshake is once per fd: a kernel that refuses the feature gets a new fd */
    for (int want = 1; want >= 0; want--) {
        int fd = open_uffd();
        if (fd < 0)
            return -1;
        struct uffdio_api api = {.api = UFFD_API, .features = want ? UFFD_FEATURE_WP_UNPOPULATED : 0};
        if (ioctl(fd, UFFDIO_API, &api) == 0 && (api.features & UFFD_FEATURE_PAGEFAULT_FLAG_WP)) {
            *unpopulated = want;
            return fd;
        }
        close(fd);
    }
    return -1;
}

/* Whether [lo, hi) overlaps the calling thread's stack. */
static int on_my_stack(uintptr_t lo, uintptr_t hi)
{
    pthread_attr_t attr;
    void *stack;
    size_t size;
    if (pthread_getattr_np(pthread_self(), &attr) != 0)
        return 1; /* unknown: assume the worst */
    int got = pthread_attr_getstack(&attr, &stack, &size) == 0;
    pthread_attr_destroy(&attr);
    return !got || (lo < (uintptr_t)stack + size && (uintptr_t)stack < hi);
}

int remora_hold_writes(void *addr, size_t len, struct remora_write_hold *hold)
{
    if (on_my_stack((uintptr_t)addr, (uintptr_t)addr + len)) {
        errno = EDEADLK;
        return 0;
    }
    int unpopulated;
    if ((hold->fd = ready_uffd(&unpopulated)) < 0)
        return 0;
    /* Without the feature only present pages are protected: a store into a
     * page never touched would fault a new private page in, unheld.  Reading
     * each page first maps it (the zero page at least). */
    if (!unpopulated) {
        uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
        for (uintptr_t p = (uintptr_t)addr; p < (uintptr_t)addr + len; p += page)
            (void)*(volatile const char *)p;
    }
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &hold->signals);
    struct uffdio_range range = {(uintptr_t)addr, len};
    struct uffdio_register reg = {.range = range, .mode = UFFDIO_REGISTER_MODE_WP};
    struct uffdio_writeprotect wp = {.range = range, .mode = UFFDIO_WRITEPROTECT_MODE_WP};
    if (ioctl(hold->fd, UFFDIO_REGISTER, &reg) == 0 && ioctl(hold->fd, UFFDIO_WRITEPROTECT, &wp) == 0)
        return 1;
    int e = errno;
    remora_release_writes(hold);
    errno = e;
    return 0;
}

/* Closing the userfaultfd unregisters the range (where it is still mapped)
 * and wakes every thread that waits on it; each retries its store. */
void remora_release_writes(struct remora_write_hold *hold)
{
    close(hold->fd);
    pthread_sigmask(SIG_SETMASK, &hold->signals, NULL);
}
