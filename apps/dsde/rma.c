/* The one-sided exchange: active target, one MPI_Win_fence per round (main.c
 * tells why it is not "fetch a slot, then put into it").
 *
 * The window (MPI_Win_allocate, displacement unit 8 bytes) holds two halves,
 * one for even and one for odd rounds, each
 *     bitmap_words = ceil(size / 64) words: bit s flips when rank s sends
 *     size slots of 2 words: the message {payload, source} from rank s
 * In round r a sender does, for each target, in half r % 2 of the target:
 *     MPI_Accumulate(MPI_BXOR) of its bit into the bitmap word,
 *     MPI_Put of its message into its own slot.
 * Concurrent senders touch the same bitmap word only with the same
 * accumulate operation on the same type (allowed), and each slot has exactly
 * one writer per round.  The fence that closes the round completes all of
 * them at their targets and makes them visible to the target's loads (in the
 * separate memory model too: a fence synchronises the copies; nothing is
 * polled).  The receiver then compares the bitmap with the copy it keeps in
 * its own memory (seen): the bits that flipped are this round's senders, and
 * it reads their slots.
 * The receiver never stores to the window (but once, before the first
 * fence): in the separate memory model a store to a window must not overlap
 * any RMA update of the same window, even of other locations (MPI-3.1
 * 11.7, rule 3), so clearing the bitmap between rounds would need an
 * operation of its own.  Its loads happen during round r + 1, whose RMA
 * targets the other half only; round r + 2 writes the half again after the
 * fence that ends round r + 1, which follows those loads. */
#include "check.h"
#include "dsde.h"

static MPI_Aint half_words(const struct exchanger *x)
{
    return x->bitmap_words + 2 * (MPI_Aint)x->size;
}

void rma_window_open(struct exchanger *x)
{
    /* no passive target, and the only accumulate is MPI_BXOR, one per origin
     * and location per epoch: implementations may skip locks and ordering */
    MPI_Info info;
    APP_CHECK(MPI_Info_create(&info));
    APP_CHECK(MPI_Info_set(info, "no_locks", "true"));
    APP_CHECK(MPI_Info_set(info, "accumulate_ordering", "none"));
    APP_CHECK(MPI_Info_set(info, "accumulate_ops", "same_op"));
    x->bitmap_words = (x->size + 63) / 64;
    const MPI_Aint words = 2 * half_words(x);
    APP_CHECK(MPI_Win_allocate(words * 8, 8, info, x->comm, &x->window, &x->win));
    APP_CHECK(MPI_Info_free(&info));
    for (MPI_Aint i = 0; i < words; i++)
        x->window[i] = 0; /* before the first fence: no RMA yet */
    x->seen = xcalloc(2 * (size_t)x->bitmap_words, sizeof *x->seen);
}

void rma_window_close(struct exchanger *x)
{
    APP_CHECK(MPI_Win_free(&x->win));
    free(x->seen);
}

void exchange_rma(struct exchanger *x, const struct plan *plan, struct inbox *in)
{
    const uint64_t my_bit = 1ull << (x->rank % 64);
    const MPI_Aint my_word = x->rank / 64, my_slot = x->bitmap_words + 2 * (MPI_Aint)x->rank;
    APP_CHECK(MPI_Win_fence(MPI_MODE_NOPRECEDE, x->win));
    for (long r = 0; r < plan->rounds; r++) {
        const int *target = plan_targets(plan, r);
        const struct message *out = plan_messages(plan, r);
        const MPI_Aint half = (r % 2) * half_words(x);
        for (int i = 0; i < plan->k; i++) {
            APP_CHECK(MPI_Accumulate(&my_bit, 1, MPI_UINT64_T, target[i], half + my_word, 1, MPI_UINT64_T, MPI_BXOR,
                                     x->win));
            APP_CHECK(MPI_Put(&out[i], 2, MPI_UINT64_T, target[i], half + my_slot, 2, MPI_UINT64_T, x->win));
        }
        APP_CHECK(MPI_Win_fence(r == plan->rounds - 1 ? MPI_MODE_NOSUCCEED : 0, x->win));
        const uint64_t *bitmap = x->window + half, *slot = bitmap + x->bitmap_words;
        uint64_t *seen = x->seen + (r % 2) * x->bitmap_words;
        for (int w = 0; w < x->bitmap_words; w++) {
            for (uint64_t flipped = bitmap[w] ^ seen[w]; flipped; flipped &= flipped - 1) {
                const int s = w * 64 + __builtin_ctzll(flipped);
                inbox_add(in, slot[2 * s + 1], slot[2 * s]);
            }
            seen[w] = bitmap[w];
        }
        inbox_end_round(in, r);
    }
}
