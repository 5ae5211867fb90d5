/* Passive-target synchronisation: the two-level locks of foMPI.
 *
 * Local word, one per rank (ctrl.lock_local):
 *   bit 0        EXCL     an exclusive holder
 *   bits 1..31   SHARED   shared holders (+2 each)
 *   bits 32..63  WAITING  exclusive lockers waiting for this target (+2^32 each)
 * Global word, at the master = rank 0 (ctrl.lock_global):
 *   bits 0..20   EX_WAIT  exclusive lockers waiting to register
 *   bits 21..41  EX_HELD  registered exclusive locks held anywhere in the window
 *   bits 42..63  ALL      lock_all holders
 *
 * Across nodes (and in shared windows) every exclusive locker registers
 * (EX_HELD), and a lock_all reaches every target at once.  On one node an
 * exclusive locker that meets no lock_all holds only its target's EXCL
 * (REMORA_LOCK_EXCL_LOCAL: a CAS, then a read of the master's word), and a
 * lock_all reaches each target only after reading its local word free of
 * EXCL (remora_lock_all_reach): its own at once (the program may load and
 * store its own memory; every rank's once MPI_Win_shared_query has handed
 * out others'), every other the first time an RMA call accesses it
 * (node_protocol says when).  Both sides are sequentially consistent, so of
 * a locker and a lock_all that race the later sees the earlier: the locker
 * gives its EXCL back and registers, or the lock_all waits for the unlock.
 *
 * Invariants:
 *   I1  A target has an EXCL holder only when it has no SHARED holder, and at
 *       most one EXCL holder: EXCL is set only by a CAS from a value with zero
 *       EXCL and SHARED parts; a shared locker that finds EXCL set withdraws.
 *   I2  A held exclusive lock and a lock_all that has reached its target
 *       never coexist.  Registered: an exclusive locker keeps EX_HELD only if
 *       ALL was 0 when it added it (else it turns it into EX_WAIT), moves from
 *       EX_WAIT to EX_HELD only by a CAS from a value with ALL == 0, and
 *       lock_all keeps its increment only if EX_HELD was 0 when it added it.
 *       Of two racing adds on the one word, the later sees the earlier.  On
 *       one node unregistered: by the CAS-then-read above.
 *   I3  Nobody waits while holding the global or local word of someone it
 *       waits for, except an exclusive locker, who holds EX_HELD while waiting
 *       for shared holders of its target (shared holders never wait on
 *       EX_HELD), or, across nodes only, may hold its target's EXCL while
 *       waiting for lock_all holders (they wait on no local word there; on
 *       one node they do, so a locker takes the global word first there).
 *       So every wait ends when the holders it waits for unlock.
 * The epoch bookkeeping of this process (not the lock words: it keeps the
 * standard's rules between its own synchronisation calls):
 *   E1  A per-target lock and a lock_all, MPI_Win_start or fence epoch of the
 *       process never both succeed, and a target is claimed by one call at a
 *       time.  Lock and unlock take no sync_lock: a lock claims its target's
 *       lock_state by a CAS (NONE -> PENDING: of two threads on one target
 *       one gets it) and only then reads lock.all_held, pscw.start_group and
 *       fence.open (all seq_cst); lock_all, MPI_Win_start and fence (under
 *       sync_lock, which orders them among themselves) set theirs before they
 *       read the lock_state of every target on lock.locked
 *       (remora_locks_held).  A target is on that list before its first
 *       claim: it is put there (a seq_cst CAS on the head) before lock_listed
 *       says 2 (release), and a lock reads lock_listed (acquire) before it
 *       claims, so the listing happens before the claim, and a walk that
 *       starts after the claim in the seq_cst order finds the target.  Of a
 *       racing lock and one of them the later sees the earlier and fails
 *       (MPI_ERR_RMA_SYNC; both may: the mix is erroneous anyway), or, for
 *       an idle fence epoch, the lock closes it.  An unlock claims its target
 *       by a CAS from the state it found (held -> PENDING) and sets it NONE
 *       once released.  The same atomics at every thread level: below
 *       MPI_THREAD_MULTIPLE plain loads and stores measured no faster.
 * Fairness (no starvation either way): readers (shared, lock_all) give way to
 * waiting exclusive lockers (WAITING / EX_WAIT) by withdrawing and backing
 * off, but only REMORA_LOCK_PATIENCE times; after that they ignore waiters and
 * enter whenever no exclusive lock is actually held.  A lock_all holder that
 * waits for a target's EXCL waits for a locker that either holds the lock
 * (and unlocks) or has seen the lock_all (and gives it back).  A retry waits
 * for the word to change: on one node asleep on its rank's doorbell, which
 * every change rings; across nodes by backing off exponentially (bounded) so
 * contenders do not hammer the words.
 *
 * Costs (no contention): lock_all and shared lock: 1 atomic (on one node a
 * read of each target's word on the first access to it); exclusive lock: on
 * one node 1 CAS and a read, across nodes 2 atomics in flight together (one
 * round trip); releases (unlock, unlock_all) are posted, not waited for:
 * nobody needs to see them complete, and the next locker that finds the word
 * still held waits for it to change.  Besides, lock and unlock each take 1
 * atomic on this process's own memory (the claim, E1); lock_all,
 * MPI_Win_start, fence, flush_all, MPI_Win_sync and MPI_Win_free read the
 * state of each target the process has ever locked on the window (none for
 * a program without per-target locks). */
#include "core/ctrl.h"
#include "core/spin.h"
#include "core/status.h"
#include "core/sync.h"

#define LOCAL_EXCL 1ull
#define LOCAL_SHARED 2ull
#define LOCAL_WAITING (1ull << 32)
#define LOCAL_HOLDERS(v) ((v) & 0xffffffffull)

#define GLOBAL_EX_WAIT 1ull
#define GLOBAL_EX_HELD (1ull << 21)
#define GLOBAL_ALL (1ull << 42)
#define GLOBAL_FIELD(v, unit) (((v) / (unit)) & ((1ull << 21) - 1))

#define REMORA_LOCK_PATIENCE 8

#define MASTER 0

/* Every change of a lock word rings its rank's doorbell (remora_ctrl_signal): waiters sleep on it. */
static remora_status_t fadd(struct remora_win *w, int target, size_t off, uint64_t x, uint64_t *old)
{
    return remora_ctrl_signal(w, target, off, REMORA_AMO_ADD, x, 0, old);
}

/* Wait until the lock word `off` of target is no longer `seen`, and read it:
 * asleep on its doorbell on one node; across nodes, by backing off and
 * reading it again with a network atomic.  A transport status. */
static remora_status_t await_change(struct remora_win *w, int target, size_t off, uint64_t seen, struct remora_wait *wt,
                        uint64_t *now)
{
    struct remora_doorbell *bell = remora_ctrl_bell(w, target);
    if (!bell) {
        remora_backoff(wt);
        return fadd(w, target, off, 0, now);
    }
    _Atomic uint64_t *word = (_Atomic uint64_t *)remora_mapped(remora_ctrl_of(w, target), off); /* has a bell: made */
    REMORA_WAIT_UNTIL(bell, atomic_load_explicit(word, memory_order_relaxed) != seen);
    *now = atomic_load_explicit(word, memory_order_relaxed);
    return REMORA_OK;
}

/* A shared reader of word `off` at `target`: enter unless `blocked(v)`; give way to
 * `waiting(v)` a bounded number of times.  Serves MPI_Win_lock(SHARED) on the
 * local word and MPI_Win_lock_all on the global word.  A transport status. */
static remora_status_t acquire_reader(struct remora_win *w, int target, size_t off, uint64_t unit,
                          int (*blocked)(uint64_t), int (*waiting)(uint64_t))
{
    struct remora_wait wt;
    remora_wait_init(&wt);
    for (int tries = 0;; tries++) {
        uint64_t old, now;
        remora_status_t st = fadd(w, target, off, unit, &old);
        if (!remora_ok(st) || (!blocked(old) && (!waiting(old) || tries >= REMORA_LOCK_PATIENCE)))
            return st;
        if (!remora_ok((st = fadd(w, target, off, -unit, &now))))
            return st;
        /* retry once the word, as it is after our withdrawal, would let us in */
        for (now -= unit; blocked(now) || (waiting(now) && tries + 1 < REMORA_LOCK_PATIENCE);)
            if (!remora_ok((st = await_change(w, target, off, now, &wt, &now))))
                return st;
    }
}

/* A writer that has announced itself on word `off` (v: the word after its
 * announcement): convert the announcement into `hold` by CAS whenever
 * `free_for_writer(v)`.  A transport status. */
static remora_status_t await_writer(struct remora_win *w, int target, size_t off, uint64_t announce, uint64_t hold,
                        int (*free_for_writer)(uint64_t), uint64_t v)
{
    struct remora_wait wt;
    remora_wait_init(&wt);
    for (remora_status_t st;;) {
        if (free_for_writer(v)) {
            uint64_t seen;
            if (!remora_ok((st = remora_ctrl_signal(w, target, off, REMORA_AMO_CSWAP, v - announce + hold, v, &seen))))
                return st;
            if (seen == v)
                return REMORA_OK;
            v = seen;
            continue;
        }
        if (!remora_ok((st = await_change(w, target, off, v, &wt, &v))))
            return st;
    }
}

static int local_free(uint64_t v);
/* No lock_all is held (or being taken). */
static int global_free(uint64_t v) { return GLOBAL_FIELD(v, GLOBAL_ALL) == 0; }

static remora_status_t hold_global(struct remora_win *w, uint64_t g);

/* MPI_Win_lock(EXCLUSIVE), registered: hold EX_HELD at the master and the
 * target's EXCL.  Across nodes the two atomics are in flight together: one
 * round trip when nobody is in the way.  On one node the master's word comes
 * first: lock_all holders wait for a target's EXCL there (I3).  A transport
 * status. */
static remora_status_t acquire_exclusive(struct remora_win *w, int target)
{
    uint64_t g, l;
    remora_status_t st;
    if (!w->spans_nodes) {
        if (!remora_ok((st = fadd(w, MASTER, REMORA_CTRL_LOCK_GLOBAL, GLOBAL_EX_HELD, &g))) ||
            !remora_ok((st = hold_global(w, g))) ||
            !remora_ok((st = remora_ctrl_signal(w, target, REMORA_CTRL_LOCK_LOCAL, REMORA_AMO_CSWAP, LOCAL_EXCL, 0, &l))))
            return st;
    } else {
        st = remora_ctrl_signal_nbi(w, MASTER, REMORA_CTRL_LOCK_GLOBAL, REMORA_AMO_ADD, GLOBAL_EX_HELD, 0, &g);
        remora_status_t st_local = remora_ctrl_signal(w, target, REMORA_CTRL_LOCK_LOCAL, REMORA_AMO_CSWAP, LOCAL_EXCL, 0, &l);
        remora_status_t st_done = remora_ctrl_complete(w, MASTER);
        if (!remora_ok((st = !remora_ok(st) ? st : !remora_ok(st_local) ? st_local : st_done)) ||
            !remora_ok((st = hold_global(w, g))))
            return st;
    }
    if (l != 0) {
        if (!remora_ok((st = fadd(w, target, REMORA_CTRL_LOCK_LOCAL, LOCAL_WAITING, &l))))
            return st;
        st = await_writer(w, target, REMORA_CTRL_LOCK_LOCAL, LOCAL_WAITING, LOCAL_EXCL, local_free, l + LOCAL_WAITING);
    }
    return st;
}

/* Keep the EX_HELD just added (g: the global word before the add) if no
 * lock_all was held (I2); else turn it into EX_WAIT and wait for ALL == 0. */
static remora_status_t hold_global(struct remora_win *w, uint64_t g)
{
    if (global_free(g))
        return REMORA_OK;
    const uint64_t to_waiting = GLOBAL_EX_WAIT - GLOBAL_EX_HELD;
    remora_status_t st = fadd(w, MASTER, REMORA_CTRL_LOCK_GLOBAL, to_waiting, &g);
    return !remora_ok(st) ? st
                           : await_writer(w, MASTER, REMORA_CTRL_LOCK_GLOBAL, GLOBAL_EX_WAIT, GLOBAL_EX_HELD,
                                          global_free, g + to_waiting);
}

/* Whether lock_all and exclusive locks use the node's protocol (the top):
 * the window is on one node, and every access to another rank's memory goes
 * through an RMA call, which checks its target first.  Not shared windows:
 * their processes load and store each other's memory directly. */
static int node_protocol(const struct remora_win *w)
{
    return !w->spans_nodes && w->flavor != MPI_WIN_FLAVOR_SHARED;
}

/* A control word of a rank of a window on one node, where every control
 * block is mapped (its state made), and its doorbell. */
static _Atomic uint64_t *node_word(const struct remora_rank_state *s, size_t off)
{
    return (_Atomic uint64_t *)(s->reach.ctrl.base + off);
}

static struct remora_doorbell *node_bell(const struct remora_rank_state *s)
{
    return (struct remora_doorbell *)(s->reach.ctrl.base + REMORA_CTRL_BELL);
}

/* remora_ctrl_release on one node, for a rank whose state is at hand. */
static inline __attribute__((always_inline)) void release_on_node(const struct remora_rank_state *s, size_t off,
                                                                   uint64_t x)
{
    atomic_fetch_add(node_word(s, off), x);
    remora_doorbell_ring(node_bell(s));
}

/* MPI_Win_lock(EXCLUSIVE) on one node when no lock_all is about: the target's
 * EXCL by one CAS, then a read of the master's word (see the top).  1: held;
 * 0: nothing is held (the word was busy, or a lock_all is about: its holder
 * may wait for our EXCL, so it is given back and rung). */
static inline __attribute__((always_inline)) int take_exclusive_on_node(struct remora_win *w,
                                                                        const struct remora_rank_state *s)
{
    const struct remora_rank_state *master = remora_rank(w, MASTER);
    uint64_t idle = 0;
    if (!master || !atomic_compare_exchange_strong(node_word(s, REMORA_CTRL_LOCK_LOCAL), &idle, LOCAL_EXCL))
        return 0;
    if (global_free(atomic_load(node_word(master, REMORA_CTRL_LOCK_GLOBAL))))
        return 1;
    release_on_node(s, REMORA_CTRL_LOCK_LOCAL, -LOCAL_EXCL);
    return 0;
}

void remora_lock_all_reach(struct remora_win *w, struct remora_rank_state *s)
{
    _Atomic uint64_t *local = node_word(s, REMORA_CTRL_LOCK_LOCAL);
    REMORA_WAIT_UNTIL(node_bell(s), !(atomic_load(local) & LOCAL_EXCL));
    if (atomic_fetch_or_explicit(&s->peer.access, REMORA_ACCESS_LOCK_ALL, memory_order_relaxed) &
        REMORA_ACCESS_LOCK_ALL)
        return; /* another thread got here first and listed it */
    s->lock_all_next = atomic_load_explicit(&w->lock.all_reached, memory_order_relaxed);
    while (!atomic_compare_exchange_weak_explicit(&w->lock.all_reached, &s->lock_all_next, s, memory_order_release,
                                                  memory_order_relaxed))
        ;
}

/* unlock_all on one node: the targets reached are no longer reachable. */
static void forget_reached(struct remora_win *w)
{
    for (struct remora_rank_state *s = atomic_exchange_explicit(&w->lock.all_reached, NULL, memory_order_acquire); s;
         s = s->lock_all_next)
        atomic_fetch_and_explicit(&s->peer.access, (uint8_t)~REMORA_ACCESS_LOCK_ALL, memory_order_relaxed);
}

static int local_blocked(uint64_t v) { return (v & LOCAL_EXCL) != 0; }
static int local_waiting(uint64_t v) { return (v >> 32) != 0; }
static int local_free(uint64_t v) { return LOCAL_HOLDERS(v) == 0; }
static int global_blocked(uint64_t v) { return GLOBAL_FIELD(v, GLOBAL_EX_HELD) != 0; }
static int global_waiting(uint64_t v) { return GLOBAL_FIELD(v, GLOBAL_EX_WAIT) != 0; }

/* MPI_Win_lock(SHARED) on one node: acquire_reader's first try, by a CPU
 * atomic on the target's word.  1: held; 0: an exclusive holder or waiter was
 * there, and the try is withdrawn (acquire_reader takes over). */
static int take_shared_on_node(const struct remora_rank_state *s)
{
    uint64_t old = atomic_fetch_add(node_word(s, REMORA_CTRL_LOCK_LOCAL), LOCAL_SHARED);
    remora_doorbell_ring(node_bell(s));
    if (!local_blocked(old) && !local_waiting(old))
        return 1;
    release_on_node(s, REMORA_CTRL_LOCK_LOCAL, -LOCAL_SHARED);
    return 0;
}

static int check_lock_assert(int assert)
{
    if (assert & ~MPI_MODE_NOCHECK)
        return remora_err(MPI_ERR_ASSERT, "assert %#x has bits other than MPI_MODE_NOCHECK", assert);
    return MPI_SUCCESS;
}

/* A passive-target epoch may start: no lock_all, no PSCW access epoch.  An open
 * fence epoch in which nothing else happened is closed implicitly (as MPICH
 * does): programs commonly fence once before switching to locks.  Under
 * sync_lock. */
static int passive_may_start(struct remora_win *w)
{
    if (w->lock.all_held)
        return remora_err(MPI_ERR_RMA_SYNC, "the window is in a lock_all epoch");
    if (w->pscw.start_group)
        return remora_err(MPI_ERR_RMA_SYNC, "the window is in a PSCW access epoch (MPI_Win_start)");
    if (w->fence.open) {
        w->fence.open = 0;
        atomic_store_explicit(&w->access_all, 0, memory_order_relaxed);
    }
    return MPI_SUCCESS;
}

/* ---- per-target locks: the epoch bookkeeping (E1 at the top) -------------- */

/* Put target s on lock.locked, where remora_locks_held looks, unless it is
 * there (E1).  Once per target and window; another thread listing it
 * meanwhile is waited for. */
static __attribute__((noinline)) void list_target(struct remora_win *w, struct remora_rank_state *s)
{
    uint8_t unlisted = 0;
    if (!atomic_compare_exchange_strong(&s->lock_listed, &unlisted, 1)) {
        struct remora_wait wt;
        remora_wait_init(&wt);
        while (atomic_load_explicit(&s->lock_listed, memory_order_acquire) != 2)
            remora_wait_round(&wt);
        return;
    }
    s->locked_next = atomic_load(&w->lock.locked);
    while (!atomic_compare_exchange_weak(&w->lock.locked, &s->locked_next, s))
        ;
    atomic_store_explicit(&s->lock_listed, 2, memory_order_release);
}

int remora_locks_held(const struct remora_win *w)
{
    int n = 0;
    for (const struct remora_rank_state *s = w->lock.locked; s; s = s->locked_next) /* seq_cst loads */
        n += s->lock_state != REMORA_LOCK_NONE;
    return n;
}

/* Claim target s's lock_state for this call: from `from` to PENDING.  0 when
 * it is not `from` (another call of this process has it). */
static inline int claim(struct remora_rank_state *s, uint8_t from)
{
    return atomic_compare_exchange_strong(&s->lock_state, &from, REMORA_LOCK_PENDING);
}

static void unclaim(struct remora_rank_state *s)
{
    atomic_store_explicit(&s->lock_state, REMORA_LOCK_NONE, memory_order_release);
}

/* A lock found another epoch open, or opening: passive_may_start decides. */
static __attribute__((noinline)) int lock_other_epoch(struct remora_win *w, struct remora_rank_state *s)
{
    remora_sync_begin(w);
    int rc = passive_may_start(w);
    remora_sync_end(w);
    if (rc != MPI_SUCCESS)
        unclaim(s);
    return rc;
}

/* MPI_Win_lock's epoch: claim the target (listed first), then (seq_cst,
 * after the claim) look for the epochs that exclude it (E1). */
static inline int lock_begin(struct remora_win *w, struct remora_rank_state *s, int target)
{
    if (__builtin_expect(atomic_load_explicit(&s->lock_listed, memory_order_acquire) != 2, 0))
        list_target(w, s);
    if (!claim(s, REMORA_LOCK_NONE))
        return remora_err(MPI_ERR_RMA_SYNC, "target %d is already locked by this process", target);
    int rc;
    if ((atomic_load(&w->lock.all_held) | atomic_load(&w->fence.open) || atomic_load(&w->pscw.start_group)) &&
        (rc = lock_other_epoch(w, s)) != MPI_SUCCESS)
        return rc;
    remora_count_epoch(w);
    return MPI_SUCCESS;
}

/* The target is ours: the previous holder's accesses happen before ours. */
static inline void lock_held(struct remora_rank_state *s, uint8_t access, uint8_t held)
{
    atomic_store_explicit(&s->peer.access, access, memory_order_relaxed);
    atomic_store_explicit(&s->lock_state, held, memory_order_release);
    atomic_thread_fence(memory_order_acquire);
}

/* The lock words of a target that lock_begin claimed; the waits happen here,
 * outside sync_lock (other threads may unlock meanwhile: PENDING keeps the
 * target's state ours).  node_tried: take_exclusive_on_node failed already. */
static __attribute__((noinline)) int lock_words(struct remora_win *w, struct remora_rank_state *s, int target,
                                                int lock_type, int assert, int node_tried)
{
    int excl = lock_type == MPI_LOCK_EXCLUSIVE;
    remora_status_t st = REMORA_OK;
    uint8_t held = excl ? REMORA_LOCK_EXCL_HELD : REMORA_LOCK_SHARED_HELD;
    if (assert & MPI_MODE_NOCHECK)
        held |= 0x80;
    else if (!excl) {
        if (w->spans_nodes || !take_shared_on_node(s))
            st = acquire_reader(w, target, REMORA_CTRL_LOCK_LOCAL, LOCAL_SHARED, local_blocked, local_waiting);
    } else if (!node_tried && node_protocol(w) && take_exclusive_on_node(w, s))
        held = REMORA_LOCK_EXCL_LOCAL;
    else
        st = acquire_exclusive(w, target);
    if (!remora_ok(st)) { /* the lock words are in doubt: the network failed */
        unclaim(s);
        return remora_status_err(st, "locking target %d", target);
    }
    lock_held(s, excl ? REMORA_ACCESS_LOCK_EXCL : REMORA_ACCESS_LOCK_SHARED, held);
    return MPI_SUCCESS;
}

/* MPI_Win_lock but the fast path's case. */
static __attribute__((noinline)) int lock_general(struct remora_win *w, int lock_type, int target, int assert)
{
    if (lock_type != MPI_LOCK_SHARED && lock_type != MPI_LOCK_EXCLUSIVE)
        return remora_err(MPI_ERR_LOCKTYPE, "lock type %d is neither MPI_LOCK_SHARED nor MPI_LOCK_EXCLUSIVE", lock_type);
    int rc = check_lock_assert(assert);
    if (rc != MPI_SUCCESS || (unsigned)target >= (unsigned)w->comm_size) /* MPI_PROC_NULL is negative */
        return rc != MPI_SUCCESS || target == MPI_PROC_NULL ? rc : remora_check_target(w, target);
    struct remora_rank_state *s = remora_rank(w, target);
    if (!s)
        return remora_err(MPI_ERR_NO_MEM, "locking target %d", target);
    if ((rc = lock_begin(w, s, target)) != MPI_SUCCESS)
        return rc;
    return lock_words(w, s, target, lock_type, assert, 0);
}

/* The fast path: an exclusive lock without asserts, on one node, of a target
 * whose state is made, taken by take_exclusive_on_node. */
int remora_lock(struct remora_win *w, int lock_type, int target, int assert)
{
    struct remora_rank_state *s;
    if (__builtin_expect(lock_type != MPI_LOCK_EXCLUSIVE || assert || (unsigned)target >= (unsigned)w->comm_size ||
                             !(s = remora_rank_known(w, target)) || !node_protocol(w),
                         0))
        return lock_general(w, lock_type, target, assert);
    int rc = lock_begin(w, s, target);
    if (rc != MPI_SUCCESS)
        return rc;
    if (__builtin_expect(!take_exclusive_on_node(w, s), 0))
        return lock_words(w, s, target, lock_type, assert, 1);
    lock_held(s, REMORA_ACCESS_LOCK_EXCL, REMORA_LOCK_EXCL_LOCAL);
    return MPI_SUCCESS;
}

/* MPI_Win_unlock of a claimed target but the fast path's case (state: its
 * state when locked). */
static __attribute__((noinline)) int unlock_words(struct remora_win *w, struct remora_rank_state *s, int target,
                                                  uint8_t state)
{
    /* Complete our operations before releasing.  On the node the release is
     * itself a full barrier (a seq_cst read-modify-write on the lock word)
     * unless MPI_MODE_NOCHECK left no lock word to release. */
    remora_status_t st = REMORA_OK, st2 = REMORA_OK;
    if ((state & 0x80) || w->spans_nodes)
        st = remora_flush_target(w, target);
    /* released even if the flush failed: others must not wait forever */
    uint64_t local = state == REMORA_LOCK_SHARED_HELD ? -LOCAL_SHARED : -LOCAL_EXCL;
    int registered = state == REMORA_LOCK_EXCL_HELD;
    if (state & 0x80) {
        /* MPI_MODE_NOCHECK: no lock word was taken */
    } else if (!w->spans_nodes) {
        release_on_node(s, REMORA_CTRL_LOCK_LOCAL, local);
        if (registered) /* the master's state was made by the registration */
            release_on_node(remora_rank_known(w, MASTER), REMORA_CTRL_LOCK_GLOBAL, -GLOBAL_EX_HELD);
    } else {
        st2 = remora_ctrl_release(w, target, REMORA_CTRL_LOCK_LOCAL, local);
        if (remora_ok(st2) && registered)
            st2 = remora_ctrl_release(w, MASTER, REMORA_CTRL_LOCK_GLOBAL, -GLOBAL_EX_HELD);
    }
    atomic_store_explicit(&s->lock_state, REMORA_LOCK_NONE, memory_order_release);
    return remora_status_err(!remora_ok(st) ? st : st2, "unlocking target %d", target);
}

/* The fast path: an exclusive lock on one node that holds only its target's
 * word (REMORA_LOCK_EXCL_LOCAL): released, and that is a full barrier. */
int remora_unlock(struct remora_win *w, int target)
{
    if ((unsigned)target >= (unsigned)w->comm_size) /* MPI_PROC_NULL is negative */
        return target == MPI_PROC_NULL ? MPI_SUCCESS : remora_check_target(w, target);
    struct remora_rank_state *s = remora_rank_known(w, target);
    uint8_t state = s ? atomic_load_explicit(&s->lock_state, memory_order_relaxed) : REMORA_LOCK_NONE;
    if (state == REMORA_LOCK_NONE || state == REMORA_LOCK_PENDING || !claim(s, state))
        return remora_err(MPI_ERR_RMA_SYNC, "target %d is not locked by this process", target);
    /* PENDING until released: nobody else may unlock or lock it meanwhile. */
    atomic_store_explicit(&s->peer.access, 0, memory_order_relaxed);
    if (__builtin_expect(state != REMORA_LOCK_EXCL_LOCAL, 0))
        return unlock_words(w, s, target, state);
    release_on_node(s, REMORA_CTRL_LOCK_LOCAL, -LOCAL_EXCL);
    atomic_store_explicit(&s->lock_state, REMORA_LOCK_NONE, memory_order_release);
    return MPI_SUCCESS;
}

int remora_lock_all(struct remora_win *w, int assert)
{
    int rc = check_lock_assert(assert);
    if (rc != MPI_SUCCESS)
        return rc;
    remora_sync_begin(w);
    rc = passive_may_start(w);
    if (rc == MPI_SUCCESS) { /* held, then the per-target locks looked for (E1) */
        w->lock.all_held = 1 | (assert & MPI_MODE_NOCHECK ? 2 : 0);
        int locks = remora_locks_held(w);
        if (locks) {
            w->lock.all_held = 0;
            rc = remora_err(MPI_ERR_RMA_SYNC, "this process holds %d per-target lock(s)", locks);
        } else
            remora_count_epoch(w);
    }
    remora_sync_end(w);
    if (rc != MPI_SUCCESS)
        return rc;
    remora_status_t st = assert & MPI_MODE_NOCHECK
                 ? REMORA_OK
                 : acquire_reader(w, MASTER, REMORA_CTRL_LOCK_GLOBAL, GLOBAL_ALL, global_blocked, global_waiting);
    if (!remora_ok(st)) {
        remora_sync_begin(w);
        w->lock.all_held = 0;
        remora_sync_end(w);
        return remora_status_err(st, "lock_all");
    }
    atomic_thread_fence(memory_order_acquire);
    if (assert & MPI_MODE_NOCHECK || !node_protocol(w)) {
        atomic_store_explicit(&w->access_all, REMORA_ALL_LOCK_ALL, memory_order_relaxed);
        return MPI_SUCCESS;
    }
    /* Each target is checked at its first RMA access (remora_lock_all_reach).
     * Memory the program may load and store is checked now: its own, and
     * every rank's once MPI_Win_shared_query has handed out others'. */
    atomic_store_explicit(&w->access_all, REMORA_ALL_LOCK_ALL_NODE, memory_order_relaxed);
    int every = atomic_load_explicit(&w->lock.peers_handed_out, memory_order_relaxed);
    int first = every ? 0 : w->rank, end = every ? w->comm_size : w->rank + 1;
    for (int r = first; r < end; r++) {
        struct remora_rank_state *s = remora_rank(w, r);
        if (!s) {
            remora_unlock_all(w);
            return remora_err(MPI_ERR_NO_MEM, "lock_all on a window of %d ranks", w->comm_size);
        }
        remora_lock_all_reach(w, s);
    }
    return MPI_SUCCESS;
}

int remora_unlock_all(struct remora_win *w)
{
    remora_sync_begin(w);
    int held = w->lock.all_held;
    if (!held || (held & 4)) {
        remora_sync_end(w);
        return remora_err(MPI_ERR_RMA_SYNC, held ? "the lock_all epoch is being closed by another thread"
                                                 : "the window is not in a lock_all epoch");
    }
    atomic_store_explicit(&w->access_all, 0, memory_order_relaxed);
    w->lock.all_held |= 4; /* being closed */
    remora_sync_end(w);
    forget_reached(w);
    /* completed and released outside sync_lock: these are remote operations */
    remora_status_t st = remora_flush_all(), st2 = REMORA_OK;
    if (!(held & 2))
        st2 = remora_ctrl_release(w, MASTER, REMORA_CTRL_LOCK_GLOBAL, -GLOBAL_ALL);
    remora_sync_begin(w);
    w->lock.all_held = 0;
    remora_sync_end(w);
    return remora_status_err(!remora_ok(st) ? st : st2, "unlock_all");
}
