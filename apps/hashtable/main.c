/* hashtable: foMPI's distributed hash table motif (Gerstenberger et al.,
 * "Enabling highly-scalable remote memory access programming with MPI-3 One
 * Sided", section 4.1): random inserts of 8-byte integers into a table spread
 * over all ranks, the access pattern of data analytics and key-value stores.
 *
 *   hashtable [--mode rma|twosided|all] [--inserts N] [--table T] [--repeat R] [--verify]
 *
 * Each rank owns a local volume: a table of T slots, an overflow heap of
 * fixed-size cells {key, next} for the elements whose slot is taken, per slot
 * the head of its chain of cells (the most recently inserted) and the next
 * free cell, all in one array (hashtable.h: the layout).  Each rank inserts N
 * distinct nonzero keys (a bijective mix of rank * N + i + 1); a key's owner
 * is a second hash mod the number of ranks, its slot other bits of it mod T.
 *
 * Modes (--mode all, the default, runs both one after the other):
 *   rma       The volumes are one window (MPI_Win_allocate); one
 *             MPI_Win_lock_all epoch holds all inserts.  An insert is an
 *             MPI_Compare_and_swap of the key into the slot if it holds 0,
 *             then a flush; on a collision, MPI_Fetch_and_op(MPI_SUM, 1) on
 *             the owner's next free cell claims a cell while
 *             MPI_Fetch_and_op(MPI_NO_OP) reads the chain's head (one flush),
 *             MPI_Put writes {key, next = head} into the cell (flush), and an
 *             MPI_Compare_and_swap of the head from the old value to the cell
 *             pushes it at the chain's front (flush); when another insert got
 *             there first, the cell's next is put again to the new head and
 *             the CAS retried.  Keys of my own go the same way: loads and
 *             stores would not be atomic with the others' atomics.  The
 *             window is created with accumulate_ordering=none (every step
 *             that depends on another waits for its flush).  The inserts end
 *             with MPI_Win_unlock_all and MPI_Barrier ("sync").  No rank
 *             loads or stores window memory during the epoch and nothing is
 *             polled; the owners read their volumes after the barrier inside
 *             MPI_Win_lock(shared, self), which makes the remote updates
 *             visible in the separate memory model too, and empty them inside
 *             MPI_Win_lock(exclusive, self).
 *   twosided  Active messages (foMPI's MPI-1 version): a key owned elsewhere
 *             goes to its owner by MPI_Issend (at most 64 in flight), a key
 *             of my own is inserted at once by loads and stores; between its
 *             sends a rank polls with MPI_Iprobe and inserts what arrives
 *             (MPI_Recv); the volume is plain memory.  Once its own keys are
 *             all sent ("insert"), the termination ("sync") is NBX's: once
 *             its synchronous sends have all been matched a rank enters
 *             MPI_Ibarrier and keeps serving until the barrier completes,
 *             when every key of every rank has been received.
 * Files: volume.c (keys, volume, --verify), rma.c, twosided.c (the modes).
 * The overflow heap holds N * ranks cells, the worst case (every key on one
 * owner), so it never runs out (an insert that would overrun it aborts).
 *
 * Options:
 *   --inserts N  keys per rank (default 16384, as foMPI)
 *   --table T    slots per rank (default N: load factor 1, about 37% of the
 *                inserts collide and go to the overflow heap)
 *   --repeat R   runs the timed part R times per mode (default 1) and
 *                reports the run of median time
 *   --verify     checks every run of every mode (below)
 *
 * Output (rank 0), per mode: the result line of common/motif.h, phases insert
 * and sync, then the rate, p * N / time:
 *   hashtable mode=rma np=4 time=... insert=... sync=... verify=ok
 *   hashtable mode=rma np=4 inserts_per_s=...
 *
 * --verify: after every run, every rank replays every rank's keys and checks
 * its own volume by loads (volume.c): each key it owns is present exactly
 * once, no other key is present, each element sits in its own slot or that
 * slot's chain, the element count is the expected one, every handed-out cell
 * is on exactly one chain (a chain only behind a filled slot), the cells never
 * handed out are untouched.  A failure is named on stderr (rank, mode, what)
 * and the exit status is 1.  The volume is emptied before every run. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "hashtable.h"

enum mode { RMA, TWOSIDED, NMODES };
static const char *const mode_name[NMODES] = {"rma", "twosided"};

struct options {
    struct problem pb;
    int first_mode, last_mode, repeat, verify;
};

/* one mode's R runs: empty the volume, insert, check; returns the exit status */
static int run_mode(enum mode mode, const struct options *o, MPI_Comm comm)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    struct volume v = volume_layout(&o->pb);
    MPI_Win win = MPI_WIN_NULL;
    /* MPICH 4.0.2 misplaces RMA to MPI_Win_allocate windows whose size is not
     * a multiple of 16 (apps/common/halo.c): round up */
    MPI_Aint bytes = (MPI_Aint)(volume_words(&v) * sizeof *v.words + 15) / 16 * 16;
    if (mode == RMA) {
        /* every step of an insert that depends on an earlier one waits for its
         * flush, so the atomics need no ordering among themselves */
        MPI_Info info;
        APP_CHECK(MPI_Info_create(&info));
        APP_CHECK(MPI_Info_set(info, "accumulate_ordering", "none"));
        APP_CHECK(MPI_Win_allocate(bytes, sizeof *v.words, info, comm, &v.words, &win));
        APP_CHECK(MPI_Info_free(&info));
    } else if (!(v.words = malloc(volume_words(&v) * sizeof *v.words))) {
        fprintf(stderr, "hashtable: rank %d: out of memory for the volume\n", rank);
        MPI_Abort(comm, 1);
    }
    struct motif_times *runs = calloc((size_t)o->repeat, sizeof *runs);
    enum motif_verdict verdict = o->verify ? MOTIF_OK : MOTIF_UNCHECKED;
    for (int r = 0; r < o->repeat; r++) {
        if (mode == RMA) {
            APP_CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win));
            volume_clear(&v);
            APP_CHECK(MPI_Win_unlock(rank, win));
        } else {
            volume_clear(&v);
        }
        APP_CHECK(MPI_Barrier(comm));
        if (mode == RMA)
            rma_insert(win, &v, &o->pb, comm, &runs[r]);
        else
            twosided_insert(&v, &o->pb, comm, &runs[r]);
        if (!o->verify)
            continue;
        if (mode == RMA)
            APP_CHECK(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win));
        if (volume_verify(&v, &o->pb, rank, mode_name[mode]) == MOTIF_FAILED)
            verdict = MOTIF_FAILED;
        if (mode == RMA)
            APP_CHECK(MPI_Win_unlock(rank, win));
    }
    double seconds;
    int median = motif_median_run(comm, runs, o->repeat, &seconds);
    int status = motif_report(comm, "hashtable", mode_name[mode], &runs[median], verdict);
    if (rank == 0) {
        printf("hashtable mode=%s np=%d inserts_per_s=%.6e\n", mode_name[mode], o->pb.nranks,
               (double)o->pb.inserts * o->pb.nranks / seconds);
        fflush(stdout);
    }
    free(runs);
    if (mode == RMA)
        APP_CHECK(MPI_Win_free(&win));
    else
        free(v.words);
    return status;
}

static void usage(const char *msg)
{
    fprintf(stderr,
            "hashtable: %s\nusage: hashtable [--mode rma|twosided|all] [--inserts N] [--table T] [--repeat R] "
            "[--verify]\n",
            msg);
    exit(2);
}

/* a whole number of at least min, or the usage */
static long long number(const char *text, long long min, const char *what)
{
    char *end;
    long long n = strtoll(text, &end, 10);
    if (*text == '\0' || *end != '\0' || n < min)
        usage(what);
    return n;
}

static struct options parse(int argc, char **argv, int nranks)
{
    static const struct option longopts[] = {{"mode", required_argument, NULL, 'm'},
                                             {"inserts", required_argument, NULL, 'n'},
                                             {"table", required_argument, NULL, 't'},
                                             {"repeat", required_argument, NULL, 'r'},
                                             {"verify", no_argument, NULL, 'v'},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    struct options o = {.pb = {.nranks = nranks, .inserts = 16384, .table = 0},
                        .first_mode = 0, .last_mode = NMODES - 1, .repeat = 1, .verify = 0};
    int c;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case 'm':
            if (strcmp(optarg, "all") != 0) {
                int m = 0;
                while (m < NMODES && strcmp(optarg, mode_name[m]) != 0)
                    m++;
                if (m == NMODES)
                    usage("--mode is rma, twosided or all");
                o.first_mode = o.last_mode = m;
            }
            break;
        case 'n':
            o.pb.inserts = (uint64_t)number(optarg, 1, "--inserts must be at least 1");
            break;
        case 't':
            o.pb.table = (uint64_t)number(optarg, 1, "--table must be at least 1");
            break;
        case 'r':
            o.repeat = (int)number(optarg, 1, "--repeat must be at least 1");
            break;
        case 'v':
            o.verify = 1;
            break;
        case 'h':
            usage("foMPI's distributed hash table motif (the source's header comment describes it)");
            break;
        default:
            usage("unknown option");
        }
    }
    if (optind < argc)
        usage("unexpected argument");
    if (o.pb.table == 0)
        o.pb.table = o.pb.inserts;
    return o;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int nranks, status = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    struct options o = parse(argc, argv, nranks);
    for (int m = o.first_mode; m <= o.last_mode; m++)
        status |= run_mode((enum mode)m, &o, MPI_COMM_WORLD);
    MPI_Finalize();
    return status;
}
