/* A doorbell: lets a waiter sleep in the kernel until another process on the
 * node changes a word it waits for, instead of spinning on a core that the
 * process it waits for may need (an eventcount over a futex on shared memory).
 *
 * The doorbell lives in memory that every process on the node maps (a
 * window's segment); the futex is a shared one, keyed by the page.
 *
 * Protocol (D1: no lost wake-up):
 *   changer:  change the word (a seq_cst read-modify-write); remora_doorbell_ring()
 *   waiter:   s = remora_doorbell_enter(); if (!condition) remora_doorbell_sleep(s);
 *             remora_doorbell_leave()
 * enter() counts the waiter in `sleepers` (seq_cst) before it reads `seq` and
 * re-checks the condition; ring() reads `sleepers` (seq_cst) after the change
 * (a seq_cst read-modify-write): all four are in the one total order of
 * seq_cst operations.  So either the waiter's re-check sees the change, or the
 * changer sees the waiter and bumps `seq`, after which the futex wait either
 * fails at once (seq is no longer s) or is woken.  Ringing with nobody
 * asleep costs one load; spurious wake-ups are harmless (the waiter
 * re-checks). */
#ifndef REMORA_RUNTIME_DOORBELL_H
#define REMORA_RUNTIME_DOORBELL_H

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

struct remora_doorbell {
    _Atomic uint32_t seq;      /* bumped by a ring that found sleepers: the futex word */
    _Atomic uint32_t sleepers; /* waiters between enter() and leave()                  */
};

/* After the change, which must be a seq_cst atomic: then this seq_cst load
 * cannot be ordered before it (on x86 a plain load, no fence). */
static inline __attribute__((always_inline)) void remora_doorbell_ring(struct remora_doorbell *d)
{
    if (atomic_load_explicit(&d->sleepers, memory_order_seq_cst)) {
        atomic_fetch_add_explicit(&d->seq, 1, memory_order_seq_cst);
        syscall(SYS_futex, &d->seq, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
    }
}

static inline uint32_t remora_doorbell_enter(struct remora_doorbell *d)
{
    atomic_fetch_add_explicit(&d->sleepers, 1, memory_order_seq_cst);
    atomic_thread_fence(memory_order_seq_cst); /* the condition's re-check may use weaker loads */
    return atomic_load_explicit(&d->seq, memory_order_seq_cst);
}

/* Sleeps until a ring after enter() returned `seen` (or a signal, or
 * spuriously), or for at most timeout_ns when that is not 0.  1 when the
 * time ran out. */
static inline int remora_doorbell_sleep(struct remora_doorbell *d, uint32_t seen, uint64_t timeout_ns)
{
    struct timespec t = {(time_t)(timeout_ns / 1000000000u), (long)(timeout_ns % 1000000000u)};
    return syscall(SYS_futex, &d->seq, FUTEX_WAIT, seen, timeout_ns ? &t : NULL, NULL, 0) != 0 && errno == ETIMEDOUT;
}

static inline void remora_doorbell_leave(struct remora_doorbell *d)
{
    atomic_fetch_sub_explicit(&d->sleepers, 1, memory_order_relaxed);
}

#endif
