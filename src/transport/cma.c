/* The shm transport's CMA side: another process's memory on this kernel
 * that is not mapped here (MPI_Win_create windows, attached regions), read and
 * written with process_vm_readv/writev.  Only for processes the runtime
 * verified to share this kernel and pid namespace (keys.c checks the key's
 * shm_key): on another machine the pid would name some other process.  The
 * kernel may move fewer bytes than asked (page faults, IOV_MAX): advance both
 * lists and go on. */
#include "transport/shm.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>

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

static remora_status_t transfer(cma_fn fn, pid_t pid, const struct iovec *local, size_t nl, const struct iovec *remote, size_t nr)
{
    size_t li = 0, lo = 0, ri = 0, ro = 0;
    struct iovec lw[IOV_MAX], rw[IOV_MAX];
    advance(local, nl, &li, &lo, 0);
    advance(remote, nr, &ri, &ro, 0);
    while (li < nl && ri < nr) {
        size_t kl = window(local, nl, li, lo, lw), kr = window(remote, nr, ri, ro, rw);
        ssize_t got = fn(pid, lw, kl, rw, kr, 0);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return REMORA_ERR_IO;
        advance(local, nl, &li, &lo, (size_t)got);
        advance(remote, nr, &ri, &ro, (size_t)got);
    }
    return REMORA_OK;
}

remora_status_t remora_cma_writev(pid_t pid, const struct iovec *local, size_t nlocal, const struct iovec *remote, size_t nremote)
{
    return transfer(process_vm_writev, pid, local, nlocal, remote, nremote);
}

remora_status_t remora_cma_readv(pid_t pid, const struct iovec *local, size_t nlocal, const struct iovec *remote, size_t nremote)
{
    return transfer(process_vm_readv, pid, local, nlocal, remote, nremote);
}

/* ---- the operation table ------------------------------------------------------- */

#define BATCH 64

static pid_t pid_of(const struct remora_rmem *m) { return (pid_t)(intptr_t)m->key; }

static remora_status_t cma_vec(const struct remora_rmem *m, const struct remora_iov *v, size_t n, int put)
{
    struct iovec local[BATCH], remote[BATCH];
    for (size_t i = 0; i < n; i += BATCH) {
        size_t k = n - i < BATCH ? n - i : BATCH;
        for (size_t j = 0; j < k; j++) {
            local[j] = (struct iovec){v[i + j].local, v[i + j].len};
            remote[j] = (struct iovec){(void *)(m->base + v[i + j].off), v[i + j].len};
        }
        remora_status_t st = put ? remora_cma_writev(pid_of(m), local, k, remote, k)
                     : remora_cma_readv(pid_of(m), local, k, remote, k);
        if (!remora_ok(st))
            return st;
    }
    return REMORA_OK;
}

static remora_status_t cma_putv(const struct remora_rmem *m, const struct remora_iov *v, size_t n) { return cma_vec(m, v, n, 1); }
static remora_status_t cma_getv(const struct remora_rmem *m, const struct remora_iov *v, size_t n) { return cma_vec(m, v, n, 0); }

remora_status_t remora_shm_no_amo(const struct remora_rmem *m, uint64_t off, size_t size, enum remora_amo_op op,
                                  uint64_t operand, uint64_t compare, uint64_t *fetched)
{
    (void)m, (void)off, (void)size, (void)op, (void)operand, (void)compare, (void)fetched;
    return REMORA_ERR_UNSUPPORTED; /* no atomic crosses process_vm_writev */
}

static remora_status_t cma_read(const struct remora_rmem *m, uint64_t off, void *dst, size_t len)
{
    return remora_get(m, off, dst, len);
}

/* A process_vm_* call is complete when it returns. */
static remora_status_t cma_flush(int proc)
{
    (void)proc;
    return REMORA_OK;
}

static void cma_release(struct remora_rmem *m) { (void)m; }

const struct remora_transport remora_shm_cma = {
    .name = "shm-cma",
    .mapped = 0,
    .amo_sizes = 0,
    .amo_native = 0,
    .putv = cma_putv,
    .getv = cma_getv,
    .amo = remora_shm_no_amo,
    .read = cma_read,
    .flush = cma_flush,
    .release = cma_release,
};
