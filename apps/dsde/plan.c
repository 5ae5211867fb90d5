/* Who sends what to whom.  A rank's targets in a round come from a generator
 * seeded by (rank, round) alone, so every rank can replay every other rank's
 * choice (verify.c does); a message's 8 bytes are a hash of (source, round,
 * target), so a payload names the one message it belongs to. */
#include "dsde.h"

static uint64_t mix(uint64_t z) /* splitmix64's finaliser */
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static uint64_t next(uint64_t *state) /* splitmix64 */
{
    return mix(*state += 0x9E3779B97F4A7C15ull);
}

int targets_per_round(int k, int size)
{
    return k < size - 1 ? k : size - 1;
}

/* Floyd's sampling of n distinct indices of the size - 1 other ranks (index i
 * is rank i below rank, i + 1 from it on): O(n) with the taken marks. */
void choose_targets(int rank, int size, int k, long round, int *targets, unsigned char *taken)
{
    const int others = size - 1, n = targets_per_round(k, size);
    uint64_t state = mix(mix((uint64_t)rank + 1) + (uint64_t)round);
    for (int j = others - n, i = 0; j < others; j++, i++) {
        int t = (int)(next(&state) % (uint64_t)(j + 1));
        if (taken[t])
            t = j; /* j itself was never drawn before */
        taken[t] = 1;
        targets[i] = t;
    }
    for (int i = 0; i < n; i++) {
        taken[targets[i]] = 0;
        targets[i] += targets[i] >= rank;
    }
}

uint64_t message_payload(int source, long round, int target)
{
    return mix(mix(mix((uint64_t)source + 1) ^ (uint64_t)target) + (uint64_t)round);
}

void plan_build(struct plan *plan, int rank, int size, int k, long first, long rounds)
{
    const int n = targets_per_round(k, size);
    unsigned char *taken = xcalloc((size_t)size, 1);
    plan->k = n;
    plan->first = first;
    plan->rounds = rounds;
    plan->target = xcalloc((size_t)(rounds * n), sizeof *plan->target);
    plan->out = xcalloc((size_t)(rounds * n), sizeof *plan->out);
    for (long r = 0; r < rounds; r++) {
        int *target = plan->target + r * n;
        choose_targets(rank, size, k, first + r, target, taken);
        for (int i = 0; i < n; i++)
            plan->out[r * n + i] =
                (struct message){.payload = message_payload(rank, first + r, target[i]), .source = (uint64_t)rank};
    }
    free(taken);
}

void plan_free(struct plan *plan)
{
    free(plan->target);
    free(plan->out);
}
