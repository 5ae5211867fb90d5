/* The three two-sided exchanges of Hoefler, Siebert and Lumsdaine (PPoPP
 * 2010); main.c describes their protocols.  Each sends one MPI_UINT64_T (the
 * payload) per target with the round's tag; the receiver learns the sender
 * from the status or from where it posted the receive. */
#include "check.h"
#include "dsde.h"

/* alltoall: everyone tells everyone how many messages it sends it */
void exchange_alltoall(struct exchanger *x, const struct plan *plan, struct inbox *in)
{
    for (long r = 0; r < plan->rounds; r++) {
        const int *target = plan_targets(plan, r), tag = round_tag(plan->first + r);
        const struct message *out = plan_messages(plan, r);
        int n = 0;
        for (int i = 0; i < plan->k; i++)
            x->count_out[target[i]] = 1;
        APP_CHECK(MPI_Alltoall(x->count_out, 1, MPI_INT, x->count_in, 1, MPI_INT, x->comm));
        for (int s = 0; s < x->size; s++)
            if (x->count_in[s])
                APP_CHECK(MPI_Irecv(&x->inbound[s], 1, MPI_UINT64_T, s, tag, x->comm, &x->requests[n++]));
        for (int i = 0; i < plan->k; i++) {
            APP_CHECK(MPI_Isend(&out[i].payload, 1, MPI_UINT64_T, target[i], tag, x->comm, &x->requests[n++]));
            x->count_out[target[i]] = 0;
        }
        APP_CHECK(MPI_Waitall(n, x->requests, x->statuses));
        for (int s = 0; s < x->size; s++)
            if (x->count_in[s])
                inbox_add(in, (uint64_t)s, x->inbound[s]);
        inbox_end_round(in, r);
    }
}

/* reduce_scatter: the sum of everyone's 0/1 vectors gives each rank its count */
void exchange_reduce_scatter(struct exchanger *x, const struct plan *plan, struct inbox *in)
{
    for (long r = 0; r < plan->rounds; r++) {
        const int *target = plan_targets(plan, r), tag = round_tag(plan->first + r);
        const struct message *out = plan_messages(plan, r);
        int incoming;
        for (int i = 0; i < plan->k; i++)
            x->count_out[target[i]] = 1;
        APP_CHECK(MPI_Reduce_scatter_block(x->count_out, &incoming, 1, MPI_INT, MPI_SUM, x->comm));
        for (int i = 0; i < plan->k; i++) {
            APP_CHECK(MPI_Isend(&out[i].payload, 1, MPI_UINT64_T, target[i], tag, x->comm, &x->requests[i]));
            x->count_out[target[i]] = 0;
        }
        for (int j = 0; j < incoming; j++) {
            uint64_t payload;
            MPI_Status status;
            APP_CHECK(MPI_Recv(&payload, 1, MPI_UINT64_T, MPI_ANY_SOURCE, tag, x->comm, &status));
            inbox_add(in, (uint64_t)status.MPI_SOURCE, payload);
        }
        APP_CHECK(MPI_Waitall(plan->k, x->requests, x->statuses));
        inbox_end_round(in, r);
    }
}

/* nbx: synchronous sends, receive whatever comes; a rank whose sends were all
 * received enters a nonblocking barrier; when the barrier completes every
 * rank's sends have been received, so nothing more is coming this round.  A
 * rank may leave a round's barrier and send the next round's messages while
 * another still probes this round: the round's tag keeps them apart. */
void exchange_nbx(struct exchanger *x, const struct plan *plan, struct inbox *in)
{
    for (long r = 0; r < plan->rounds; r++) {
        const int *target = plan_targets(plan, r), tag = round_tag(plan->first + r);
        const struct message *out = plan_messages(plan, r);
        for (int i = 0; i < plan->k; i++)
            APP_CHECK(MPI_Issend(&out[i].payload, 1, MPI_UINT64_T, target[i], tag, x->comm, &x->requests[i]));
        MPI_Request barrier = MPI_REQUEST_NULL;
        int done = 0;
        while (!done) {
            int arrived;
            MPI_Status status;
            APP_CHECK(MPI_Iprobe(MPI_ANY_SOURCE, tag, x->comm, &arrived, &status));
            if (arrived) {
                uint64_t payload;
                APP_CHECK(MPI_Recv(&payload, 1, MPI_UINT64_T, status.MPI_SOURCE, tag, x->comm, MPI_STATUS_IGNORE));
                inbox_add(in, (uint64_t)status.MPI_SOURCE, payload);
            } else if (barrier != MPI_REQUEST_NULL) {
                APP_CHECK(MPI_Test(&barrier, &done, MPI_STATUS_IGNORE));
            } else {
                int sent;
                APP_CHECK(MPI_Testall(plan->k, x->requests, &sent, x->statuses));
                if (sent)
                    APP_CHECK(MPI_Ibarrier(x->comm, &barrier));
            }
        }
        inbox_end_round(in, r);
    }
}
