/* Waiting: spin a little, then yield the core, and back off exponentially
 * (bounded, with jitter) between retries of a contended protocol step.  Every
 * wait drives the transport's progress, so nothing waits on itself.  On an
 * oversubscribed node a spinner yields every round: its peer may need the core.
 * A wait for a word that only processes on this node change (they ring a
 * doorbell after changing it) spins for REMORA_SPIN_US (default 1 ms), then
 * sleeps in the kernel until the doorbell rings (REMORA_WAIT_UNTIL): a long
 * wait (load imbalance, a peer computing) gives its core to whoever can make
 * progress.  The budget is long because a wake-up costs more than it saves
 * in short waits: with 2 to 4 ranks on 2 cores, sleeping after 20 us cut the
 * message rate of fence and PSCW epochs by 2 to 4x (the closing note of issue
 * 11 has the measurements). */
#ifndef REMORA_CORE_SPIN_H
#define REMORA_CORE_SPIN_H

#include <sched.h>
#include <stdint.h>
#include <time.h>

#include "runtime/context.h"
#include "runtime/doorbell.h"
#include "transport/transport.h"

#define REMORA_BACKOFF_MIN 16u
#define REMORA_BACKOFF_MAX 16384u

struct remora_wait {
    unsigned rounds;
    unsigned delay;   /* pause iterations of the next backoff */
    uint32_t rng;
    uint64_t sleep_at; /* when the spinning ends (ns, CLOCK_MONOTONIC); 0: not yet known */
};

static inline void remora_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

static inline void remora_wait_init(struct remora_wait *w)
{
    w->rounds = 0;
    w->delay = REMORA_BACKOFF_MIN;
    w->rng = (uint32_t)(uintptr_t)w ^ 0x9e3779b9u;
    w->sleep_at = 0;
}

/* One round of waiting for a condition that another process will change. */
static inline void remora_wait_round(struct remora_wait *w)
{
    remora_progress();
    if ((++w->rounds & 255) == 0 || remora_ctx.oversubscribed)
        sched_yield();
    else
        remora_cpu_relax();
}

/* A wait for a word that other nodes write (its sleeps recheck) spins this
 * many budgets: while it spins it carries out their requests itself (the
 * network's software RMA), and each sleep costs a wake-up of the progress
 * thread and of the waiter per request (measured: OpenSHMEM put + quiet
 * toward a PE waiting in shmem_wait_until across nodes 30 us with one
 * budget of 1 ms, 18 us with ten). */
#define REMORA_NET_WAIT_BUDGETS 10

/* Whether a wait has spun for its budget, REMORA_SPIN_US times `budgets`;
 * the clock is read every 16 rounds. */
static inline int remora_wait_spun(struct remora_wait *w, unsigned budgets)
{
    if ((w->rounds & 15) != 0)
        return 0;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    uint64_t now = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    if (!w->sleep_at)
        w->sleep_at = now + (uint64_t)remora_ctx.config.spin_us * 1000u * budgets;
    return now >= w->sleep_at;
}

/* Wait until `cond` (an expression without side effects) holds.  `bell`: the
 * doorbell that every change of what cond reads rings (see runtime/doorbell.h),
 * or NULL when something that rings none may change it: then the wait only
 * spins and yields.  `recheck_ns` (0: never): when some changes may ring no
 * bell (hardware network writes), how long a sleep lasts before the
 * condition is checked again. */
#define REMORA_WAIT_UNTIL_RECHECK(bell, recheck_ns, cond)                                                 \
    do {                                                                                                 \
        struct remora_doorbell *bell_ = (bell);                                                          \
        struct remora_wait wt_;                                                                          \
        remora_wait_init(&wt_);                                                                          \
        while (!(cond)) {                                                                                \
            if (!bell_ || !remora_wait_spun(&wt_, (recheck_ns) ? REMORA_NET_WAIT_BUDGETS : 1)) {          \
                remora_wait_round(&wt_);                                                                 \
                continue;                                                                                \
            }                                                                                            \
            uint32_t seen_ = remora_doorbell_enter(bell_);                                               \
            remora_progress_pause();                                                                     \
            int timed_out_ = !(cond) && remora_doorbell_sleep(bell_, seen_, (recheck_ns));               \
            remora_doorbell_leave(bell_);                                                                \
            if (!timed_out_) /* rung: spin a whole budget again, or every later ring is a syscall */     \
                wt_.sleep_at = 0;                                                                        \
        }                                                                                                \
    } while (0)

#define REMORA_WAIT_UNTIL(bell, cond) REMORA_WAIT_UNTIL_RECHECK(bell, 0, cond)

/* Back off after losing a race for a contended word: exponential, bounded, jittered. */
static inline void remora_backoff(struct remora_wait *w)
{
    w->rng ^= w->rng << 13;
    w->rng ^= w->rng >> 17;
    w->rng ^= w->rng << 5;
    unsigned spins = w->delay / 2 + w->rng % (w->delay / 2 + 1);
    for (unsigned i = 0; i < spins; i++) {
        if (remora_ctx.oversubscribed && (i & 63) == 0)
            sched_yield();
        remora_cpu_relax();
    }
    remora_progress();
    w->rounds++;
    if (w->delay < REMORA_BACKOFF_MAX)
        w->delay *= 2;
}

#endif
