/* Dynamic windows: the region table of each rank.
 *
 * Each rank's table lives in the window's node segment and holds up to
 * REMORA_DYN_REGIONS regions sorted by address, each with the key of its
 * registration (transport/transport.h).  Only its owner changes it
 * (attach/detach, serialised by the window's dyn.lock mutex, apart from the
 * window's RMA locks).  Readers never lock it: the table is a seqlock whose
 * sequence number (generation) is odd while its owner changes it; a reader
 * reads the number, the table, and the number again, retrying if it moved.
 * An origin thus always sees the table before or after an attach/detach,
 * never a half-changed one.
 *
 * Origins read a table mapped here in place; another node's table they read
 * through the transport into a copy, revalidated by the generation number on
 * a miss and once per access epoch (attaching and detaching are ordered with
 * remote accesses by the program's own synchronisation, as the standard
 * requires).  Each region an origin has used is unpacked once and kept until
 * the window is freed, so an operation under way never loses its key. */
#ifndef REMORA_CORE_DYNAMIC_H
#define REMORA_CORE_DYNAMIC_H

#include <mpi.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "transport/transport.h"

struct remora_win;
struct remora_target;
struct remora_dyn_net;

/* A dynamic window's part of the window (struct remora_win.dyn), dynamic.c's.
 * The window embeds it, so core/win.h includes this header and this header
 * does not include it. */
struct remora_win_dyn {
    void *tables;                  /* the region tables of our node segment (set at creation, win.c) */
    uint32_t cap;                  /* regions per table; 0: not a dynamic window                     */
    pthread_mutex_t lock;          /* serialises our own attach/detach                               */
    struct remora_dyn_net *net;    /* region keys and caches, made on first need (dynamic.c)         */
};

struct remora_dyn_region {
    uint64_t base, size;
    uint32_t atomic;   /* accumulates may use atomics on it: every origin can */
    uint32_t key_len;
    uint64_t key[(REMORA_KEY_MAX + 7) / 8];
};

struct remora_dyn_table {
    _Atomic uint64_t generation;
    uint32_t n, cap;
    struct remora_dyn_region region[];
};

/* Bytes of one rank's table with room for `cap` regions. */
size_t remora_dyn_table_bytes(uint32_t cap);

int remora_win_attach(struct remora_win *w, void *base, MPI_Aint size);
int remora_win_detach(struct remora_win *w, const void *base);

/* Every byte of [lo, lo+len) must lie in regions attached at target (one
 * or several back to back): then t's spans are those regions' parts.
 * MPI_ERR_RMA_RANGE otherwise. */
int remora_dyn_resolve(struct remora_win *w, int target, uint64_t lo, uint64_t len, struct remora_target *t);

/* Region keys and caches; freed with the window. */
void remora_dyn_free(struct remora_win *w);

#endif
