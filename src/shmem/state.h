/* The OpenSHMEM front end's state: who the PEs are, where their symmetric
 * memory is, and how each is reached.
 *
 * Symmetric memory is the heap (heap.c) and the program's static data
 * (statics.c).  Each is a list of *regions*: ranges that every PE has at the
 * same offset from its own region base, each registered with the transport
 * and its key known to every PE.  A PE's heap is also mapped here when the
 * PE is on this node and passed us its memory (`view`): then a put is a copy
 * into the view, with no transport call.
 *
 * One atomicity domain per word (docs/shmem.md): when every PE maps every
 * heap (one node), atomics on the heap are CPU atomics on the views; otherwise
 * every atomic of every PE, its own included, goes through the network
 * transport.  Atomics on static data always go through the network (no other
 * process maps it).
 *
 * Written during shmem_init, shmem_malloc and friends (collective, with no
 * RMA in flight) and read freely otherwise. */
#ifndef REMORA_SHMEM_STATE_H
#define REMORA_SHMEM_STATE_H

#include <mpi.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "transport/transport.h"

#define REMORA_SHMEM_MAX_EXTENTS 48

/* A symmetric range: here at [base, base + len); at every PE at the same
 * offset from that PE's base, reached through fast[pe] (the quickest way:
 * mapped, CMA or network) and atom[pe] (the atomicity domain: the network,
 * or the mapped view when cpu_atomics). */
struct remora_shmem_region {
    uintptr_t base;
    uint64_t len;
    struct remora_mem_reg reg;       /* ours */
    struct remora_rmem *fast, *atom; /* by PE */
};

struct remora_shmem_heap {
    uintptr_t base;        /* this PE's heap: reserved [base, base + reserved), committed [base, base + committed) */
    size_t reserved;
    _Atomic size_t committed; /* grows (under a collective call) while other threads read it */
    int same_address;      /* every PE's heap starts at `base`                              */
    int fd;                /* the memfd behind it                                           */
    int *peer_fd;          /* by PE: our copy of the memfd of a PE whose heap we map, or -1 */
};

struct remora_shmem {
    int initialized, finalized;
    int started_mpi;       /* shmem_init called MPI_Init: shmem_finalize calls MPI_Finalize */
    int thread_level;      /* SHMEM_THREAD_* granted                                        */
    int my_pe, n_pes;
    MPI_Comm comm;         /* the PEs: a duplicate of MPI_COMM_WORLD                        */
    int use_net;           /* the network transport is wired up                              */
    int cpu_atomics;       /* every PE maps every heap: heap atomics are CPU atomics         */

    struct remora_shmem_heap heap;
    char **view;           /* by PE: where its heap is mapped here, or NULL                 */
    int *local_pe;         /* the PEs whose heap is mapped here, ascending (me among them)  */
    int nlocal;

    /* the heap's extents, by offset; a fixed array, since other threads search
     * it while shmem_malloc adds one (each at least doubles the heap) */
    struct remora_shmem_region heap_regions[REMORA_SHMEM_MAX_EXTENTS];
    _Atomic int nheap_regions;
    struct remora_shmem_region *statics;      /* the program's writable data                 */
    int nstatics;

    /* set by an operation that the network transport completes later; cleared by quiet */
    _Atomic int net_pending;
};

extern struct remora_shmem remora_shmem;

/* Prints "<routine>: <what>" with the PE, then ends the job (the abort the
 * spec allows for erroneous arguments).  Never returns. */
_Noreturn void remora_shmem_abort(const char *routine, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The region holding [addr, addr + len) and the offset there, or NULL. */
const struct remora_shmem_region *remora_shmem_find(const void *addr, size_t len, uint64_t *off);
/* The same, but aborts naming the routine when it is not in one region.
 * (The heap's extents are regions: a transfer through the transport may
 * span several and goes region by region, rma.c.) */
const struct remora_shmem_region *remora_shmem_locate(const char *routine, const void *addr, size_t len,
                                                      uint64_t *off);

/* Aborts naming the routine unless 0 <= pe < n_pes. */
static inline __attribute__((always_inline)) void remora_shmem_check_pe(const char *routine, int pe)
{
    if (__builtin_expect((unsigned)pe >= (unsigned)remora_shmem.n_pes, 0))
        remora_shmem_abort(routine, "PE %d does not exist (there are %d PEs)", pe, remora_shmem.n_pes);
}

/* Aborts unless shmem_init ran and shmem_finalize did not. */
void remora_shmem_check_init(const char *routine);

#endif
