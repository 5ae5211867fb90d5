/* dsde: dynamic sparse data exchange, foMPI's application motif 4.2
 * (Gerstenberger et al.; the protocols are Hoefler, Siebert and Lumsdaine,
 * "Scalable communication protocols for dynamic sparse data exchange",
 * PPoPP 2010).
 *
 *   dsde [--mode alltoall|reduce_scatter|nbx|rma|all] [--k K] [--rounds R]
 *        [--repeat N] [--verify]
 *
 * In every round each rank picks K distinct random targets among the other
 * ranks (all of them when K >= ranks - 1; none alone) and sends 8 bytes to
 * each; nobody knows in advance who sends to it.  One exchange (a round) is
 * over on a rank when it has received every message destined for it.  The
 * targets come from a generator seeded by (rank, round), the 8 bytes are a
 * hash of (source, round, target) (plan.c), so any rank can replay them.
 *
 * Modes (each on a duplicate of MPI_COMM_WORLD of its own; the two-sided
 * messages carry the round's tag):
 *   alltoall        MPI_Alltoall of the per-target counts (0 or 1); then an
 *                   MPI_Irecv from each source with a nonzero count, an
 *                   MPI_Isend to each target, MPI_Waitall.
 *   reduce_scatter  MPI_Reduce_scatter_block(MPI_SUM) of the 0/1 vector of
 *                   targets gives each rank its number n of incoming
 *                   messages; MPI_Isend to each target, then n
 *                   MPI_Recv(MPI_ANY_SOURCE), MPI_Waitall of the sends.
 *   nbx             MPI_Issend to each target; then loop: MPI_Iprobe
 *                   (MPI_ANY_SOURCE) and MPI_Recv what came; once all own
 *                   Issends completed (MPI_Testall: each was received),
 *                   MPI_Ibarrier; the round ends when the barrier completes
 *                   (everyone's messages have been received).
 *   rma             active target, one MPI_Win_fence per round, window from
 *                   MPI_Win_allocate.  Each sender flips its bit in the
 *                   target's bitmap (MPI_Accumulate, MPI_BXOR) and puts
 *                   {payload, its rank} into its own slot of the target's
 *                   receive array (one slot per possible source: the worst
 *                   case); the fence closes the round; the receiver reads
 *                   the slots whose bits flipped since it last looked.  Even
 *                   and odd rounds use two halves of the window, so that
 *                   these loads never touch what the next round's RMA
 *                   targets; the receiver never stores to the window, as the
 *                   separate memory model requires (rma.c has the rules).
 *                   Why not claim a slot with MPI_Fetch_and_op and put into
 *                   it: in a fence epoch the fetched value is defined only
 *                   after the fence that ends the epoch (there is no flush in
 *                   active target mode), so the put would need a second
 *                   fence per round.  Indexing the slots by source needs no
 *                   claim, and the bitmap (ceil(ranks / 64) words) saves the
 *                   receiver from scanning all the slots.
 *   all             (default) each of them in turn, in this process.
 *
 * Options:
 *   --k K           targets per rank and round (default 6; clipped to
 *                   ranks - 1)
 *   --rounds R      exchanges per timed run (default 100)
 *   --repeat N      timed runs per mode (default 1): the reported time is the
 *                   median run's (each the slowest rank's; the upper median
 *                   when N is even).  Run i
 *                   does rounds i*R .. i*R+R-1, new targets every round.
 *   --verify        after each run every rank replays all ranks' targets of
 *                   each round and checks that it received exactly the
 *                   messages addressed to it, each with its payload: none
 *                   lost, none duplicated, none foreign or from another
 *                   round (verify.c); problems go to stderr with the rank,
 *                   the mode and the round, and the exit status is 1.
 *
 * Output: one line per mode (common/motif.h), e.g.
 *   dsde mode=nbx np=4 time=1.2e-03 exchange=1.2e-03 verify=ok
 * with time = the exchange phase (all rounds, window made beforehand). */
#include <getopt.h>
#include <string.h>

#include "check.h"
#include "dsde.h"
#include "motif.h"

struct mode {
    const char *name;
    void (*exchange)(struct exchanger *x, const struct plan *plan, struct inbox *in);
    int one_sided;
};

static const struct mode modes[] = {
    {"alltoall", exchange_alltoall, 0},
    {"reduce_scatter", exchange_reduce_scatter, 0},
    {"nbx", exchange_nbx, 0},
    {"rma", exchange_rma, 1},
};
enum { NMODES = sizeof modes / sizeof modes[0] };

struct options {
    const struct mode *mode; /* NULL: all */
    int k, verify;
    long rounds, repeat;
};

static void exchanger_open(struct exchanger *x, const struct mode *m, int k)
{
    memset(x, 0, sizeof *x);
    APP_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &x->comm));
    MPI_Comm_rank(x->comm, &x->rank);
    MPI_Comm_size(x->comm, &x->size);
    x->count_out = xcalloc((size_t)x->size, sizeof *x->count_out);
    x->count_in = xcalloc((size_t)x->size, sizeof *x->count_in);
    x->inbound = xcalloc((size_t)x->size, sizeof *x->inbound);
    x->requests = xcalloc((size_t)(x->size + targets_per_round(k, x->size)), sizeof *x->requests);
    x->statuses = xcalloc((size_t)(x->size + targets_per_round(k, x->size)), sizeof *x->statuses);
    if (m->one_sided)
        rma_window_open(x);
}

static void exchanger_close(struct exchanger *x, const struct mode *m)
{
    if (m->one_sided)
        rma_window_close(x);
    free(x->count_out);
    free(x->count_in);
    free(x->inbound);
    free(x->requests);
    free(x->statuses);
    APP_CHECK(MPI_Comm_free(&x->comm));
}

/* the mode's timed runs, checked if asked; its result line; 1 if a check failed */
static int run_mode(const struct mode *m, const struct options *o)
{
    struct exchanger x;
    struct inbox in;
    struct plan plan;
    exchanger_open(&x, m, o->k);
    inbox_init(&in, o->rounds, 2 * o->rounds * targets_per_round(o->k, x.size));
    struct motif_times *runs = xcalloc((size_t)o->repeat, sizeof *runs);
    int ok = 1;
    for (long run = 0; run < o->repeat; run++) {
        plan_build(&plan, x.rank, x.size, o->k, run * o->rounds, o->rounds);
        inbox_clear(&in);
        APP_CHECK(MPI_Barrier(x.comm));
        const double start = MPI_Wtime();
        m->exchange(&x, &plan, &in);
        motif_phase(&runs[run], "exchange", MPI_Wtime() - start);
        if (o->verify)
            ok &= verify_inbox(x.comm, m->name, o->k, plan.first, &in);
        plan_free(&plan);
    }
    /* a run takes as long as its slowest rank; the median run is reported */
    const int median = motif_median_run(x.comm, runs, (int)o->repeat, NULL);
    int failed = motif_report(MPI_COMM_WORLD, "dsde", m->name, &runs[median],
                              !o->verify ? MOTIF_UNCHECKED : ok ? MOTIF_OK : MOTIF_FAILED);
    free(runs);
    inbox_free(&in);
    exchanger_close(&x, m);
    return failed;
}

static const char usage[] = "usage: dsde [--mode alltoall|reduce_scatter|nbx|rma|all] [--k K] [--rounds R] "
                            "[--repeat N] [--verify]\n";

/* a whole number in [min, max], else -1 */
static long whole_number(const char *text, long min, long max)
{
    char *end;
    long v = strtol(text, &end, 10);
    return *text && !*end && v >= min && v <= max ? v : -1;
}

/* NULL when the options are right, else what is wrong */
static const char *parse_options(int argc, char **argv, struct options *o)
{
    static const struct option long_options[] = {
        {"mode", required_argument, NULL, 'm'},  {"k", required_argument, NULL, 'k'},
        {"rounds", required_argument, NULL, 'r'}, {"repeat", required_argument, NULL, 'n'},
        {"verify", no_argument, NULL, 'v'},       {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    *o = (struct options){.mode = NULL, .k = 6, .rounds = 100, .repeat = 1};
    opterr = 0;
    for (int c; (c = getopt_long(argc, argv, "", long_options, NULL)) != -1;) {
        switch (c) {
        case 'm':
            o->mode = NULL;
            if (strcmp(optarg, "all")) {
                int i = 0;
                while (i < NMODES && strcmp(optarg, modes[i].name))
                    i++;
                if (i == NMODES)
                    return "--mode is alltoall, reduce_scatter, nbx, rma or all";
                o->mode = &modes[i];
            }
            break;
        case 'k':
            if ((o->k = (int)whole_number(optarg, 0, 1 << 20)) < 0)
                return "--k is a number of targets, 0 or more";
            break;
        case 'r':
            if ((o->rounds = whole_number(optarg, 1, 1L << 30)) < 0)
                return "--rounds is at least 1";
            break;
        case 'n':
            if ((o->repeat = whole_number(optarg, 1, 1 << 20)) < 0)
                return "--repeat is at least 1";
            break;
        case 'v':
            o->verify = 1;
            break;
        case 'h':
            return "";
        default:
            return "unknown option or missing value";
        }
    }
    return optind < argc ? "unexpected argument" : NULL;
}

int main(int argc, char **argv)
{
    APP_CHECK(MPI_Init(&argc, &argv));
    int rank, failed = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    struct options o;
    const char *wrong = parse_options(argc, argv, &o); /* the same on every rank */
    if (wrong) {
        if (rank == 0) /* --help: wrong is "" */
            fprintf(stderr, "%s%s%s%s", *wrong ? "dsde: " : "", wrong, *wrong ? "\n" : "", usage);
        MPI_Finalize();
        return *wrong ? 2 : 0;
    }
    for (int i = 0; i < NMODES; i++)
        if (!o.mode || o.mode == &modes[i])
            failed |= run_mode(&modes[i], &o);
    MPI_Finalize();
    return failed;
}
