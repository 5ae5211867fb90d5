/* dsde's pieces (main.c describes the motif): who sends what to whom
 * (plan.c), what arrived (the inbox) and whether it is right (verify.c), and
 * the four exchanges (twosided.c, rma.c). */
#ifndef DSDE_H
#define DSDE_H

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* memory the program cannot do without: zeroed, or the job stops */
static inline void *xcalloc(size_t count, size_t size)
{
    void *p = calloc(count ? count : 1, size);
    if (!p) {
        fprintf(stderr, "dsde: out of memory (%zu x %zu bytes)\n", count, size);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return p;
}

/* One message: its 8 bytes and its sender.  The two-sided modes send only the
 * payload (the sender comes with the status); the one-sided mode puts both
 * words into its slot at the target. */
struct message {
    uint64_t payload;
    uint64_t source;
};

/* plan.c: every rank's targets in every round, replayable by any rank */
int targets_per_round(int k, int size); /* k clipped to the size - 1 other ranks */
/* rank's targets_per_round(k, size) distinct targets in round; taken: size
 * bytes of scratch, all zero before and after */
void choose_targets(int rank, int size, int k, long round, int *targets, unsigned char *taken);
uint64_t message_payload(int source, long round, int target);

/* What this rank sends in the rounds first .. first + rounds - 1: k targets
 * and k messages per round (round r's at [r * k, r * k + k)). */
struct plan {
    int k;
    long first, rounds;
    int *target;
    struct message *out;
};
void plan_build(struct plan *plan, int rank, int size, int k, long first, long rounds);
void plan_free(struct plan *plan);
static inline const int *plan_targets(const struct plan *plan, long r) { return plan->target + r * plan->k; }
static inline const struct message *plan_messages(const struct plan *plan, long r) { return plan->out + r * plan->k; }

/* The tag of a round's two-sided messages: consecutive rounds differ (the
 * standard guarantees tags up to 32767). */
static inline int round_tag(long round) { return (int)(round % 32768); }

/* verify.c: what this rank received, round by round (round r's messages at
 * [start[r], start[r + 1])) */
struct inbox {
    long rounds, n, capacity;
    long *start;
    struct message *msg;
};
void inbox_init(struct inbox *in, long rounds, long capacity);
void inbox_clear(struct inbox *in);
void inbox_free(struct inbox *in);
void inbox_grow(struct inbox *in);
static inline void inbox_add(struct inbox *in, uint64_t source, uint64_t payload)
{
    if (in->n == in->capacity)
        inbox_grow(in);
    in->msg[in->n++] = (struct message){.payload = payload, .source = source};
}
static inline void inbox_end_round(struct inbox *in, long r) { in->start[r + 1] = in->n; }

/* 1 when every round of the inbox holds exactly the messages the plans of all
 * ranks address to this rank; else 0, each problem told on stderr */
int verify_inbox(MPI_Comm comm, const char *mode, int k, long first, const struct inbox *in);

/* The state of one mode's run: scratch for the two-sided modes and the
 * window of the one-sided one, made before the timed part. */
struct exchanger {
    MPI_Comm comm;
    int rank, size;
    int *count_out;    /* per rank: messages to it this round (all zero between rounds) */
    int *count_in;     /* alltoall: per rank, messages from it this round */
    uint64_t *inbound; /* alltoall: the payload from each source */
    /* size + k each; statuses, not MPI_STATUSES_IGNORE: gcc 12 takes MPICH's
     * (MPI_Status *)1 for an array */
    MPI_Request *requests;
    MPI_Status *statuses;
    MPI_Win win; /* rma (rma.c describes the window) */
    uint64_t *window;
    uint64_t *seen; /* rma: the bitmaps as this rank last read them */
    int bitmap_words;
};
void rma_window_open(struct exchanger *x);
void rma_window_close(struct exchanger *x);

/* one run of a mode: plan->rounds exchanges, what arrives goes to the inbox */
void exchange_alltoall(struct exchanger *x, const struct plan *plan, struct inbox *in);
void exchange_reduce_scatter(struct exchanger *x, const struct plan *plan, struct inbox *in);
void exchange_nbx(struct exchanger *x, const struct plan *plan, struct inbox *in);
void exchange_rma(struct exchanger *x, const struct plan *plan, struct inbox *in);

#endif
