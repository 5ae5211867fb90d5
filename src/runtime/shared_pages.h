/* The program's own memory made shareable: the whole pages of an
 * MPI_Win_create window or of a region attached to a dynamic window that lie
 * in private anonymous memory (the heap, anonymous mmaps, .bss) move into an
 * anonymous shared file (memfd) at the same addresses, with the same
 * contents, so that peers on the node map them and reach the window with
 * load/store instead of a process_vm_* system call per operation.  When the
 * last window over them is freed (or the region detached) they move back
 * into private memory and the file is emptied: a peer that still maps it (an
 * origin keeps the regions it reached until the window goes) holds no memory
 * by it, and would fault on it, where reaching a detached region is
 * erroneous anyway.
 *
 * The move is mremap of a filled copy over the original range: a thread that
 * loads from the pages meanwhile sees the same bytes before and after; a store
 * into them by another thread of this process while MPI_Win_create or
 * MPI_Win_free (attach, detach) runs may be lost (REMORA_SHARE_WINDOW_PAGES=0
 * turns the move off).  The move copies every page, so all of them become
 * resident.  Pages shared with others already (files, MPI segments, the
 * MPI_Alloc_mem pool), the main stack and huge-page mappings are left alone;
 * so are the partial pages at the window's ends, which hold other data.  A
 * child forked meanwhile shares the pages instead of copying them. */
#ifndef REMORA_RUNTIME_SHARED_PAGES_H
#define REMORA_RUNTIME_SHARED_PAGES_H

#include <stddef.h>

#include "runtime/pool.h"

/* Makes the whole pages of [base, base + size) shared, or finds them shared
 * already by another window (counted); 1 when some are (*ref: where, as a
 * peer maps them), 0 when none can be.  Local. */
int remora_pages_share(void *base, size_t size, struct remora_pool_ref *ref);
/* Undoes one remora_pages_share of [base, base + size) (that returned 1):
 * the pages go back to private memory when no other window holds them. */
void remora_pages_unshare(void *base, size_t size);

#endif
