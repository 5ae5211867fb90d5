/* shmem-gups: random atomic updates (HPCC RandomAccess, "GUPS") and a
 * distributed hash table, on OpenSHMEM atomics, each verified exactly.
 *
 *   shmem-gups [--mode gups|hash|all] [--threads T] [--no-verify] [--inject-corruption]
 *              [--log-table K] [--updates N] [--batch B] [--op xor|add] [--fetch none|blocking|nbi]
 *              [--inserts N] [--slots S] [--probes P]
 *
 * Plain OpenSHMEM: it builds against Remora's library (build/bin/oshcc) and
 * against any OpenSHMEM 1.4 or later, Open MPI's OSHMEM included (/usr/bin/oshcc);
 * with a 1.4 library the reductions are the active-set ones and --fetch nbi
 * (1.5) is refused.
 *
 * Modes (--mode all, the default, runs gups then hash):
 *   gups  Each PE owns a table of 2^K 64-bit words in the symmetric heap,
 *         word w of PE p starting as p * 2^K + w (its global index, as in
 *         HPCC).  Each PE makes N updates (--updates, default 4 * 2^K as
 *         HPCC's 4 per word): update i of PE p is r = splitmix64's value i
 *         from a seed of p's own; r's low K bits pick the word, its high 32
 *         bits mod the number of PEs the owner, and the owner's word becomes
 *         word ^ r (--op xor, as HPCC) or word + r (--op add) by an atomic:
 *         shmem_ulonglong_atomic_xor/_add (--fetch none, the default: non-
 *         fetching, complete at the next quiet), their fetching forms
 *         (--fetch blocking: one round trip each) or their non-blocking
 *         fetching forms (--fetch nbi, OpenSHMEM 1.5).  A PE quiets after
 *         every B updates (--batch, default 1024; 0: once at the end), which
 *         bounds what it has in flight, as HPCC's look-ahead of 1024 does.
 *         Updates to the PE's own words are atomics too: other PEs update
 *         them at the same time.  Rate: gups = N * PEs / time / 1e9.
 *   hash  Each PE owns S slots (--slots, default N) and an overflow area of
 *         N * PEs cells (every key there is: it never runs out) in one
 *         symmetric array.  Each PE inserts N distinct nonzero keys
 *         (--inserts, default 16384): a key's owner and home slot come from
 *         a hash of it; an insert tries the P slots from the home slot on
 *         (--probes, default 8: linear probing) with
 *         shmem_ulonglong_atomic_compare_swap from empty, and when all are
 *         taken claims an overflow cell with shmem_ulonglong_atomic_fetch_inc
 *         on the owner's count of claimed cells (as foMPI's hash table
 *         motif does, apps/hashtable) and stores the key there with
 *         shmem_ulonglong_atomic_set.  Rate: inserts_per_s = N * PEs / time;
 *         overflowed= is how many keys went to an overflow area.
 * Each run: every PE fills its table, a barrier starts all PEs' updates at
 * once ("update"/"insert": until this PE's last worker has quieted), then
 * shmem_barrier_all ("sync").
 *
 * --threads T: each PE runs T threads (shmem_init_thread with
 * SHMEM_THREAD_MULTIPLE), each doing a contiguous share of its updates or
 * inserts on a SHMEM_CTX_PRIVATE context of its own (the default context, with
 * a message, when one cannot be created; one thread uses the default context).
 * The streams and keys do not depend on T.
 *
 * --verify (the default; --no-verify skips it), after the barrier:
 *   gups  every PE replays every PE's stream and applies, by loads and
 *         stores, the updates that land on its words: atomics lose no update,
 *         and XOR and wrapping addition commute, so every word must equal
 *         the replay exactly (HPCC tolerates 1% wrong words because its
 *         updates are not atomic; here none may be).
 *   hash  every PE replays every PE's keys and scans its slots and overflow
 *         area: each key it owns is present exactly once, no other key is,
 *         every key sits within its probe window, an overflowed key's window
 *         is full, every claimed cell holds a key and no other cell is
 *         written; the keys held, summed over the PEs (a reduction), are all
 *         the keys inserted.
 * What is wrong is named on stderr (PE, mode, word or key; the first 10 per
 * PE); the result line says verify=FAILED, PE 0 ends with "shmem-gups:
 * FAILED (<modes>)" and the exit status is 1.
 * --inject-corruption: PE 0's first update (its value, one bit off) and its
 * first key (one bit off) go wrong on purpose, to show that the checks see it.
 *
 * Output (PE 0): a line "# ..." with the parameters, then one result line per
 * mode in the format of apps/common/motif.h (shmem_gups.h: report):
 *   shmem-gups mode=gups np=4 time=... update=... sync=... gups=... verify=ok
 *   shmem-gups mode=hash np=4 time=... insert=... sync=... inserts_per_s=... overflowed=... verify=ok
 * Files: common.c (workers, reductions, the result line), gups.c, hash.c. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shmem_gups.h"

enum { MAX_THREADS = 64 };

static const char usage_text[] =
    "usage: shmem-gups [--mode gups|hash|all] [--threads T] [--no-verify] [--inject-corruption]\n"
    "                  [--log-table K] [--updates N] [--batch B] [--op xor|add] [--fetch none|blocking|nbi]\n"
    "                  [--inserts N] [--slots S] [--probes P]\n"
    "(the header comment of apps/shmem-gups/main.c describes them)\n";

/* A whole number in [min, max]; 0 (and *error set) if it is not. */
static unsigned long long number(const char *text, unsigned long long min, unsigned long long max,
                                 const char *what, const char **error)
{
    char *end;
    unsigned long long n = strtoull(text, &end, 10);
    if (*text == '\0' || *text == '-' || *end != '\0' || n < min || n > max) {
        *error = what;
        return 0;
    }
    return n;
}

/* index of text in names[0 .. n-1], or -1 */
static int choice(const char *text, const char *const *names, int n)
{
    for (int i = 0; i < n; i++)
        if (strcmp(text, names[i]) == 0)
            return i;
    return -1;
}

/* The options; NULL when they are right, else what is wrong ("" for --help).
 * Parsed before shmem_init (the thread level depends on --threads), printed
 * after it by PE 0 alone. */
static const char *parse(int argc, char **argv, struct options *o)
{
    static const struct option longopts[] = {{"mode", required_argument, NULL, 'm'},
                                             {"threads", required_argument, NULL, 'T'},
                                             {"verify", no_argument, NULL, 'v'},
                                             {"no-verify", no_argument, NULL, 'V'},
                                             {"inject-corruption", no_argument, NULL, 'c'},
                                             {"log-table", required_argument, NULL, 'k'},
                                             {"updates", required_argument, NULL, 'u'},
                                             {"batch", required_argument, NULL, 'b'},
                                             {"op", required_argument, NULL, 'o'},
                                             {"fetch", required_argument, NULL, 'f'},
                                             {"inserts", required_argument, NULL, 'n'},
                                             {"slots", required_argument, NULL, 's'},
                                             {"probes", required_argument, NULL, 'p'},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    static const char *const modes[] = {"gups", "hash", "all"}, *const ops[] = {"xor", "add"},
                             *const fetches[] = {"none", "blocking", "nbi"};
    const unsigned long long most = 1ull << 40; /* updates, inserts, slots: far beyond any memory */
    *o = (struct options){.do_gups = 1, .do_hash = 1, .threads = 1, .verify = 1, .log_table = 20,
                          .batch = 1024, .op = OP_XOR, .fetch = FETCH_NONE, .inserts = 16384, .probes = 8};
    const char *error = NULL;
    int c, m;
    opterr = 0; /* the error is printed once, by PE 0 */
    while (!error && (c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case 'm':
            if ((m = choice(optarg, modes, 3)) < 0)
                return "--mode is gups, hash or all";
            o->do_gups = m != 1;
            o->do_hash = m != 0;
            break;
        case 'T':
            o->threads = (int)number(optarg, 1, MAX_THREADS, "--threads is 1 to 64", &error);
            break;
        case 'v':
            o->verify = 1;
            break;
        case 'V':
            o->verify = 0;
            break;
        case 'c':
            o->inject_corruption = 1;
            break;
        case 'k':
            o->log_table = (int)number(optarg, 1, 31, "--log-table is 1 to 31", &error);
            break;
        case 'u':
            o->updates = number(optarg, 1, most, "--updates is 1 to 2^40", &error);
            break;
        case 'b':
            o->batch = number(optarg, 0, most, "--batch is 0 to 2^40", &error);
            break;
        case 'o':
            if ((m = choice(optarg, ops, 2)) < 0)
                return "--op is xor or add";
            o->op = (enum gups_op)m;
            break;
        case 'f':
            if ((m = choice(optarg, fetches, 3)) < 0)
                return "--fetch is none, blocking or nbi";
            o->fetch = (enum gups_fetch)m;
            break;
        case 'n':
            o->inserts = number(optarg, 1, most, "--inserts is 1 to 2^40", &error);
            break;
        case 's':
            o->slots = number(optarg, 1, most, "--slots is 1 to 2^40", &error);
            break;
        case 'p':
            o->probes = number(optarg, 1, most, "--probes is 1 to 2^40", &error);
            break;
        case 'h':
            return "";
        default:
            return "unknown option, or one without its value";
        }
    }
    if (error)
        return error;
    if (optind < argc)
        return "unexpected argument";
    if (o->fetch == FETCH_NBI && !GUPS_SHMEM_1_5)
        return "--fetch nbi needs OpenSHMEM 1.5 (shmem_atomic_fetch_xor_nbi); this library is older";
    if (o->fetch == FETCH_NBI && o->batch == 0)
        return "--fetch nbi needs a --batch of at least 1 (the fetched values of a batch are kept until its quiet)";
    if (o->updates == 0)
        o->updates = 4ull << o->log_table;
    if (o->slots == 0)
        o->slots = o->inserts;
    return NULL;
}

int main(int argc, char **argv)
{
    struct options o;
    const char *error = parse(argc, argv, &o);
    int provided = SHMEM_THREAD_SINGLE;
    if (!error && o.threads > 1)
        shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided);
    else
        shmem_init();
    int me = shmem_my_pe();
    if (error) {
        if (me == 0) {
            if (*error)
                fprintf(stderr, "shmem-gups: %s\n%s", error, usage_text);
            else
                fputs(usage_text, stdout);
        }
        shmem_finalize();
        return *error ? 2 : 0;
    }
    if (o.threads > 1 && provided < SHMEM_THREAD_MULTIPLE) {
        if (me == 0)
            fprintf(stderr, "shmem-gups: the library does not provide SHMEM_THREAD_MULTIPLE: 1 thread per PE\n");
        o.threads = 1;
    }
    if (me == 0) {
        static const char *const op_name[] = {"xor", "add"}, *const fetch_name[] = {"none", "blocking", "nbi"};
        printf("# shmem-gups: %d PEs, %d thread%s per PE, verify %s%s\n", shmem_n_pes(), o.threads,
               o.threads > 1 ? "s" : "", o.verify ? "on" : "off", o.inject_corruption ? ", corruption injected" : "");
        if (o.do_gups)
            printf("# gups: 2^%d words and %llu updates per PE, op %s, fetch %s, batch %llu\n", o.log_table, o.updates,
                   op_name[o.op], fetch_name[o.fetch], o.batch);
        if (o.do_hash)
            printf("# hash: %llu keys and %llu slots per PE, %llu probes\n", o.inserts, o.slots, o.probes);
        fflush(stdout);
    }
    int gups_failed = o.do_gups && run_gups(&o);
    int hash_failed = o.do_hash && run_hash(&o);
    if (me == 0 && (gups_failed || hash_failed)) {
        printf("shmem-gups: FAILED (%s%s%s)\n", gups_failed ? "gups" : "",
               gups_failed && hash_failed ? ", " : "", hash_failed ? "hash" : "");
        fflush(stdout);
    }
    shmem_finalize();
    return gups_failed || hash_failed;
}
