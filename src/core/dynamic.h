/* Dynamic windows: the region table of each rank.
 *
 * Each rank's table lives in the window's node segment, next to its control
 * block, and holds up to REMORA_DYN_REGIONS regions sorted by address.  Only
 * its owner changes it (attach/detach, serialised by the window's dyn_lock
 * mutex, apart from the window's RMA locks).  Readers never lock: the table is
 * a seqlock whose sequence number is ctrl.dyn_generation (odd while being
 * changed); a reader reads the number, reads the table, and reads the number
 * again, retrying if it moved.  An origin thus always sees the table before or
 * after an attach/detach, never a half-changed one.
 *
 * Across nodes (network domain) a region also carries its packed UCX key, and
 * origins keep a copy of each target's table, read with UCX gets and
 * revalidated by the generation number on a miss and once per access epoch
 * (attaching and detaching are ordered with remote accesses by the program's
 * own synchronisation, as the standard requires). */
#ifndef REMORA_CORE_DYNAMIC_H
#define REMORA_CORE_DYNAMIC_H

#include <stdint.h>

#include "core/win.h"
#include "runtime/pool.h"

#define REMORA_DYN_RKEY_WORDS 32 /* a region's packed UCX key: up to 256 bytes */

struct remora_dyn_region {
    uint64_t base, size;
    struct remora_pool_ref pool; /* pool.fd < 0: not MPI_Alloc_mem pool memory */
    uint64_t rkey_len;           /* network domain: the packed key            */
    uint64_t rkey[REMORA_DYN_RKEY_WORDS];
};

struct remora_dyn_table {
    uint32_t n, cap;
    struct remora_dyn_region region[];
};

/* Bytes of one rank's table with room for `cap` regions. */
size_t remora_dyn_table_bytes(uint32_t cap);

int remora_win_attach(struct remora_win *w, void *base, MPI_Aint size);
int remora_win_detach(struct remora_win *w, const void *base);

/* [addr, addr+len) must lie in one region attached at target: then *view is the
 * target as this access reaches it (its base such that base + addr is where the
 * data is, for load/store, CMA or UCX).  MPI_ERR_RMA_RANGE otherwise. */
int remora_dyn_resolve(struct remora_win *w, int target, uint64_t addr, uint64_t len, struct remora_peer *view);

/* What the network side of a dynamic window holds; freed with the window. */
void remora_dyn_free(struct remora_win *w);

#endif
