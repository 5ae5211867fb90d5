/* A window: what every process knows about it, and the remotely accessible
 * control block of each rank.
 *
 * Control blocks live in the node's shared segment of the window, one per
 * rank on the node, cache-line aligned and apart from local-only state.  The
 * synchronisation protocols (lock.c, pscw.c, fence.c) touch them only through
 * the transport's atomics on each rank's `ctrl` rmem, so the same code serves
 * peers on the node (CPU atomics) and across nodes (network atomics). */
#ifndef REMORA_CORE_WIN_H
#define REMORA_CORE_WIN_H

#include <mpi.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "core/attr.h"
#include "core/dynamic.h"
#include "core/errhandler.h"
#include "core/type_table.h"
#include "core/spinlock.h"
#include "core/sync.h"
#include "core/win_reach.h"
#include "core/win_table.h"
#include "runtime/doorbell.h"
#include "runtime/segment.h"
#include "transport/transport.h"

#define REMORA_CACHELINE 64

/* Bits of remora_peer.access: which access epoch lets us reach this target. */
enum {
    REMORA_ACCESS_LOCK_SHARED = 1,
    REMORA_ACCESS_LOCK_EXCL = 2,
    REMORA_ACCESS_PSCW = 4,
    REMORA_ACCESS_LOCK_ALL = 8, /* a lock_all epoch on one node has reached it (remora_lock_all_reach) */
};

/* What the RMA calls read of one target: one cache line, the fast path's
 * fields first (it indexes peers by a shift). */
struct remora_peer {
    char *base;             /* its window memory mapped here, else NULL                        */
    uint64_t fast_limit;    /* load/store reaches [base, base + fast_limit); 0 when not mapped  */
    uint64_t fast_disps;    /* fast_limit / disp_unit: larger displacements take the slow path  */
    uint64_t disp_unit;
    _Atomic uint8_t access; /* REMORA_ACCESS_* bits open toward it                              */
    uint8_t acc_atomic;     /* accumulates on its memory may use atomics: every origin can      */
    uint8_t amo_here;       /* acc_atomic, and those atomics are CPU atomics at base (fop_fast.h) */
    _Atomic uint8_t acc_lock_free; /* the most we have read of its ctrl.acc_lock_free           */
    uint64_t size;          /* its window size in bytes                                         */
} __attribute__((aligned(64)));

/* How this process reaches one rank of a window (rmems are views; the
 * unpacked originals are in remora_win.mem.keys). */
struct remora_reach {
    struct remora_rmem data; /* its window memory, the fastest way (unused: dynamic)        */
    struct remora_rmem amo;  /* the same memory in the window's atomicity domain            */
    struct remora_rmem ctrl; /* its control block, in the window's atomicity domain         */
    struct remora_rmem dyn;  /* dynamic windows: its region table, the fastest way          */
};

/* Everything this process keeps about one rank of a window.  Made at the
 * rank's first use, a chunk of REMORA_RANK_CHUNK ranks at a time (win_reach.c),
 * when the window's layout lets every rank's place be computed (one node, the
 * same size and displacement unit everywhere): a process then holds state
 * only for the ranks it deals with, as foMPI's O(1) windows.  Otherwise all
 * are made at creation.  Never moves or goes before the window does. */
struct remora_rank_state {
    struct remora_peer peer;   /* first: the fast path reads this line only   */
    struct remora_reach reach;
    uint64_t starts_toward;    /* PSCW: how many of our starts named it       */
    int world_rank;            /* its rank in MPI_COMM_WORLD                  */
    int node_rank;             /* its place in our node segment, or -1        */
    _Atomic uint8_t lock_state; /* enum remora_lock_state (| 0x80: MPI_MODE_NOCHECK) */
    _Atomic uint8_t lock_listed; /* on remora_win.lock.locked: 0 no, 1 being put there, 2 yes */
    struct remora_rank_state *locked_next;   /* remora_win.lock.locked's list */
    struct remora_rank_state *lock_all_next; /* remora_win.lock.all_reached's list */
};

enum { REMORA_RANK_CHUNK = 8 };
struct remora_rank_chunk {
    struct remora_rank_state rank[REMORA_RANK_CHUNK];
};

/* ---- remotely accessible state of one rank ------------------------------- */
struct remora_ctrl {
    /* Local lock word (lock.c): bit 0 exclusive holder, bits 1..31 shared
     * holders (+2 each), bits 32..63 exclusive lockers waiting (+2^32 each). */
    _Alignas(REMORA_CACHELINE) _Atomic uint64_t lock_local;
    /* Global lock word, used at the master (rank 0) only (lock.c). */
    _Alignas(REMORA_CACHELINE) _Atomic uint64_t lock_global;
    /* PSCW: completions received by this rank as a target (pscw.c). */
    _Alignas(REMORA_CACHELINE) _Atomic uint64_t pscw_complete;
    /* Accumulates: the stripe locks of this rank's memory (accumulate.c). */
    _Alignas(REMORA_CACHELINE) _Atomic uint64_t acc_stripes;
    /* Accumulates: 0 until the first lock-free call on this rank's memory,
     * 1 while it waits for the calls without atomics to end, then 2
     * (accumulate.c).  Never goes back. */
    _Alignas(REMORA_CACHELINE) _Atomic uint64_t acc_lock_free;
    /* Rung after every change of lock_local, lock_global, pscw_complete and
     * pscw_post on a window that lives on one node: waiters for those words
     * sleep on it (core/ctrl.h). */
    _Alignas(REMORA_CACHELINE) struct remora_doorbell bell;
    /* PSCW: posts received by this rank as an origin, from each rank i of the
     * window (pscw.c): pscw_post[i] counts MPI_Win_post calls of i naming us. */
    _Alignas(REMORA_CACHELINE) _Atomic uint64_t pscw_post[];
};

/* Offsets of the control words, as the transport addresses them. */
#define REMORA_CTRL_LOCK_LOCAL offsetof(struct remora_ctrl, lock_local)
#define REMORA_CTRL_LOCK_GLOBAL offsetof(struct remora_ctrl, lock_global)
#define REMORA_CTRL_PSCW_COMPLETE offsetof(struct remora_ctrl, pscw_complete)
#define REMORA_CTRL_ACC_STRIPES offsetof(struct remora_ctrl, acc_stripes)
#define REMORA_CTRL_ACC_LOCK_FREE offsetof(struct remora_ctrl, acc_lock_free)
#define REMORA_CTRL_BELL offsetof(struct remora_ctrl, bell)
#define REMORA_CTRL_PSCW_POST(i) (offsetof(struct remora_ctrl, pscw_post) + (size_t)(i) * sizeof(uint64_t))

/* Node-wide words of a window's segment (the shared-memory fence barrier; remora_win.fence.node_hdr). */
struct remora_node_header {
    _Alignas(REMORA_CACHELINE) _Atomic uint64_t barrier_arrived;
    _Alignas(REMORA_CACHELINE) _Atomic uint64_t barrier_generation;
    _Alignas(REMORA_CACHELINE) struct remora_doorbell barrier_bell; /* rung by each new generation */
};

/* ---- the window ----------------------------------------------------------- */
/* A per-target lock of this process (lock.c): EXCL_HELD is registered at the
 * master's word too; EXCL_LOCAL, on one node, holds only the target's word. */
enum remora_lock_state {
    REMORA_LOCK_NONE,
    REMORA_LOCK_PENDING,
    REMORA_LOCK_SHARED_HELD,
    REMORA_LOCK_EXCL_HELD,
    REMORA_LOCK_EXCL_LOCAL
};

/* Window-wide access states (remora_win.access_all).  LOCK_ALL_NODE: a
 * lock_all epoch on one node, which reaches each target only once it has
 * checked it (remora_lock_all_reach; then REMORA_ACCESS_LOCK_ALL). */
enum {
    REMORA_ALL_FENCE = 1,
    REMORA_ALL_LOCK_ALL = 2,
    REMORA_ALL_LOCK_ALL_NODE = 4,
    REMORA_ALL_REACH = REMORA_ALL_FENCE | REMORA_ALL_LOCK_ALL,         /* every target reachable */
    REMORA_ALL_PASSIVE = REMORA_ALL_LOCK_ALL | REMORA_ALL_LOCK_ALL_NODE /* a lock_all epoch */
};

/* The window.  The fast path's fields come first and the rank index last.
 * Each protocol's state is a part declared in the header of the file that
 * implements it (the other protocols read it to check epochs):
 *   mem    core/win_reach.h  the node segment and its layout (win.c lays it
 *                            out), registrations, keys, making ranks (win_reach.c)
 *   dyn    core/dynamic.h    dynamic windows' region tables (dynamic.c)
 *   lock   core/sync.h       passive target (lock.c)
 *   pscw   core/sync.h       post/start/complete/wait (pscw.c)
 *   fence  core/sync.h       fence and the node barrier (fence.c)
 *   attr   core/attr.h       attributes (attr.c)
 * What many files use stays here: identity, the node, the epoch bookkeeping,
 * hints, the user-visible properties. */
struct remora_win {
    /* read by every RMA call */
    uint32_t magic;                 /* REMORA_WIN_MAGIC while alive                  */
    int comm_size;
    /* The predefined type last moved on this window: programs mostly move one
     * type per window, and one compare beats a hash lookup.  Entries are
     * immutable, so one pointer load gives a consistent (handle, size). */
    const struct remora_type_entry *_Atomic type_hint;
    /* The same for the fetch-and-op fast path (core/fop_fast.h): the type of
     * the last fetch-and-op that could take it. */
    const struct remora_type_entry *_Atomic amo_hint;
    _Atomic unsigned access_all;    /* REMORA_ALL_*: every target reachable          */
    int rank;
    int flavor;                     /* MPI_WIN_FLAVOR_*                               */
    /* One atomicity domain per window: when it spans nodes, every atomic on
     * its words (control and data, on-node peers' too) goes through the
     * network; on one node, through CPU atomics. */
    int spans_nodes;

    /* identity */
    int index;                      /* Fortran handle, table index                   */
    MPI_Win handle;                 /* the user's handle (set by the front end)       */
    MPI_Comm comm;                  /* private duplicate of the user's communicator   */
    MPI_Group group;                /* of comm, made on first need                    */
    void *base;
    MPI_Aint size;
    int disp_unit;
    int model;                      /* MPI_WIN_UNIFIED                                */

    /* memory: our segment group, the window's ranks on our node (for
     * MPI_Win_allocate_shared, those that share memory with us) */
    int node_rank, node_size;       /* our place in the group, its size               */
    int node_all;                   /* the whole window is in the group               */
    int shared_noncontig;           /* MPI_Win_allocate_shared's alloc_shared_noncontig */
    struct remora_win_mem mem;      /* segment, layout, reach (core/win_reach.h)      */
    struct remora_win_dyn dyn;      /* dynamic windows (core/dynamic.h)               */

    /* epochs: changed by synchronisation calls under sync_lock (remora_sync_begin),
     * never held while waiting; per-target locks by atomics (core/sync.h) */
    remora_spinlock sync_lock;
    int threads_concurrent;         /* MPI_THREAD_MULTIPLE: threads may sync at once  */
    _Atomic uint64_t sync_epoch;    /* dynamic windows: access epochs opened (dynamic.c revalidates) */
    struct remora_win_lock lock;    /* passive target (core/sync.h, lock.c)           */
    struct remora_win_pscw pscw;    /* PSCW (core/sync.h, pscw.c)                     */
    struct remora_win_fence fence;  /* fence, node barrier (core/sync.h, fence.c)     */

    /* hints (MPI_Win_create info, MPI_Win_set_info) */
    int acc_ordered;                /* accumulate_ordering is not "none"                 */

    /* user-visible properties (MPI_Win_set_errhandler, _name, _info: mpi/win_props.c) */
    struct remora_errh errh;        /* errors are raised on it (errhandler.c)         */
    char name[MPI_MAX_OBJECT_NAME];
    MPI_Info info;                  /* hints as set by the user (host info object)    */
    struct remora_win_attrs attr;   /* attributes (core/attr.h, attr.c)               */

    /* [comm_size], read by every RMA call: each rank's state,
     * &remora_rank_unmade until made.  The states live in chunks of
     * REMORA_RANK_CHUNK ranks; one pointer per rank, in the window itself,
     * keeps the fast path's lookup one load, and never NULL keeps it free of
     * a test (the unmade state opens no access). */
    struct remora_rank_state *_Atomic ranks[];
};

/* What remora_win.ranks holds for a rank whose state is not made yet: all
 * zero (no access bit, nothing mapped: fast_limit 0), never written. */
extern struct remora_rank_state remora_rank_unmade;

/* Rank r's state for the fast path: made, or remora_rank_unmade, whose
 * access bits are clear and whose window is empty (0 <= r < comm_size). */
static inline const struct remora_rank_state *remora_rank_or_unmade(const struct remora_win *w, int r)
{
    return atomic_load_explicit(w->ranks + r, memory_order_acquire); /* gcc 12 folds this form into one load, not &w->ranks[r] */
}

/* Rank r's state if it has been made, else NULL (0 <= r < comm_size). */
static inline struct remora_rank_state *remora_rank_known(const struct remora_win *w, int r)
{
    struct remora_rank_state *s = atomic_load_explicit(&w->ranks[r], memory_order_acquire);
    return s != &remora_rank_unmade ? s : NULL;
}

/* Makes rank r's chunk (win_reach.c); NULL when out of memory. */
struct remora_rank_state *remora_rank_make(struct remora_win *w, int r);

/* Rank r's state, made if need be; NULL when out of memory (0 <= r < comm_size). */
static inline struct remora_rank_state *remora_rank(struct remora_win *w, int r)
{
    struct remora_rank_state *s = remora_rank_known(w, r);
    return s ? s : remora_rank_make(w, r);
}

/* Is window w's rank `target` reachable by RMA right now (without a lock_all check)? */
static inline int remora_epoch_allows(const struct remora_win *w, const struct remora_peer *p)
{
    return ((atomic_load_explicit(&w->access_all, memory_order_relaxed) & REMORA_ALL_REACH) |
            atomic_load_explicit(&p->access, memory_order_relaxed)) != 0;
}

/* How memory the program brings (MPI_Win_create, MPI_Win_attach) is
 * registered (REMORA_REG_*): with the network when the window spans nodes;
 * its pages moved into shared memory when peers on the node can map
 * them (runtime/shared_pages.h). */
static inline int remora_win_user_memory_flags(const struct remora_win *w)
{
    return (w->spans_nodes ? REMORA_REG_NET : 0) | (w->node_size > 1 && w->mem.seg.fd_passing ? REMORA_REG_SHARE_PAGES : 0);
}

/* Is a passive-target epoch open toward target state s (a lock_all, or a lock
 * of it; s NULL: never used)?  Flushes and request-based operations need one. */
static inline int remora_passive_toward(const struct remora_win *w, const struct remora_rank_state *s)
{
    return (atomic_load_explicit(&w->access_all, memory_order_relaxed) & REMORA_ALL_PASSIVE) ||
           (s && atomic_load_explicit(&s->peer.access, memory_order_relaxed) &
                     (REMORA_ACCESS_LOCK_SHARED | REMORA_ACCESS_LOCK_EXCL));
}

/* The epoch bookkeeping is shared by threads that may call MPI at once only
 * under MPI_THREAD_MULTIPLE: below it the program orders its MPI calls, so
 * sync_lock is not taken (2 atomics fewer per synchronisation call). */
static inline void remora_sync_begin(struct remora_win *w)
{
    if (w->threads_concurrent)
        remora_spin_lock(&w->sync_lock);
}

static inline void remora_sync_end(struct remora_win *w)
{
    if (w->threads_concurrent)
        remora_spin_unlock(&w->sync_lock);
}

/* An access epoch opens: dynamic windows revalidate their caches per epoch
 * (dynamic.c), no other window counts.  An add: MPI_Win_lock counts outside
 * sync_lock. */
static inline void remora_count_epoch(struct remora_win *w)
{
    if (w->flavor == MPI_WIN_FLAVOR_DYNAMIC)
        atomic_fetch_add_explicit(&w->sync_epoch, 1, memory_order_relaxed);
}

/* ---- lifetime (win.c) ------------------------------------------------------ */
/* Collective over comm.  flavor: MPI_WIN_FLAVOR_CREATE (user_base is the user's
 * memory), _ALLOCATE, _SHARED (allocated in memory the node shares), _DYNAMIC.
 * Returns MPI_SUCCESS or an error class, the same on every process. */
int remora_win_create(MPI_Comm comm, int flavor, MPI_Aint size, int disp_unit, MPI_Info info, void *user_base,
                      struct remora_win **out);
/* MPI_SUCCESS and *released, or an error class with the window intact (not
 * raised), or an error with *released: then it was raised on the window first. */
int remora_win_free(struct remora_win *w, int *released);
int remora_win_shared_query(struct remora_win *w, int rank, MPI_Aint *size, int *disp_unit, void **base);
/* The base of my memory the user sees (the base pointer of MPI_Win_allocate*,
 * MPI_WIN_BASE): w->base, or NULL where the host gives NULL for no memory. */
void *remora_win_user_base(const struct remora_win *w);
int remora_check_target(const struct remora_win *w, int target);
/* Unmaps and deregisters a window's memory (MPI_Finalize with the window alive). */
void remora_win_release_memory(struct remora_win *w);
/* Read the hints Remora acts on from w->info (creation, MPI_Win_set_info). */
void remora_win_apply_hints(struct remora_win *w);
#endif
