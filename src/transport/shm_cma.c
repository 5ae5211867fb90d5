/* Cross Memory Attach: reading and writing another process's memory on the
 * node (MPI_Win_create windows).  The kernel may move fewer bytes than asked
 * (page faults, IOV_MAX): advance both lists and go on. */
#include "transport/shm.h"

#include <errno.h>
#include <limits.h>

typedef ssize_t (*cma_fn)(pid_t, const struct iovec *, unsigned long, const struct iovec *, unsigned long,
                          unsigned long);

/* Skip `done` bytes of an iovec list: afterwards (*i, *off) is the first unmoved byte. */
static void advance(const struct iovec *v, size_t n, size_t *i, size_t *off, size_t done)
{
    while (done && *i < n) {
        size_t left = v[*i].iov_len - *off;
        if (done < left) {
            *off += done;
            return;
        }
        done -= left;
        (*i)++;
        *off = 0;
    }
    while (*i < n && v[*i].iov_len == 0)
        (*i)++;
}

/* Up to IOV_MAX entries starting at (i, off), the first one trimmed by off. */
static size_t window(const struct iovec *v, size_t n, size_t i, size_t off, struct iovec *out)
{
    size_t k = 0;
    for (; i < n && k < IOV_MAX; i++, k++) {
        out[k].iov_base = (char *)v[i].iov_base + (k == 0 ? off : 0);
        out[k].iov_len = v[i].iov_len - (k == 0 ? off : 0);
    }
    return k;
}

static int transfer(cma_fn fn, pid_t pid, const struct iovec *local, size_t nl, const struct iovec *remote, size_t nr)
{
    size_t li = 0, lo = 0, ri = 0, ro = 0;
    struct iovec lw[IOV_MAX], rw[IOV_MAX];
    advance(local, nl, &li, &lo, 0);
    advance(remote, nr, &ri, &ro, 0);
    while (li < nl && ri < nr) {
        size_t kl = window(local, nl, li, lo, lw), kr = window(remote, nr, ri, ro, rw);
        ssize_t got = fn(pid, lw, kl, rw, kr, 0);
        if (got < 0) {
            if (errno == EINTR)
                continue;
            return errno;
        }
        if (got == 0)
            return EFAULT;
        advance(local, nl, &li, &lo, (size_t)got);
        advance(remote, nr, &ri, &ro, (size_t)got);
    }
    return 0;
}

int remora_cma_writev(pid_t pid, const struct iovec *local, size_t nlocal, const struct iovec *remote, size_t nremote)
{
    return transfer(process_vm_writev, pid, local, nlocal, remote, nremote);
}

int remora_cma_readv(pid_t pid, const struct iovec *local, size_t nlocal, const struct iovec *remote, size_t nremote)
{
    return transfer(process_vm_readv, pid, local, nlocal, remote, nremote);
}
