/* Global and static variables of the program are symmetric: the same
 * executable has the same writable segments at every PE, at the same offset
 * from the segment's start even where address-space randomisation moves it.
 * They are registered with the transport like heap extents; no other process
 * maps them, so they are reached by CMA on the node and the network off it,
 * and their atomics always go through the network. */
#include <link.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/bootstrap.h"
#include "runtime/log.h"
#include "shmem/regions.h"
#include "shmem/state.h"
#include "shmem/statics.h"

#define MAX_SEGMENTS 8

struct segments {
    int n;
    uintptr_t base[MAX_SEGMENTS];
    uint64_t len[MAX_SEGMENTS];
};

/* The first object dl_iterate_phdr reports is the executable. */
static int find_executable(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct segments *s = arg;
    for (int i = 0; i < info->dlpi_phnum && s->n < MAX_SEGMENTS; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_W) && ph->p_memsz) {
            s->base[s->n] = info->dlpi_addr + ph->p_vaddr;
            s->len[s->n] = ph->p_memsz;
            s->n++;
        }
    }
    return 1;
}

int remora_shmem_statics_init(void)
{
    struct segments s = {0};
    dl_iterate_phdr(find_executable, &s);
    /* every PE must run an executable with the same segments (not MPMD) */
    uint64_t shape[1 + MAX_SEGMENTS] = {(uint64_t)s.n}, lo[1 + MAX_SEGMENTS], hi[1 + MAX_SEGMENTS];
    memcpy(shape + 1, s.len, sizeof s.len);
    PMPI_Allreduce(shape, lo, 1 + MAX_SEGMENTS, MPI_UINT64_T, MPI_MIN, remora_shmem.comm);
    PMPI_Allreduce(shape, hi, 1 + MAX_SEGMENTS, MPI_UINT64_T, MPI_MAX, remora_shmem.comm);
    if (memcmp(lo, hi, sizeof lo) != 0) {
        remora_log(REMORA_LOG_WARN, "the PEs run different executables: global and static variables are not "
                   "symmetric (only the symmetric heap is)");
        return 0;
    }
    remora_shmem.statics = calloc((size_t)s.n, sizeof *remora_shmem.statics);
    if (!remora_boot_agree(remora_shmem.comm, remora_shmem.statics != NULL || s.n == 0))
        return -1;
    for (int i = 0; i < s.n; i++) {
        if (!remora_ok(remora_shmem_region_publish(&remora_shmem.statics[i], (void *)s.base[i], s.len[i], 0))) {
            remora_log(REMORA_LOG_ERROR, "cannot register the program's static data with the transport");
            return -1;
        }
        remora_shmem.nstatics = i + 1;
    }
    return 0;
}

void remora_shmem_statics_finalize(void)
{
    for (int i = 0; i < remora_shmem.nstatics; i++)
        remora_shmem_region_release(&remora_shmem.statics[i]);
    free(remora_shmem.statics);
    remora_shmem.statics = NULL;
    remora_shmem.nstatics = 0;
}
