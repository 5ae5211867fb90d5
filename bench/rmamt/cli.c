/* Command line: rmamt SUBCOMMAND [options]; every error names the option. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rmamt.h"

static const char *const benches[] = {"latency", "bandwidth", "msgrate", "halo", "twosided"};
static const char *const syncs[] = {"fence", "pscw", "lock", "lockall", "flush", "flush_local", "flush_all",
                                    "flush_local_all"};
static const char *const ops[] = {"put", "get", "accumulate", "get_accumulate", "fetch_and_op", "cas"};
static const char *const wins[] = {"allocate", "create", "dynamic", "shared"};
static const char *const patterns[] = {"latency", "bandwidth", "msgrate", "halo"};
static const char *const formats[] = {"table", "csv", "json"};

const char *bench_name(enum bench b) { return benches[b]; }
const char *sync_name(enum sync_mode s) { return syncs[s]; }
const char *op_name(enum op o) { return ops[o]; }
const char *win_name(enum win_kind w) { return wins[w]; }
const char *pattern_name(enum pattern_kind p) { return patterns[p]; }

void usage(FILE *f)
{
    fprintf(f,
            "usage: rmamt latency|bandwidth|msgrate|halo|twosided [options]\n"
            "  --sync fence|pscw|lock|lockall|flush|flush_local|flush_all|flush_local_all  (default flush)\n"
            "  --op put|get|accumulate|get_accumulate|fetch_and_op|cas                     (default put)\n"
            "  --window allocate|create|dynamic|shared                                     (default allocate)\n"
            "  --threads LIST      threads per process, e.g. 1,2,4          (default 1)\n"
            "  --sizes RANGE|LIST  bytes per operation: 8:4M (powers of two) or 8,1K,64K  (default 8)\n"
            "  --iterations N      timed epochs per repeat                  (default 1000; bandwidth 100)\n"
            "  --warmup N          untimed epochs first                     (default iterations/10)\n"
            "  --batch N           operations per thread per epoch (bandwidth, msgrate, halo; default 32)\n"
            "  --repeat N          repeats: median, mean, stddev, min, max  (default 5)\n"
            "  --neighbors 6|18|26 halo neighbours in the 3D grid           (default 6)\n"
            "  --thread-per-neighbor  halo: one thread per neighbour (--threads ignored)\n"
            "  --pattern latency|bandwidth|msgrate|halo  twosided: which pattern (default latency)\n"
            "  --thread-comms      twosided: a communicator per thread\n"
            "  --bind              keep each rank's threads on its share of the node's cores, a thread per core\n"
            "  --spread            put the workers of the node's ranks on its cores round robin (main threads free)\n"
            "  --format table|csv|json   --output FILE\n"
            "  --timeout SECONDS   report a hang and exit 3 when no measurement ends for that long\n"
            "  --no-verify         pure timing (by default every transfer is checked)\n"
            "  --inject-corruption corrupt one transfer on purpose (tests the check)\n"
            "  --inject-hang       rank 1 never joins (tests --timeout)\n");
}

static int pick(const char *v, const char *const *names, int n)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(v, names[i]))
            return i;
    return -1;
}

static int fail(char *err, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, len, fmt, ap);
    va_end(ap);
    return -1;
}

/* "64", "4K", "1M": bytes; 0 on error */
static size_t parse_size(const char *s)
{
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s)
        return 0;
    if (*end == 'K' || *end == 'k')
        v <<= 10, end++;
    else if (*end == 'M' || *end == 'm')
        v <<= 20, end++;
    else if (*end == 'G' || *end == 'g')
        v <<= 30, end++;
    return *end ? 0 : (size_t)v;
}

static int parse_sizes(const char *v, struct options *o)
{
    const char *colon = strchr(v, ':');
    o->nsizes = 0;
    if (colon) {
        char lo[32];
        snprintf(lo, sizeof lo, "%.*s", (int)(colon - v), v);
        size_t a = parse_size(lo), b = parse_size(colon + 1);
        if (!a || !b || a > b)
            return -1;
        for (size_t s = a; s <= b && o->nsizes < MAX_LIST; s *= 2)
            o->sizes[o->nsizes++] = s;
        return 0;
    }
    char buf[512];
    snprintf(buf, sizeof buf, "%s", v);
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        size_t s = parse_size(tok);
        if (!s || o->nsizes == MAX_LIST)
            return -1;
        o->sizes[o->nsizes++] = s;
    }
    return o->nsizes ? 0 : -1;
}

static int parse_ints(const char *v, int *out, int *n)
{
    char buf[256], *end;
    snprintf(buf, sizeof buf, "%s", v);
    *n = 0;
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        long x = strtol(tok, &end, 10);
        if (*end || x < 1 || x > 1024 || *n == MAX_LIST)
            return -1;
        out[(*n)++] = (int)x;
    }
    return *n ? 0 : -1;
}

static long parse_long(const char *v, long min)
{
    char *end;
    long x = strtol(v, &end, 10);
    return *end || end == v || x < min ? -1 : x;
}

/* The options that name one of a list of choices. */
struct choice {
    const char *option, *what;
    const char *const *names;
    int n;
    int *field;
};

static const struct choice *choice_of(const char *option, struct options *o)
{
    static struct choice c[5];
    const struct choice all[5] = {
        {"--sync", "mode", syncs, 8, (int *)&o->sync},
        {"--op", "operation", ops, 6, (int *)&o->op},
        {"--window", "window kind", wins, 4, (int *)&o->win},
        {"--pattern", "pattern", patterns, 4, (int *)&o->pattern},
        {"--format", "format", formats, 3, (int *)&o->format},
    };
    for (int i = 0; i < 5; i++)
        if (!strcmp(option, all[i].option)) {
            c[i] = all[i];
            return &c[i];
        }
    return NULL;
}

int parse_options(int argc, char **argv, struct options *o, char *err, size_t len)
{
    *o = (struct options){.sync = S_FLUSH, .op = O_PUT, .win = W_ALLOCATE, .threads = {1}, .nthreads = 1,
                          .sizes = {8}, .nsizes = 1, .iterations = -1, .warmup = -1, .window = 32, .repeat = 5,
                          .neighbors = 6, .verify = 1, .format = F_TABLE};
    if (argc < 2)
        return fail(err, len, "missing subcommand");
    int b = pick(argv[1], benches, 5);
    if (b < 0)
        return fail(err, len, "unknown subcommand '%s'", argv[1]);
    o->bench = (enum bench)b;
    int sizes_given = 0;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        int has = i + 1 < argc;
        const char *v = has ? argv[i + 1] : NULL;
#define NEED_VALUE() do { if (!has) return fail(err, len, "option %s needs a value", a); i++; } while (0)
        const struct choice *c = choice_of(a, o);
        if (c) {
            NEED_VALUE();
            int x = pick(v, c->names, c->n);
            if (x < 0)
                return fail(err, len, "%s: unknown %s '%s'", a, c->what, v);
            *c->field = x;
        } else if (!strcmp(a, "--threads")) {
            NEED_VALUE();
            if (parse_ints(v, o->threads, &o->nthreads))
                return fail(err, len, "--threads: '%s' is not a list of thread counts 1-1024", v);
        } else if (!strcmp(a, "--sizes")) {
            NEED_VALUE();
            if (parse_sizes(v, o))
                return fail(err, len, "--sizes: '%s' is not a range A:B or a list of sizes (e.g. 8:4M, 8,1K)", v);
            sizes_given = 1;
        } else if (!strcmp(a, "--iterations") || !strcmp(a, "--warmup") || !strcmp(a, "--batch") ||
                   !strcmp(a, "--repeat") || !strcmp(a, "--neighbors")) {
            NEED_VALUE();
            long x = parse_long(v, !strcmp(a, "--warmup") ? 0 : 1);
            if (x < 0)
                return fail(err, len, "%s: '%s' is not a valid count", a, v);
            if (!strcmp(a, "--iterations")) o->iterations = x;
            else if (!strcmp(a, "--warmup")) o->warmup = x;
            else if (!strcmp(a, "--batch")) o->window = (int)x;
            else if (!strcmp(a, "--repeat")) o->repeat = (int)x;
            else if (x != 6 && x != 18 && x != 26)
                return fail(err, len, "--neighbors: %ld is not 6, 18 or 26", x);
            else o->neighbors = (int)x;
        } else if (!strcmp(a, "--timeout")) {
            NEED_VALUE();
            char *end;
            o->timeout = strtod(v, &end);
            if (*end || o->timeout <= 0)
                return fail(err, len, "--timeout: '%s' is not a positive number of seconds", v);
        } else if (!strcmp(a, "--output")) {
            NEED_VALUE();
            o->output = v;
        } else if (!strcmp(a, "--no-verify")) {
            o->verify = 0;
        } else if (!strcmp(a, "--inject-corruption")) {
            o->inject_corruption = 1;
        } else if (!strcmp(a, "--inject-hang")) {
            o->inject_hang = 1;
        } else if (!strcmp(a, "--bind") || !strcmp(a, "--spread")) {
            enum placement p = !strcmp(a, "--bind") ? PLACE_BIND : PLACE_SPREAD;
            if (o->place != PLACE_KERNEL && o->place != p)
                return fail(err, len, "--bind and --spread exclude each other");
            o->place = p;
        } else if (!strcmp(a, "--thread-per-neighbor")) {
            o->thread_per_neighbor = 1;
        } else if (!strcmp(a, "--thread-comms")) {
            o->thread_comms = 1;
        } else {
            return fail(err, len, "unknown option '%s'", a);
        }
#undef NEED_VALUE
    }
    if (o->inject_corruption && !o->verify)
        return fail(err, len, "--inject-corruption needs verification (drop --no-verify)");
    int atomic = o->op == O_FOP || o->op == O_CAS;
    for (int i = 0; i < o->nsizes; i++) {
        if (atomic && o->sizes[i] != 8)
            return fail(err, len, "--op %s moves 8 bytes: --sizes must be 8", ops[o->op]);
        if (o->sizes[i] % 8 && o->op != O_PUT && o->op != O_GET)
            return fail(err, len, "--op %s works on 8-byte elements: %zu is not a multiple of 8", ops[o->op],
                        o->sizes[i]);
    }
    if (!sizes_given && o->bench == B_BANDWIDTH && !atomic)
        parse_sizes("8:1M", o);
    if (o->iterations < 0)
        o->iterations = o->bench == B_BANDWIDTH ? 100 : 1000;
    if (o->warmup < 0)
        o->warmup = o->iterations / 10;
    return 0;
}
