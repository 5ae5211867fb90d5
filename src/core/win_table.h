/* Window handles.  The user holds Remora's own handle; the host never sees it.
 *   Open MPI: the handle is the struct remora_win pointer cast to MPI_Win.
 *   MPICH:    MPI_Win is an int; the handle is REMORA_MPICH_WIN_BASE + index.
 *   MPI-5 standard ABI: MPI_Win is a pointer type; the handle is the same
 *             integer cast to it (above every predefined handle constant). 
 * Every window also has an index (its Fortran handle).  The table is one
 * array of REMORA_WIN_MAX slots in the engine's static state: zero pages
 * until used (the kernel maps .bss lazily: 512 KiB of address space, a page
 * of memory per 512 windows), it never moves, so lookups need no lock and
 * are one load (MPI_Put's fast path under MPICH and the standard ABI). */
#ifndef REMORA_CORE_WIN_TABLE_H
#define REMORA_CORE_WIN_TABLE_H

#include <mpi.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

struct remora_win;

/* Windows alive at once.  Each window holds a communicator of the host's,
 * whose context ids run out first (MPICH 4: 2048). */
#define REMORA_WIN_MAX 65536
/* First word of a live window.  Odd, so the first word of a host object (an
 * aligned pointer: Open MPI's MPI_WIN_NULL starts with its class pointer) can
 * never be mistaken for it. */
#define REMORA_WIN_MAGIC 0x52574e45u
#define REMORA_MPICH_WIN_BASE 0x5e000000

struct remora_win_table {
    struct remora_win *_Atomic slot[REMORA_WIN_MAX]; /* [index]; slot 0 (MPI_WIN_NULL's) stays NULL */
    int next_unused;     /* indices below it have been handed out at least once   */
    int *free_idx;       /* freed indices, reused first                           */
    int nfree, cap_free;
};

/* Gives `w` an index (>= 1; 0 is MPI_WIN_NULL's Fortran handle).  Caller holds remora_core.lock. */
int remora_win_table_insert(struct remora_win_table *t, struct remora_win *w, int *index);
void remora_win_table_remove(struct remora_win_table *t, int index);
struct remora_win *remora_win_table_get(const struct remora_win_table *t, int index);

/* The window at index, or NULL (out of range, free, or 0): one compare and
 * one load, for the handle lookup of MPI_Put's fast path (mpi/handle.h). */
static inline struct remora_win *remora_win_table_at(const struct remora_win_table *t, uintptr_t index)
{
    return index < REMORA_WIN_MAX ? atomic_load_explicit(t->slot + index, memory_order_acquire) : NULL;
}
/* Frees what the table allocated (at finalize). */
void remora_win_table_destroy(struct remora_win_table *t);

#endif
