/* What arrived and whether it is right.  The inbox keeps every message a
 * rank received in a run, round by round; verify_inbox replays the targets
 * of all ranks (plan.c) and compares, independently of any communication. */
#include <stdarg.h>
#include <string.h>

#include "dsde.h"

typedef unsigned long long ull; /* for printf */
enum { MAX_TOLD = 10 }; /* problems told per rank and run; the rest are counted */

void inbox_init(struct inbox *in, long rounds, long capacity)
{
    in->rounds = rounds;
    in->n = 0;
    in->capacity = capacity > 16 ? capacity : 16;
    in->start = xcalloc((size_t)rounds + 1, sizeof *in->start);
    in->msg = xcalloc((size_t)in->capacity, sizeof *in->msg);
}

void inbox_clear(struct inbox *in)
{
    in->n = 0;
}

void inbox_free(struct inbox *in)
{
    free(in->start);
    free(in->msg);
}

void inbox_grow(struct inbox *in)
{
    struct message *more = xcalloc((size_t)in->capacity * 2, sizeof *more);
    memcpy(more, in->msg, sizeof *more * (size_t)in->n);
    free(in->msg);
    in->msg = more;
    in->capacity *= 2;
}

static int by_source(const void *a, const void *b)
{
    const struct message *x = a, *y = b;
    if (x->source != y->source)
        return x->source < y->source ? -1 : 1;
    return (x->payload > y->payload) - (x->payload < y->payload);
}

struct report {
    int rank;
    const char *mode;
    long told, problems;
};

__attribute__((format(printf, 3, 4))) static void problem(struct report *rep, long round, const char *format, ...)
{
    if (rep->problems++ >= MAX_TOLD)
        return;
    rep->told++;
    char what[256]; /* one write per line: the ranks share stderr */
    va_list args;
    va_start(args, format);
    vsnprintf(what, sizeof what, format, args);
    va_end(args);
    fprintf(stderr, "dsde: rank %d mode %s round %ld: %s\n", rep->rank, rep->mode, round, what);
}

int verify_inbox(MPI_Comm comm, const char *mode, int k, long first, const struct inbox *in)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const int n = targets_per_round(k, size);
    long most = 0; /* the largest round of the inbox */
    for (long r = 0; r < in->rounds; r++)
        if (in->start[r + 1] - in->start[r] > most)
            most = in->start[r + 1] - in->start[r];
    struct message *expect = xcalloc((size_t)size, sizeof *expect), *got = xcalloc((size_t)most, sizeof *got);
    int *targets = xcalloc((size_t)n, sizeof *targets);
    unsigned char *taken = xcalloc((size_t)size, 1);
    struct report rep = {.rank = rank, .mode = mode};

    for (long r = 0; r < in->rounds; r++) {
        const long round = first + r;
        long ne = 0, ng = in->start[r + 1] - in->start[r];
        for (int s = 0; s < size; s++) { /* in the order of the sources, as got will be */
            choose_targets(s, size, k, round, targets, taken);
            for (int i = 0; i < n; i++)
                if (targets[i] == rank)
                    expect[ne++] = (struct message){.payload = message_payload(s, round, rank), .source = (uint64_t)s};
        }
        for (long j = 0; j < ng; j++)
            got[j] = in->msg[in->start[r] + j];
        qsort(got, (size_t)ng, sizeof *got, by_source);
        long i = 0, j = 0;
        while (i < ne || j < ng) {
            if (j > 0 && j < ng && got[j].source == got[j - 1].source) {
                problem(&rep, round, "duplicate message from rank %llu (payload %016llx)", (ull)got[j].source,
                        (ull)got[j].payload);
                j++;
            } else if (j == ng || (i < ne && expect[i].source < got[j].source)) {
                problem(&rep, round, "message from rank %llu lost (payload %016llx)", (ull)expect[i].source,
                        (ull)expect[i].payload);
                i++;
            } else if (i == ne || got[j].source < expect[i].source) {
                problem(&rep, round, "unexpected message from rank %llu (payload %016llx): it sent none here",
                        (ull)got[j].source, (ull)got[j].payload);
                j++;
            } else {
                if (got[j].payload != expect[i].payload)
                    problem(&rep, round, "message from rank %llu carries %016llx instead of %016llx",
                            (ull)got[j].source, (ull)got[j].payload, (ull)expect[i].payload);
                i++, j++;
            }
        }
    }
    if (rep.problems > rep.told)
        fprintf(stderr, "dsde: rank %d mode %s: %ld more problems not told\n", rank, mode, rep.problems - rep.told);
    free(expect);
    free(got);
    free(targets);
    free(taken);
    return rep.problems == 0;
}
