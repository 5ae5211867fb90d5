/* The program's own memory made shareable: the pages of an MPI_Win_create
 * window or of a region attached to a dynamic window that lie in private
 * anonymous memory (the heap, anonymous mmaps, .bss) move into an anonymous
 * shared file (memfd) at the same addresses, with the same contents, so that
 * peers on the node map them and reach the window with load/store instead of
 * a process_vm_* system call per operation.  When the last window over them
 * is freed (or the region detached) they move back into private memory and
 * the file is emptied: a peer that still maps it (an origin keeps a region
 * it reached until it reaches a new one after the detach, or the window
 * goes) holds no memory by it, and would fault on it, where reaching a
 * detached region is erroneous anyway.
 *
 * Which pages: every page the memory touches, so that peers map all of it,
 * when the other threads' writes to them can be held during the move
 * (runtime/write_hold.h): the partial pages at the ends hold other data of
 * the program, which nobody may lose.  Else, or when a page at an end is
 * another window's already (REMORA_SHARE_WINDOW_PAGES=whole too), only the
 * whole pages inside the memory.
 *
 * The move is mremap of a filled copy over the original range: a thread that
 * loads from the pages meanwhile sees the same bytes before and after; one
 * that stores waits and stores into the copy, or, where writes cannot be
 * held (whole pages only), the store may be lost
 * (REMORA_SHARE_WINDOW_PAGES=0 turns the move off).  The move copies every
 * page, so all of them become resident.  Pages shared with others already
 * (files, MPI segments, the MPI_Alloc_mem pool), the main stack and
 * huge-page mappings are left alone.  A child forked meanwhile shares the
 * pages instead of copying them. */
#ifndef REMORA_RUNTIME_SHARED_PAGES_H
#define REMORA_RUNTIME_SHARED_PAGES_H

#include <stddef.h>

#include "runtime/pool.h"

/* Makes the pages of [base, base + size) shared (every page it touches, else
 * its whole pages), or finds them shared already by another window
 * (counted); 1 when some are (*ref: which, and where a peer maps them), 0
 * when none can be.  Local. */
int remora_pages_share(void *base, size_t size, struct remora_pool_ref *ref);
/* Undoes one remora_pages_share that returned 1 with *ref: the pages go back
 * to private memory when no other window holds them. */
void remora_pages_unshare(const struct remora_pool_ref *ref);

#endif
