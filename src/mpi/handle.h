/* Window handles as the user sees them (see core/win_table.h). */
#ifndef REMORA_MPI_HANDLE_H
#define REMORA_MPI_HANDLE_H

#include <mpi.h>
#include <stdint.h>

#include "core/win.h"
#include "core/win_table.h"
#include "core/engine.h"

/* The window behind a handle, or NULL (MPI_WIN_NULL, freed, not ours). */
static inline struct remora_win *remora_win_from_handle(MPI_Win h)
{
#if defined(OPEN_MPI)
    /* MPI_WIN_NULL is a host object: its first word is a pointer, never our magic */
    struct remora_win *w = (struct remora_win *)h;
    return w && w->magic == REMORA_WIN_MAGIC ? w : NULL;
#else
    /* MPICH's int or the standard ABI's pointer type (runtime/host_abi.h) */
    return remora_win_table_at(&remora_core.wins, (uintptr_t)h - REMORA_MPICH_WIN_BASE);
#endif
}

static inline MPI_Win remora_win_handle(const struct remora_win *w)
{
#if defined(OPEN_MPI)
    return (MPI_Win)(uintptr_t)w;
#else
    return (MPI_Win)(uintptr_t)(REMORA_MPICH_WIN_BASE + w->index);
#endif
}

#endif
