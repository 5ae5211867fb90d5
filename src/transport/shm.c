/* The shm transport's mapped side (see shm.h): memory mapped in this process. */
#include <stdlib.h>
#include <sys/mman.h>

#include "transport/mapped.h"
#include "transport/shm.h"

static remora_status_t mapped_putv(const struct remora_rmem *m, const struct remora_iov *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        remora_mapped_put((char *)(m->base + v[i].off), v[i].local, v[i].len);
    return REMORA_OK;
}

static remora_status_t mapped_getv(const struct remora_rmem *m, const struct remora_iov *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        remora_mapped_copy(v[i].local, (char *)(m->base + v[i].off), v[i].len);
    return REMORA_OK;
}

static remora_status_t mapped_amo(const struct remora_rmem *m, uint64_t off, size_t size, enum remora_amo_op op, uint64_t operand,
                      uint64_t compare, uint64_t *fetched)
{
    if (!remora_amo_size_ok(m, size) || (m->base + off) % size)
        return REMORA_ERR_UNSUPPORTED;
    uint64_t old = remora_mapped_amo((void *)(m->base + off), size, op, operand, compare);
    if (fetched)
        *fetched = old;
    return REMORA_OK;
}

static remora_status_t mapped_read(const struct remora_rmem *m, uint64_t off, void *dst, size_t len)
{
    remora_mapped_copy(dst, (char *)(m->base + off), len);
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    return REMORA_OK;
}

/* Stores to mapped memory are complete once ordered: a full fence. */
static remora_status_t mapped_flush(int proc)
{
    (void)proc;
    remora_mapped_fence();
    return REMORA_OK;
}

/* The mapping a key owns (remora_shm_mapped_owning); keyless memory is
 * mapped for as long as this process lives (its own, pool chunks). */
struct owned_map {
    void *map;
    size_t len;
};

static void mapped_release(struct remora_rmem *m)
{
    struct owned_map *o = m->key;
    if (o) {
        munmap(o->map, o->len);
        free(o);
    }
}

const struct remora_transport remora_shm_mapped = {
    .name = "shm",
    .mapped = 1,
    .amo_sizes = 1 | 2 | 4 | 8,
    .amo_native = 1 | 2 | 4 | 8,
    .putv = mapped_putv,
    .getv = mapped_getv,
    .amo = mapped_amo,
    .read = mapped_read,
    .flush = mapped_flush,
    .release = mapped_release,
};

int remora_shm_mapped_owning(int proc, char *at, void *map, size_t len, struct remora_rmem *out)
{
    struct owned_map *o = malloc(sizeof *o);
    if (!o)
        return 0;
    *o = (struct owned_map){map, len};
    *out = (struct remora_rmem){.tp = &remora_shm_mapped, .base = (uintptr_t)at, .key = o, .proc = proc};
    return 1;
}
