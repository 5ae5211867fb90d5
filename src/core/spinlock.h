/* A lock for a window's epoch bookkeeping: one atomic exchange to take it, a
 * release store to drop it.  A waiter spins briefly, then yields the core
 * every 32 rounds: the holder may have been preempted on an oversubscribed
 * node.  No section holds it across a remote operation or a wait. */
#ifndef REMORA_CORE_SPINLOCK_H
#define REMORA_CORE_SPINLOCK_H

#include <sched.h>
#include <stdatomic.h>

typedef struct {
    _Atomic int held;
} remora_spinlock;

static inline void remora_spin_lock(remora_spinlock *l)
{
    while (atomic_exchange_explicit(&l->held, 1, memory_order_acquire)) {
        for (unsigned n = 1; atomic_load_explicit(&l->held, memory_order_relaxed); n++) {
            if ((n & 31) == 0)
                sched_yield();
#if defined(__x86_64__) || defined(__i386__)
            else
                __builtin_ia32_pause();
#endif
        }
    }
}

static inline void remora_spin_unlock(remora_spinlock *l)
{
    atomic_store_explicit(&l->held, 0, memory_order_release);
}

#endif
