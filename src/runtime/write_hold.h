/* Holding the writes of every thread of this process to a range of its
 * memory while Remora replaces the range's mapping by a copy
 * (runtime/shared_pages.c): a thread that stores into the range meanwhile,
 * from user code or inside a system call, waits in the kernel until the hold
 * ends and then stores into the new mapping, so no store is lost.  Reads go
 * on as before.
 *
 * This is userfaultfd's write protection.  It needs the kernel to hold the
 * writes of system calls too (a hold for user code only would fail such a
 * call with EFAULT): the userfaultfd system call without
 * UFFD_USER_MODE_ONLY (CAP_SYS_PTRACE, or vm.unprivileged_userfaultfd=1),
 * or /dev/userfaultfd when its permissions let this process open it.  Where
 * neither is allowed, remora_hold_writes fails and the caller moves only
 * what it may move unheld. */
#ifndef REMORA_RUNTIME_WRITE_HOLD_H
#define REMORA_RUNTIME_WRITE_HOLD_H

#include <signal.h>
#include <stddef.h>

struct remora_write_hold {
    int fd;          /* the userfaultfd          */
    sigset_t signals; /* the caller's signal mask */
};

/* Starts holding the writes to [addr, addr + len) (whole pages of private
 * anonymous memory): 1, or 0 when they cannot be held (errno says why).
 * Until the release the caller must not write there itself: it would wait
 * for itself.  Its signals wait meanwhile (a handler could write there), and
 * a range that overlaps its own stack is refused (EDEADLK). */
int remora_hold_writes(void *addr, size_t len, struct remora_write_hold *hold);
/* Ends a hold: the threads that waited store now. */
void remora_release_writes(struct remora_write_hold *hold);

#endif
