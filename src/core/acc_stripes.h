/* The stripe locks and the lock-free state of a target: the serialisation
 * of every accumulate that is not one atomic (acc_image.c and acc_plain.c
 * run under them), and the switch that lets calls under the stripes use plain
 * loads and stores until the first lock-free call (acc_elem.h) on a target.
 * Chosen by the dispatcher (accumulate.c: run) and the on-node fast path
 * (acc_fast.h) for every call that is not one word's atomic and not carried
 * out by the owner (acc_owner.c).  Core-internal; static inline: the fast
 * path of a row (bench/instructions) takes them without a call. */
#ifndef REMORA_CORE_ACC_STRIPES_H
#define REMORA_CORE_ACC_STRIPES_H

#include <stdatomic.h>
#include <stdint.h>

#include "core/ctrl.h"
#include "core/rma.h"
#include "core/spin.h"
#include "transport/transport.h"

#if REMORA_TSAN
#include <sanitizer/tsan_interface.h>
#endif

/* ---- what ThreadSanitizer cannot see ----------------------------------------------- */

/* ThreadSanitizer follows the happens-before edges of one process.  A call
 * under the stripes that used plain stores ends before the target's
 * lock-free state becomes 2 (lock_free_begin waits for its stripe), but the
 * wait and the switch to 2 may be another process's: then a thread of this
 * process that reads 2 and updates the same words with atomics is, as far as
 * it can tell, racing with this process's plain call, through the other
 * process's atomics on the control block.  Its builds are told the edge: an
 * unlock of the stripes releases, and a read of state 2 from the control
 * block acquires, the target's control block as this process reaches it
 * (reach.ctrl: one address per target and process, used for nothing else). */
static inline void stripes_tsan_release(struct remora_win *w, int target)
{
#if REMORA_TSAN
    __tsan_release(&remora_rank_known(w, target)->reach.ctrl);
#else
    (void)w, (void)target;
#endif
}

static inline void lock_free_tsan_acquire(struct remora_win *w, int target, uint64_t v)
{
#if REMORA_TSAN
    if (v == 2)
        __tsan_acquire(&remora_rank_known(w, target)->reach.ctrl);
#else
    (void)w, (void)target, (void)v;
#endif
}

/* ---- the stripe locks ------------------------------------------------------------- */

/* Bit k of a target's ctrl.acc_stripes locks the positions p with
 * p / STRIPE_BYTES % 64 == k: a call takes the bits of the bytes it touches
 * in one compare-and-swap, all or none, so calls on other bytes go on
 * (unless their stripes collide) and nothing deadlocks. */
enum { STRIPE_BYTES = 256 };

static inline uint64_t stripes_of(uint64_t lo, uint64_t hi)
{
    uint64_t first = lo / STRIPE_BYTES, last = (hi - 1) / STRIPE_BYTES, mask = 0;
    if (last - first >= 63)
        return ~(uint64_t)0;
    for (uint64_t k = first; k <= last; k++)
        mask |= (uint64_t)1 << (k % 64);
    return mask;
}

/* The control word at off of target's control block (an atomic add of 0). */
static inline remora_status_t ctrl_read(struct remora_win *w, int target, size_t off, uint64_t *v)
{
    return remora_ctrl_amo(w, target, off, REMORA_AMO_ADD, 0, 0, v);
}

static inline remora_status_t stripes_lock(struct remora_win *w, int target, uint64_t mask)
{
    uint64_t cur = 0, old;
    /* the usual case first: no stripe held */
    remora_status_t st = remora_ctrl_amo(w, target, REMORA_CTRL_ACC_STRIPES, REMORA_AMO_CSWAP, mask, 0, &old);
    if (!remora_ok(st) || old == 0) {
        atomic_thread_fence(memory_order_acquire);
        return st;
    }
    cur = old;
    struct remora_wait wt;
    remora_wait_init(&wt);
    for (;;) {
        if (cur & mask) { /* held: wait, then look again */
            remora_backoff(&wt);
            if (!remora_ok((st = ctrl_read(w, target, REMORA_CTRL_ACC_STRIPES, &cur))))
                return st;
            continue;
        }
        if (!remora_ok((st = remora_ctrl_amo(w, target, REMORA_CTRL_ACC_STRIPES, REMORA_AMO_CSWAP, cur | mask, cur, &old))) ||
            old == cur)
            break;
        cur = old;
    }
    atomic_thread_fence(memory_order_acquire);
    return st;
}

static inline remora_status_t stripes_unlock(struct remora_win *w, int target, uint64_t mask)
{
    stripes_tsan_release(w, target);
    atomic_thread_fence(memory_order_release);
    uint64_t old;
    return remora_ctrl_amo(w, target, REMORA_CTRL_ACC_STRIPES, REMORA_AMO_AND, ~mask, 0, &old);
}

/* ---- when calls under the stripes may go without atomics ------------------------- */

/* A call under the stripes of its bytes still updates its words with atomics
 * because lock-free calls (one word, no stripes) may run beside it.  Until
 * the first lock-free call on a target's memory none can, and calls under the
 * stripes use plain loads and stores there (the rows of ARMCI-MPI's and
 * Global Arrays' accumulates).  The target's ctrl.acc_lock_free says which:
 *   0  no lock-free call yet: calls under the stripes may go plain;
 *   1  the first lock-free call has set it and waits for the calls that read
 *      0 to end: until every stripe held when it set 1 has been seen free;
 *   2  lock-free calls go.
 * A call under the stripes reads it after taking them: it reads 0 and still
 * holds a stripe when 1 is set (and is waited for), or it reads 1 or 2 and
 * uses atomics.  The target's peer.acc_lock_free keeps the most we have read.
 * (Every caller has reached the target first: its state is made.) */
static inline uint8_t lock_free_known(const struct remora_rank_state *s)
{
    return atomic_load_explicit(&s->peer.acc_lock_free, memory_order_acquire);
}

static inline remora_status_t lock_free_read(struct remora_win *w, int target, uint64_t *v)
{
    remora_status_t st = ctrl_read(w, target, REMORA_CTRL_ACC_LOCK_FREE, v);
    if (remora_ok(st))
        lock_free_tsan_acquire(w, target, *v); /* before this thread tells the others (known) */
    uint8_t known = 0;
    while (remora_ok(st) && *v > known &&
           !atomic_compare_exchange_weak_explicit(&remora_rank_known(w, target)->peer.acc_lock_free, &known, (uint8_t)*v,
                                                  memory_order_release, memory_order_acquire))
        ;
    return st;
}

/* Before a lock-free call: until the state is 2, setting it first if no
 * call has. */
static inline remora_status_t lock_free_begin(struct remora_win *w, int target)
{
    uint64_t v = 0, held, now;
    if (lock_free_known(remora_rank_known(w, target)) == 2)
        return REMORA_OK;
    struct remora_wait wt;
    remora_wait_init(&wt);
    remora_status_t st = lock_free_read(w, target, &v);
    if (remora_ok(st) && v == 0 &&
        remora_ok((st = remora_ctrl_amo(w, target, REMORA_CTRL_ACC_LOCK_FREE, REMORA_AMO_CSWAP, 1, 0, &v))) &&
        v == 0) { /* ours to wait for the plain calls */
        st = ctrl_read(w, target, REMORA_CTRL_ACC_STRIPES, &held);
        while (remora_ok(st) && held) {
            remora_backoff(&wt);
            st = ctrl_read(w, target, REMORA_CTRL_ACC_STRIPES, &now);
            held &= now; /* a stripe seen free: the call that held it has ended */
        }
        if (remora_ok(st))
            st = remora_ctrl_amo(w, target, REMORA_CTRL_ACC_LOCK_FREE, REMORA_AMO_SWAP, 2, 0, &v);
    }
    while (remora_ok(st) && remora_ok((st = lock_free_read(w, target, &v))) && v != 2)
        remora_backoff(&wt);
    return st;
}

#endif
