/* hashtable's pieces (main.c describes the motif): the keys every rank
 * inserts, the local volume they land in, and the two ways of inserting. */
#ifndef HASHTABLE_H
#define HASHTABLE_H

#include <mpi.h>
#include <stdint.h>

#include "motif.h"

/* what every rank knows about the run: any rank can replay any rank's keys */
struct problem {
    int nranks;
    uint64_t inserts; /* keys per rank */
    uint64_t table;   /* slots per rank */
};

/* key i of rank r: a bijective mix of the global number r * inserts + i + 1,
 * so keys are distinct across all ranks and never 0 (0 marks an empty slot) */
uint64_t key_of(const struct problem *pb, int rank, uint64_t i);
/* where a key lives: its owner rank and the slot in the owner's table, from
 * independent bits of a second hash of the key */
int owner_of(const struct problem *pb, uint64_t key);
uint64_t slot_of(const struct problem *pb, uint64_t key);

/* A rank's local volume: one array of 64-bit words,
 *
 *   [next free cell | keys[table] | heads[table] | cells[capacity] of {key, next}]
 *
 * keys[s] is the element stored in slot s itself (0: empty); an element whose
 * slot is taken goes to an overflow cell pushed at the front of the slot's
 * chain: heads[s] is the most recently inserted cell of the chain, a cell's
 * next the one inserted before it (links are cell numbers + 1, 0 ends the
 * chain).  The next free cell counts the cells handed out.  The word offsets
 * below are also the window displacements of the RMA mode (unit 8 bytes). */
struct volume {
    uint64_t *words;
    uint64_t table, capacity;
};
enum { NEXT_FREE = 0, CELL_KEY = 0, CELL_NEXT = 1, CELL_WORDS = 2 };

static inline uint64_t volume_key_at(const struct volume *v, uint64_t slot)
{
    (void)v;
    return 1 + slot;
}
static inline uint64_t volume_head_at(const struct volume *v, uint64_t slot) { return 1 + v->table + slot; }
static inline uint64_t volume_cell_at(const struct volume *v, uint64_t cell)
{
    return 1 + 2 * v->table + CELL_WORDS * cell;
}
static inline uint64_t volume_words(const struct volume *v) { return volume_cell_at(v, v->capacity); }

/* The layout for a problem: capacity for every key of every rank, the worst
 * case (all keys on one owner), so the overflow heap never runs out. */
struct volume volume_layout(const struct problem *pb);
/* empties the volume (all words 0) */
void volume_clear(struct volume *v);
/* inserts key into its slot by loads and stores (the two-sided mode's owner) */
void volume_insert_local(struct volume *v, const struct problem *pb, uint64_t key);
/* the checks of --verify (main.c lists them) on rank's volume after mode;
 * prints what is wrong on stderr; MOTIF_OK or MOTIF_FAILED */
enum motif_verdict volume_verify(const struct volume *v, const struct problem *pb, int rank, const char *mode);

/* the modes: insert every key of this rank into the owners' volumes; the
 * "insert" and "sync" phases go to t */
void twosided_insert(struct volume *v, const struct problem *pb, MPI_Comm comm, struct motif_times *t);
void rma_insert(MPI_Win win, const struct volume *layout, const struct problem *pb, MPI_Comm comm,
                struct motif_times *t);

#endif
