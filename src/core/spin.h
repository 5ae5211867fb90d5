/* Waiting: spin a little, then yield the core, and back off exponentially
 * (bounded, with jitter) between retries of a contended protocol step.  Every
 * wait drives the transport's progress, so nothing waits on itself.  On an
 * oversubscribed node a spinner yields every round: its peer may need the core. */
#ifndef REMORA_CORE_SPIN_H
#define REMORA_CORE_SPIN_H

#include <sched.h>
#include <stdint.h>

#include "runtime/context.h"
#include "transport/transport.h"

#define REMORA_BACKOFF_MIN 16u
#define REMORA_BACKOFF_MAX 16384u

struct remora_wait {
    unsigned rounds;
    unsigned delay;   /* pause iterations of the next backoff */
    uint32_t rng;
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
}

/* One round of waiting for a condition that another process will change. */
static inline void remora_wait_round(struct remora_wait *w)
{
    remora_progress();
    if (remora_ctx.oversubscribed || (++w->rounds & 255) == 0)
        sched_yield();
    else
        remora_cpu_relax();
}

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
