/* Byte layout of MPI datatypes, decoded once and cached.
 *
 * A datatype's layout is the list of contiguous blocks of ONE element, in
 * typemap order (never sorted: the typemap order pairs origin and target
 * elements), neighbours merged.  Derived types are decoded through the host's
 * envelope/contents and cached on the type with an attribute whose delete
 * callback drops the cache; predefined types are kept by the library. */
#ifndef REMORA_CORE_DATATYPE_H
#define REMORA_CORE_DATATYPE_H

#include <mpi.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/* n blocks, the first at byte first, each stride bytes after the one before. */
struct remora_dt_run {
    MPI_Aint first, stride, n;
};

/* Whether a block at d continues run r (any block does while r has fewer
 * than two): then r takes it.  Else r is complete. */
static inline int remora_dt_run_add(struct remora_dt_run *r, MPI_Aint d)
{
    if (r->n == 1)
        r->stride = d - r->first;
    if (r->n > 1 && d != r->first + r->stride * r->n)
        return 0;
    r->first = r->n ? r->first : d;
    r->n++;
    return 1;
}

struct remora_dt_block {
    MPI_Aint disp; /* bytes, relative to the buffer address */
    MPI_Aint len;
};

struct remora_dt {
    MPI_Aint size;               /* bytes of data in one element (MPI_Type_size)                  */
    MPI_Aint lb, extent;         /* MPI_Type_get_extent                                            */
    MPI_Aint true_lb, true_extent;
    MPI_Datatype basic;          /* the one predefined type all its data is made of, or
                                    MPI_DATATYPE_NULL when it mixes types (accumulate needs one)   */
    MPI_Aint basic_size;         /* size of basic (0 when mixed)                                   */
    int contiguous;              /* one element is one block [true_lb, true_lb + size), extent == size */
    size_t nblocks;              /* blocks of one element                                          */
    MPI_Aint run_stride;         /* nonzero: nblocks >= 2 blocks of one length, each run_stride
                                    bytes after the one before (a regular run)                     */
    struct remora_dt_block *blocks;
    MPI_Aint block_len;          /* the length of every block, or 0 when they differ              */
    size_t nruns;                /* blocks of one length in maximal regular runs (struct
                                    remora_dt_run, of one element), kept where they are at most
                                    half as many as the blocks (a transpose: one per column);
                                    else 0 and runs NULL                                           */
    struct remora_dt_run *runs;
};

/* The layout of `type`, decoded on first use.  Thread safe.  Returns
 * MPI_SUCCESS, MPI_ERR_TYPE (MPI_DATATYPE_NULL, not a datatype, a derived type not committed, a combiner
 * Remora cannot decode) or MPI_ERR_NO_MEM. */
int remora_dt_get(MPI_Datatype type, const struct remora_dt **out);

/* `count` elements of a layout holding `bytes` bytes as n blocks of len
 * bytes, the first at byte first, each stride bytes after the one before: a
 * contiguous layout (cut in blocks of len), elements of one block each, or a
 * regular run whose elements continue it.  Returns 0 for none of these. */
int remora_dt_as_run(const struct remora_dt *t, MPI_Count count, MPI_Aint bytes, MPI_Aint len, struct remora_dt_run *r);
/* The blocks of `count` elements of a layout whose blocks all have len
 * bytes, in typemap order, as maximal regular runs (a two-level layout such
 * as the columns of a transposed matrix: one run per column): fn(run, index,
 * arg) for each, index counting the blocks before it.  Stops at fn's first
 * nonzero return and returns it; -1, before any call, when a block is not of
 * len bytes. */
int remora_dt_runs(const struct remora_dt *t, MPI_Count count, MPI_Aint len,
                   int (*fn)(const struct remora_dt_run *run, MPI_Aint index, void *arg), void *arg);

/* The address `disp` bytes from a user buffer `buf`, which may be MPI_BOTTOM
 * (NULL) with a datatype of absolute addresses: computed as an integer, since
 * C gives no meaning to an offset from a null pointer. */
static inline char *remora_buf_at(const void *buf, MPI_Aint disp)
{
    return (char *)((uintptr_t)buf + (uintptr_t)disp);
}

/* Successive contiguous pieces of `count` elements of a layout, in typemap order. */
struct remora_dt_cursor {
    const struct remora_dt *t;
    MPI_Aint count;      /* elements                           */
    MPI_Aint elem;       /* current element                    */
    size_t block;        /* current block of it                */
    MPI_Aint done;       /* bytes of the current block taken   */
};

void remora_dt_cursor_init(struct remora_dt_cursor *c, const struct remora_dt *t, MPI_Aint count);
/* The next piece of at most `max` bytes: its length (0 at the end), its displacement in *disp. */
MPI_Aint remora_dt_cursor_next(struct remora_dt_cursor *c, MPI_Aint max, MPI_Aint *disp);

/* Walk (o, ocount) and (t, tcount) in step: fn(odisp, tdisp, len, arg) for each
 * maximal piece contiguous on both sides.  Stops at fn's first nonzero return
 * and returns it; MPI_ERR_TYPE when the two hold different numbers of bytes. */
int remora_dt_pair_walk(const struct remora_dt *o, MPI_Aint ocount, const struct remora_dt *t, MPI_Aint tcount,
                        int (*fn)(MPI_Aint odisp, MPI_Aint tdisp, MPI_Aint len, void *arg), void *arg);

/* The cache's state (in the runtime context). */
#define REMORA_DT_BY_ID 256 /* > the type table's entry ids (checked in datatype.c) */

struct remora_dt_cache {
    pthread_mutex_t lock;        /* decoding and inserting                         */
    _Atomic int keyval_made;
    int keyval;                  /* attribute carrying a derived type's layout     */
    MPI_Datatype *named_handle;  /* predefined types' layouts                      */
    struct remora_dt **named;
    int nnamed, cap_named;
    /* the layouts of the types in the type table, by entry id, once made:
     * predefined types are found without a host call or the lock */
    _Atomic(const struct remora_dt *) by_id[REMORA_DT_BY_ID];
    int probe_made;
    MPI_Comm probe;              /* Remora's own, errors returned: asks the host whether a
                                    derived type was committed (datatype.c)         */
};

/* Before the host's MPI_Finalize: frees the caches. */
void remora_dt_finalize(void);

#endif
