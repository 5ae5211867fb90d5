/* conformance: the transport contract (src/transport/transport.h) checked
 * against every way of reaching memory that the job offers.
 *
 *   conformance --node-size K --expect mapped,cma,net [--iters N] [--mapped-iters N]
 *
 * Ways (what remora_mem_unpack gives):
 *   mapped  own memory, and MPI_Alloc_mem pool memory (remora_pool_alloc) of a
 *           peer on this node: load/store and CPU atomics;
 *   cma     malloc'd memory of a peer on this node: process_vm_readv/writev,
 *           no atomics;
 *   net     REMORA_REACH_NET to any peer (itself included), and
 *           REMORA_REACH_FAST to peers on other (simulated) nodes: UCX.
 * Every rank registers a pool buffer and a malloc'd buffer (with the network),
 * the same two without it and two zero-length registrations, the keys go
 * round by MPI_Allgather, and every rank reaches every rank's two buffers
 * with REACH_FAST and with REACH_NET ("accesses").  Each access uses a slot
 * of its own in the target's buffer, so all ranks work at once and the owner
 * checks its memory between phases (barriers):
 *   1. contiguous put + flush (lengths 1, 2, 4, 7, 8, 4096, 1 MiB at unaligned
 *      offsets; the owner checks the pieces and that nothing around them
 *      changed), get + flush of them back; get + flush of data the owner
 *      wrote (guard bytes around every destination must stay);
 *   2. putv/getv of 100 pieces (0..5000 bytes) and of 1500 pieces (0..16
 *      bytes) at scattered offsets, in shuffled order; flushed with
 *      remora_flush_proc (pool) and remora_flush_all (malloc);
 *   3. remora_read of owner data, twice with the owner changing it between,
 *      and of the access's own put after a flush; own mapped memory as the
 *      origin of an overlapping put to itself (memmove semantics);
 *   4. atomics on 1-, 2-, 4- and 8-byte words at every aligned position of
 *      an 8-byte word: ADD (with and without wrap-around), AND, OR, XOR, SWAP,
 *      CSWAP (matching, mismatching in the low and in the top bit), fetching
 *      (the fetched value must be the old one, zero-extended) and not (then a
 *      flush); the other bytes of the 8-byte word hold a pattern that must
 *      survive; operands and compare values carry garbage above the word's
 *      size, which must be ignored.  Then counters: all participating ranks
 *      (mapped: the ranks on the counter owner's node; net: every rank, with
 *      REACH_NET) do fetching ADDs of 1 on one word of the last rank's pool
 *      buffer, from 1 and from 4 threads each: the final value is the sum and
 *      the fetched values are exactly init, init+1, ... (no lost or doubled
 *      update); and non-fetching ADDs from every (rank, thread) on its own
 *      slot of one 8-byte word (neighbouring bytes and halfwords updated at
 *      once, flushed by the main thread after the threads ended); and ADDs
 *      of all four sizes at once on one word, each moving bytes of its own
 *      (the narrow compare-and-swap loop against 4- and 8-byte atomics);
 *   5. errors: on CMA every atomic is REMORA_ERR_UNSUPPORTED and
 *      remora_amo_size_ok is 0; misaligned atomics and atomics of size 0, 3,
 *      5, 6, 7, 16, 32 are REMORA_ERR_UNSUPPORTED on every way (and
 *      remora_amo_size_ok says no), and leave the memory unchanged;
 *   6. keys: truncated, over-long and garbage keys give REMORA_ERR_INVALID (and
 *      an rmem with tp NULL); a zero-filled key is refused; REACH_NET of a key
 *      registered without the network gives REMORA_ERR_UNREACHABLE, and so
 *      does REACH_FAST to another node; REACH_FAST of such a key on the node
 *      works; zero-length registrations unpack (FAST, and NET when registered
 *      with the network) and flush; one key unpacked twice gives two rmems
 *      that are released independently;
 *   7. remora_flush_proc and remora_flush_all return REMORA_OK; every rmem
 *      is released, every registration deregistered, every buffer freed
 *      (LeakSanitizer in the sanitizer build).
 * Phases run in the order 1, 2, 3, 6, 5, 4b, 4: the atomics matrix last,
 * so that an atomic that kills a process hides nothing else.  A rank that is
 * killed (a peer aborted, the launcher's timeout) or aborts prints the
 * operation it was in ("signal ... while: ...").
 * --node-size K: the layout the launcher made (0: one node; K: nodes of K
 * consecutive ranks), checked against the runtime's topology keys.
 * --expect: the ways that must get checks in this mode (at 2+ ranks).
 * Rank 0 prints the number of checks per way; every failure is printed with
 * the way, the target, the memory, the operation and the size.  Exit 0 and
 * "No Errors" when everything held. */
#define _GNU_SOURCE
#include <inttypes.h>
#include <mpi.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include "runtime/context.h"
#include "runtime/pool.h"
#include "transport/transport.h"

/* ---- failures and counts --------------------------------------------------------- */

enum way { WAY_MAPPED, WAY_CMA, WAY_NET, WAY_KEYS, WAY_SETUP, NWAYS };
static const char *const way_names[NWAYS] = {"mapped", "cma", "net", "keys", "setup"};

enum kind { KIND_POOL, KIND_MALLOC, NKINDS };
static const char *const kind_names[NKINDS] = {"pool", "malloc"};
#define NHOW 2 /* REMORA_REACH_FAST, REMORA_REACH_NET */
static const char *const how_names[NHOW] = {"FAST", "NET"};

static int me, np;
static _Atomic long nchecks[NWAYS], nfails[NWAYS];
static _Atomic long nprinted;
#define MAX_PRINTED 300
/* per source line too: one broken operation must not hide the others */
#define MAX_PRINTED_PER_LINE 8
static _Atomic int line_printed[4096];

static void report(int way, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void report(int way, int line, const char *fmt, ...)
{
    atomic_fetch_add(&nfails[way], 1);
    if (line >= 0 && line < 4096) {
        int l = atomic_fetch_add(&line_printed[line], 1);
        if (l == MAX_PRINTED_PER_LINE)
            fprintf(stderr, "[rank %d] (further failures at conformance.c:%d are counted, not printed)\n", me, line);
        if (l >= MAX_PRINTED_PER_LINE)
            return;
    }
    long k = atomic_fetch_add(&nprinted, 1);
    if (k > MAX_PRINTED)
        return;
    if (k == MAX_PRINTED) {
        fprintf(stderr, "[rank %d] (further failures are counted, not printed)\n", me);
        return;
    }
    char msg[1024], out[1200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    /* one write per line: the ranks' lines must not interleave */
    int n = snprintf(out, sizeof out, "[rank %d] FAIL conformance.c:%d way=%s %s\n", me, line, way_names[way], msg);
    if (n > 0 && write(2, out, (size_t)n < sizeof out ? (size_t)n : sizeof out - 1) < 0)
        n = 0;
}

#define CHECK(way, cond, ...)                       \
    do {                                            \
        atomic_fetch_add(&nchecks[(way)], 1);       \
        if (!(cond))                                \
            report((way), __LINE__, __VA_ARGS__);   \
    } while (0)

/* What the main thread is doing, printed if the rank is killed (a peer that
 * aborted, the launcher's timeout) or crashes: the operation in flight. */
static char doing_now[320];
static void doing(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void doing(const char *fmt, ...)
{
    char tmp[sizeof doing_now];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    memcpy(doing_now, tmp, sizeof tmp);
}

static void on_signal(int sig)
{
    char msg[sizeof doing_now + 96];
    int n = snprintf(msg, sizeof msg, "[rank %d] signal %d (%s) while: %s\n", me, sig, strsignal(sig), doing_now);
    if (n > 0 && write(2, msg, (size_t)n < sizeof msg ? (size_t)n : sizeof msg - 1) < 0)
        n = 0;
    signal(sig, SIG_DFL);
    raise(sig);
}

/* A status that must be `want`; 1 if it was. */
#define CHECK_ST(way, st, want, ...) check_st((way), __LINE__, (st), (want), __VA_ARGS__)
static int check_st(int way, int line, remora_status_t st, remora_status_t want, const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static int check_st(int way, int line, remora_status_t st, remora_status_t want, const char *fmt, ...)
{
    atomic_fetch_add(&nchecks[way], 1);
    if (remora_status_is(st, want.code))
        return 1;
    char msg[800];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    report(way, line, "%s: status %d (%s), expected %d (%s)", msg, (int)st.code, remora_status_str(st), (int)want.code,
           remora_status_str(want));
    return 0;
}

/* ---- patterns ---------------------------------------------------------------------- */

static inline uint64_t mix(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    x ^= x >> 31;
    return x;
}

enum { TAG_BG = 1, TAG_OWNER, TAG_DATA, TAG_VEC, TAG_AMO, TAG_KEYS };
enum { PH_CONTIG = 1, PH_VEC, PH_READ_A, PH_READ_B, PH_READ_PUT, PH_AMO, PH_KEYS };

static uint64_t seed_of(int tag, int a, int b, int c, int d)
{
    uint64_t s = mix((uint64_t)tag + 0x9e3779b97f4a7c15ull);
    s = mix(s + (uint64_t)a);
    s = mix(s + (uint64_t)b);
    s = mix(s + (uint64_t)c);
    return mix(s + (uint64_t)d);
}

/* The pattern `seed` from byte i0 on (i: an offset in the owner's buffer). */
static void fill_pat(unsigned char *dst, uint64_t seed, uint64_t i0, size_t len)
{
    size_t k = 0;
    while (k < len) {
        uint64_t i = i0 + k;
        uint64_t w = mix(seed + (i >> 3) * 0x9e3779b97f4a7c15ull);
        for (unsigned b = (unsigned)(i & 7); b < 8 && k < len; b++, k++)
            dst[k] = (unsigned char)(w >> (8 * b));
    }
}

/* First byte where got differs from exp (-1: none), and how many differ. */
static long first_diff(const unsigned char *got, const unsigned char *exp, size_t len, size_t *ndiff)
{
    long first = -1;
    *ndiff = 0;
    if (memcmp(got, exp, len) == 0)
        return -1;
    for (size_t i = 0; i < len; i++)
        if (got[i] != exp[i]) {
            if (first < 0)
                first = (long)i;
            (*ndiff)++;
        }
    return first;
}

static uint64_t rng_next(uint64_t *s)
{
    *s += 0x9e3779b97f4a7c15ull;
    return mix(*s);
}

/* ---- the job: topology, buffers, keys, accesses ------------------------------------- */

struct topo { uint64_t shm_key, node_key; int64_t world_rank; };
static struct topo *topo;

static int same_node(int a, int b)
{
    return topo[a].shm_key == topo[b].shm_key && topo[a].node_key == topo[b].node_key;
}

/* The way origin reaches target's memory of this kind (keys.c's rule). */
static int expected_way(int origin, int target, int kind, int how)
{
    if (how == REMORA_REACH_NET)
        return WAY_NET;
    if (origin == target)
        return WAY_MAPPED;
    if (same_node(origin, target))
        return kind == KIND_POOL ? WAY_MAPPED : WAY_CMA;
    return WAY_NET;
}

/* Each (origin, how) has a slot of SLOT bytes in each buffer of each target;
 * the counters lie after the slots. */
#define SLOT (((size_t)1 << 20) + 65536)
#define COUNTER_BYTES 4096
static size_t buf_size, counter_off;
static unsigned char *buf[NKINDS];
static size_t slot_off(int origin, int how) { return ((size_t)origin * NHOW + (size_t)how) * SLOT; }

enum { KEY_NET_POOL, KEY_NET_MALLOC, KEY_NONET_POOL, KEY_NONET_MALLOC, KEY_ZERO_NET, KEY_ZERO_NONET, NKEYS };
static const char *const key_names[NKEYS] = {"pool+net", "malloc+net", "pool", "malloc", "zero-length+net",
                                             "zero-length"};
struct keymsg {
    uint64_t len;
    unsigned char b[REMORA_KEY_MAX];
};
static struct remora_mem_reg regs[NKEYS];
static struct keymsg *keys; /* [target * NKEYS + key] */

static const struct keymsg *key_of(int target, int k) { return &keys[(size_t)target * NKEYS + (size_t)k]; }

struct access {
    int target, kind, how;
    int way; /* expected, and (when ok) what the transport is */
    int ok;  /* unpacked as expected */
    struct remora_rmem m;
    char label[160];
};
static struct access *acc; /* [(target * NKINDS + kind) * NHOW + how] */
static int nacc;
static long acc_per_way[NWAYS];

static struct access *access_of(int target, int kind, int how)
{
    return &acc[((size_t)target * NKINDS + (size_t)kind) * NHOW + (size_t)how];
}

static int way_of_tp(const struct remora_transport *tp)
{
    if (tp->mapped)
        return WAY_MAPPED;
    return tp->amo_sizes ? WAY_NET : WAY_CMA;
}

/* A barrier that yields (ranks outnumber the cores, and the targets'
 * progress threads need them) and moves the transports meanwhile. */
static void barrier(void)
{
    MPI_Request r;
    char before[sizeof doing_now];
    memcpy(before, doing_now, sizeof before);
    doing("in a barrier, after: %s", before);
    MPI_Ibarrier(MPI_COMM_WORLD, &r);
    for (;;) {
        int done = 0;
        MPI_Test(&r, &done, MPI_STATUS_IGNORE);
        if (done) {
            memcpy(doing_now, before, sizeof before);
            return;
        }
        remora_progress();
        struct timespec ts = {0, 20000};
        nanosleep(&ts, NULL);
    }
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "[rank %d] out of memory (%zu bytes)\n", me, n);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return p;
}

/* ---- set-up ------------------------------------------------------------------------- */

static void check_topology(int node_size)
{
    struct topo mine = {remora_ctx.shm_key, remora_ctx.node_key, remora_ctx.world_rank};
    topo = xmalloc(sizeof *topo * (size_t)np);
    MPI_Allgather(&mine, sizeof mine, MPI_BYTE, topo, sizeof mine, MPI_BYTE, MPI_COMM_WORLD);
    CHECK(WAY_SETUP, remora_ctx.world_rank == me && remora_ctx.world_size == np,
          "runtime context: world rank %d of %d, MPI says %d of %d", remora_ctx.world_rank, remora_ctx.world_size,
          me, np);
    for (int r = 0; r < np; r++) {
        int want = node_size == 0 || r / node_size == me / node_size;
        CHECK(WAY_SETUP, same_node(me, r) == want,
              "topology: rank %d is %s my node, but --node-size %d says it is %s", r,
              same_node(me, r) ? "on" : "not on", node_size, want ? "on" : "not on");
    }
}

static void register_all(void)
{
    buf_size = (size_t)np * NHOW * SLOT + COUNTER_BYTES;
    counter_off = (size_t)np * NHOW * SLOT;
    buf[KIND_POOL] = remora_pool_alloc(buf_size);
    CHECK(WAY_SETUP, buf[KIND_POOL] != NULL, "remora_pool_alloc(%zu) gave NULL", buf_size);
    if (!buf[KIND_POOL]) {
        fprintf(stderr, "[rank %d] cannot go on without pool memory\n", me);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    buf[KIND_MALLOC] = aligned_alloc(64, buf_size);
    if (!buf[KIND_MALLOC]) {
        fprintf(stderr, "[rank %d] out of memory (%zu bytes)\n", me, buf_size);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (int k = 0; k < NKINDS; k++)
        memset(buf[k], 0, buf_size);

    void *addr[NKEYS] = {buf[KIND_POOL], buf[KIND_MALLOC], buf[KIND_POOL], buf[KIND_MALLOC], buf[KIND_MALLOC], NULL};
    size_t len[NKEYS] = {buf_size, buf_size, buf_size, buf_size, 0, 0};
    int net[NKEYS] = {1, 1, 0, 0, 1, 0};
    struct keymsg *mine = xmalloc(sizeof *mine * NKEYS);
    memset(mine, 0, sizeof *mine * NKEYS);
    for (int k = 0; k < NKEYS; k++) {
        remora_status_t st = remora_mem_register(addr[k], len[k], net[k], &regs[k]);
        CHECK_ST(WAY_SETUP, st, REMORA_OK, "remora_mem_register(%s, %zu bytes, net=%d)", key_names[k], len[k],
                 net[k]);
        CHECK(WAY_SETUP, regs[k].packed_len > 0 && regs[k].packed_len <= REMORA_KEY_MAX,
              "remora_mem_register(%s): packed_len %zu", key_names[k], regs[k].packed_len);
        CHECK(WAY_SETUP, (regs[k].net != NULL) == (net[k] && len[k] > 0),
              "remora_mem_register(%s, net=%d, len %zu): net registration %p", key_names[k], net[k], len[k],
              regs[k].net);
        mine[k].len = regs[k].packed_len;
        memcpy(mine[k].b, regs[k].packed, regs[k].packed_len <= REMORA_KEY_MAX ? regs[k].packed_len : 0);
    }
    keys = xmalloc(sizeof *keys * NKEYS * (size_t)np);
    MPI_Allgather(mine, (int)(sizeof *mine * NKEYS), MPI_BYTE, keys, (int)(sizeof *mine * NKEYS), MPI_BYTE,
                  MPI_COMM_WORLD);
    free(mine);
}

static void unpack_all(void)
{
    nacc = np * NKINDS * NHOW;
    acc = xmalloc(sizeof *acc * (size_t)nacc);
    memset(acc, 0, sizeof *acc * (size_t)nacc);
    for (int t = 0; t < np; t++)
        for (int kind = 0; kind < NKINDS; kind++)
            for (int how = 0; how < NHOW; how++) {
                struct access *a = access_of(t, kind, how);
                a->target = t;
                a->kind = kind;
                a->how = how;
                a->way = expected_way(me, t, kind, how);
                const struct keymsg *k = key_of(t, kind == KIND_POOL ? KEY_NET_POOL : KEY_NET_MALLOC);
                remora_status_t st = remora_mem_unpack(t, k->b, k->len, how, &a->m);
                snprintf(a->label, sizeof a->label, "target=%d mem=%s reach=%s tp=%s", t, kind_names[kind],
                         how_names[how], remora_ok(st) && a->m.tp ? a->m.tp->name : "-");
                if (!CHECK_ST(a->way, st, REMORA_OK, "%s: remora_mem_unpack", a->label))
                    continue;
                CHECK(a->way, a->m.tp != NULL && a->m.proc == t, "%s: unpacked rmem: tp %p, proc %d", a->label,
                      (const void *)a->m.tp, a->m.proc);
                if (!a->m.tp)
                    continue;
                const struct remora_transport *tp = a->m.tp;
                int got = way_of_tp(tp);
                CHECK(a->way, got == a->way, "%s: reached as %s (mapped=%d amo_sizes=%#x), expected %s", a->label,
                      way_names[got], tp->mapped, tp->amo_sizes, way_names[a->way]);
                CHECK(a->way, tp->putv && tp->getv && tp->amo && tp->read && tp->flush && tp->release,
                      "%s: incomplete operation table", a->label);
                /* what each way offers */
                unsigned want_amo = got == WAY_CMA ? 0u : 1u | 2u | 4u | 8u;
                CHECK(a->way, tp->amo_sizes == want_amo, "%s: amo_sizes %#x, expected %#x", a->label, tp->amo_sizes,
                      want_amo);
                if (got == WAY_MAPPED && t == me)
                    CHECK(a->way, remora_mapped(&a->m, 64) == (char *)buf[kind] + 64,
                          "%s: own memory mapped at %p, expected %p", a->label, (void *)remora_mapped(&a->m, 64),
                          (void *)(buf[kind] + 64));
                else if (got == WAY_MAPPED)
                    CHECK(a->way, remora_mapped(&a->m, 64) != NULL, "%s: remora_mapped gave NULL", a->label);
                else
                    CHECK(a->way, remora_mapped(&a->m, 64) == NULL, "%s: remora_mapped gave %p on unmapped memory",
                          a->label, (void *)remora_mapped(&a->m, 64));
                a->ok = got == a->way;
                if (a->ok)
                    acc_per_way[a->way]++;
            }
}

/* ---- owner side ------------------------------------------------------------------------ */

static void owner_fill(uint64_t (*seed)(int kind, int phase), int phase)
{
    for (int kind = 0; kind < NKINDS; kind++)
        fill_pat(buf[kind], seed(kind, phase), 0, buf_size);
}
static uint64_t seed_bg(int kind, int phase) { return seed_of(TAG_BG, me, kind, phase, 0); }
static uint64_t seed_owner_t(int target, int kind, int phase) { return seed_of(TAG_OWNER, target, kind, phase, 0); }
static uint64_t seed_owner(int kind, int phase) { return seed_owner_t(me, kind, phase); }

struct piece {
    uint64_t off; /* in the slot */
    size_t len;
};

/* The owner's check of one slot: background everywhere but the pieces, which
 * hold the data pattern.  scratch: SLOT bytes. */
static void owner_check_slot(int kind, int origin, int how, int phase, const struct piece *p, int n,
                             uint64_t data_seed, unsigned char *scratch, const char *what)
{
    size_t base = slot_off(origin, how);
    int way = expected_way(origin, me, kind, how);
    fill_pat(scratch, seed_bg(kind, phase), base, SLOT);
    for (int i = 0; i < n; i++)
        fill_pat(scratch + p[i].off, data_seed, base + p[i].off, p[i].len);
    size_t ndiff;
    long d = first_diff(buf[kind] + base, scratch, SLOT, &ndiff);
    const char *where = "outside every piece (overwritten)";
    char piece_desc[96] = "";
    for (int i = 0; d >= 0 && i < n; i++)
        if ((uint64_t)d >= p[i].off && (uint64_t)d < p[i].off + p[i].len) {
            snprintf(piece_desc, sizeof piece_desc, "in piece %d (offset %" PRIu64 ", %zu bytes)", i, p[i].off,
                     p[i].len);
            where = piece_desc;
        }
    CHECK(way, d < 0,
          "origin=%d target=%d(me) mem=%s reach=%s op=%s: owner sees %zu wrong bytes in the slot, first at slot byte "
          "%ld %s: %#04x, expected %#04x",
          origin, me, kind_names[kind], how_names[how], what, ndiff, d, where, d >= 0 ? buf[kind][base + (size_t)d] : 0,
          d >= 0 ? scratch[d] : 0);
}

/* ---- 1. contiguous put/get ------------------------------------------------------------- */

static const struct piece contig[] = {{1, 1},   {3, 7},           {16, 8},           {29, 8},
                                      {42, 2},  {49, 4},          {4096 + 5, 4096}, {12288 + 3, (size_t)1 << 20}};
#define NCONTIG ((int)(sizeof contig / sizeof contig[0]))

static uint64_t seed_data(int phase, int origin, int kind, int how) { return seed_of(TAG_DATA, phase, origin, kind, how); }

#define GUARD 64
static void check_guarded(struct access *a, const unsigned char *dst, size_t len, uint64_t seed, uint64_t off,
                          const char *what)
{
    unsigned char *exp = xmalloc(len + 2 * GUARD);
    memset(exp, 0xEE, len + 2 * GUARD);
    fill_pat(exp + GUARD, seed, off, len);
    size_t ndiff;
    long d = first_diff(dst, exp, len + 2 * GUARD, &ndiff);
    CHECK(a->way, d < 0,
          "%s op=%s size=%zu at buffer byte %" PRIu64 ": %zu wrong bytes, first at %ld (%s): %#04x, expected %#04x",
          a->label, what, len, off, ndiff, d - GUARD, d < 0 ? "" : d < GUARD || (size_t)d >= GUARD + len ? "guard overwritten" : "data",
          d >= 0 ? dst[d] : 0, d >= 0 ? exp[d] : 0);
    free(exp);
}

static void origin_contig_put(struct access *a)
{
    size_t base = slot_off(me, a->how);
    uint64_t seed = seed_data(PH_CONTIG, me, a->kind, a->how);
    for (int i = 0; i < NCONTIG; i++) {
        unsigned char *src = xmalloc(contig[i].len);
        fill_pat(src, seed, base + contig[i].off, contig[i].len);
        doing("%s op=put+flush size=%zu", a->label, contig[i].len);
        remora_status_t st = remora_put(&a->m, base + contig[i].off, src, contig[i].len);
        CHECK_ST(a->way, st, REMORA_OK, "%s op=put size=%zu slot byte %" PRIu64, a->label, contig[i].len,
                 contig[i].off);
        st = remora_flush(&a->m);
        CHECK_ST(a->way, st, REMORA_OK, "%s op=flush after put size=%zu", a->label, contig[i].len);
        /* get + flush gives the bytes back */
        unsigned char *dst = xmalloc(contig[i].len + 2 * GUARD);
        memset(dst, 0xEE, contig[i].len + 2 * GUARD);
        doing("%s op=get+flush of own put size=%zu", a->label, contig[i].len);
        st = remora_get(&a->m, base + contig[i].off, dst + GUARD, contig[i].len);
        CHECK_ST(a->way, st, REMORA_OK, "%s op=get of own put size=%zu", a->label, contig[i].len);
        st = remora_flush(&a->m);
        CHECK_ST(a->way, st, REMORA_OK, "%s op=flush after get size=%zu", a->label, contig[i].len);
        check_guarded(a, dst, contig[i].len, seed, base + contig[i].off, "get+flush of own put");
        free(dst);
        free(src);
    }
}

static void origin_contig_get(struct access *a, int phase)
{
    size_t base = slot_off(me, a->how);
    uint64_t seed = seed_owner_t(a->target, a->kind, phase);
    for (int i = 0; i < NCONTIG; i++) {
        size_t len = contig[i].len;
        unsigned char *dst = xmalloc(len + 2 * GUARD);
        memset(dst, 0xEE, len + 2 * GUARD);
        doing("%s op=get+flush size=%zu", a->label, len);
        remora_status_t st = remora_get(&a->m, base + contig[i].off, dst + GUARD, len);
        CHECK_ST(a->way, st, REMORA_OK, "%s op=get size=%zu slot byte %" PRIu64, a->label, len, contig[i].off);
        st = remora_flush(&a->m);
        CHECK_ST(a->way, st, REMORA_OK, "%s op=flush after get size=%zu", a->label, len);
        check_guarded(a, dst, len, seed, base + contig[i].off, "get+flush");
        free(dst);
    }
}

/* ---- 2. vectored ------------------------------------------------------------------------- */

#define NVEC_BIG 100
#define NVEC_SMALL 1500
#define NVEC (NVEC_BIG + NVEC_SMALL)

/* The pieces of an access: 100 of 0..5000 bytes from slot byte 0, 1500 of
 * 0..16 bytes from slot byte 600 KiB, gaps of 1..61 bytes, shuffled. */
static void gen_pieces(int origin, int kind, int how, struct piece *p)
{
    static const size_t lens[] = {0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 63, 64, 100, 255, 256, 511, 1000,
                                  1024, 2047, 4096, 5000};
    uint64_t rng = seed_of(TAG_VEC, origin, kind, how, 0);
    uint64_t off = 0;
    for (int i = 0; i < NVEC_BIG; i++) {
        off += 1 + rng_next(&rng) % 61;
        p[i].off = off;
        p[i].len = lens[rng_next(&rng) % (sizeof lens / sizeof lens[0])];
        off += p[i].len;
    }
    off = 600 * 1024;
    for (int i = NVEC_BIG; i < NVEC; i++) {
        off += 1 + rng_next(&rng) % 61;
        p[i].off = off;
        p[i].len = rng_next(&rng) % 17;
        off += p[i].len;
    }
    for (int lo = 0, hi = NVEC_BIG; lo < NVEC; lo = hi, hi = NVEC) /* shuffle each set */
        for (int i = hi - 1; i > lo; i--) {
            int j = lo + (int)(rng_next(&rng) % (uint64_t)(i - lo + 1));
            struct piece t = p[i];
            p[i] = p[j];
            p[j] = t;
        }
}

/* The local side of pieces [lo, hi): back to back in a buffer, one guard byte
 * after each (0xEE). */
static unsigned char *local_arena(const struct piece *p, int lo, int hi, struct remora_iov *v, size_t base)
{
    size_t total = 0;
    for (int i = lo; i < hi; i++)
        total += p[i].len + 1;
    unsigned char *arena = xmalloc(total + 1);
    memset(arena, 0xEE, total + 1);
    size_t at = 0;
    for (int i = lo; i < hi; i++) {
        v[i - lo] = (struct remora_iov){arena + at, base + p[i].off, p[i].len};
        at += p[i].len + 1;
    }
    return arena;
}

static remora_status_t flush_for_vec(struct access *a)
{
    return a->kind == KIND_POOL ? remora_flush_proc(a->target) : remora_flush_all();
}

static void origin_vec_put(struct access *a)
{
    struct piece p[NVEC];
    static struct remora_iov v[NVEC];
    gen_pieces(me, a->kind, a->how, p);
    size_t base = slot_off(me, a->how);
    uint64_t seed = seed_data(PH_VEC, me, a->kind, a->how);
    const int sets[3] = {0, NVEC_BIG, NVEC};
    for (int s = 0; s < 2; s++) {
        int lo = sets[s], hi = sets[s + 1];
        unsigned char *arena = local_arena(p, lo, hi, v, base);
        for (int i = 0; i < hi - lo; i++)
            fill_pat(v[i].local, seed, v[i].off, v[i].len);
        doing("%s op=putv+flush pieces=%d", a->label, hi - lo);
        remora_status_t st = remora_putv(&a->m, v, (size_t)(hi - lo));
        CHECK_ST(a->way, st, REMORA_OK, "%s op=putv pieces=%d", a->label, hi - lo);
        st = flush_for_vec(a);
        CHECK_ST(a->way, st, REMORA_OK, "%s op=%s after putv pieces=%d", a->label,
                 a->kind == KIND_POOL ? "remora_flush_proc" : "remora_flush_all", hi - lo);
        free(arena);
    }
}

static void origin_vec_get(struct access *a, int phase)
{
    struct piece p[NVEC];
    static struct remora_iov v[NVEC];
    gen_pieces(me, a->kind, a->how, p);
    size_t base = slot_off(me, a->how);
    uint64_t seed = seed_owner_t(a->target, a->kind, phase);
    const int sets[3] = {0, NVEC_BIG, NVEC};
    for (int s = 0; s < 2; s++) {
        int lo = sets[s], hi = sets[s + 1];
        unsigned char *arena = local_arena(p, lo, hi, v, base);
        doing("%s op=getv+flush pieces=%d", a->label, hi - lo);
        remora_status_t st = remora_getv(&a->m, v, (size_t)(hi - lo));
        CHECK_ST(a->way, st, REMORA_OK, "%s op=getv pieces=%d", a->label, hi - lo);
        st = flush_for_vec(a);
        CHECK_ST(a->way, st, REMORA_OK, "%s op=%s after getv pieces=%d", a->label,
                 a->kind == KIND_POOL ? "remora_flush_proc" : "remora_flush_all", hi - lo);
        long bad = -1, nbad = 0;
        unsigned char exp[5000];
        for (int i = 0; i < hi - lo; i++) {
            fill_pat(exp, seed, v[i].off, v[i].len);
            const unsigned char *got = v[i].local;
            if (memcmp(got, exp, v[i].len) != 0 || got[v[i].len] != 0xEE) {
                if (bad < 0)
                    bad = i;
                nbad++;
            }
        }
        CHECK(a->way, bad < 0,
              "%s op=getv pieces=%d: %ld pieces wrong (data or the guard byte after), first: piece %ld at slot "
              "byte %" PRIu64 ", %zu bytes",
              a->label, hi - lo, nbad, bad, bad >= 0 ? v[bad].off - base : 0, bad >= 0 ? v[bad].len : 0);
        free(arena);
    }
}

static void owner_check_vec(int phase, unsigned char *scratch)
{
    struct piece p[NVEC];
    for (int kind = 0; kind < NKINDS; kind++)
        for (int o = 0; o < np; o++)
            for (int how = 0; how < NHOW; how++) {
                gen_pieces(o, kind, how, p);
                owner_check_slot(kind, o, how, phase, p, NVEC, seed_data(PH_VEC, o, kind, how), scratch, "putv");
            }
}

/* ---- 3. blocking reads ----------------------------------------------------------------- */

static void origin_read(struct access *a, int phase)
{
    size_t base = slot_off(me, a->how);
    uint64_t seed = seed_owner_t(a->target, a->kind, phase);
    for (int i = 0; i < NCONTIG; i++) {
        size_t len = contig[i].len;
        unsigned char *dst = xmalloc(len + 2 * GUARD);
        memset(dst, 0xEE, len + 2 * GUARD);
        doing("%s op=read size=%zu", a->label, len);
        remora_status_t st = remora_read(&a->m, base + contig[i].off, dst + GUARD, len);
        CHECK_ST(a->way, st, REMORA_OK, "%s op=read size=%zu", a->label, len);
        check_guarded(a, dst, len, seed, base + contig[i].off, phase == PH_READ_A ? "read" : "read after owner change");
        free(dst);
    }
}

/* A put, a flush, then a read of it. */
static void origin_read_own_put(struct access *a)
{
    size_t base = slot_off(me, a->how);
    uint64_t seed = seed_data(PH_READ_PUT, me, a->kind, a->how);
    for (int i = 0; i < NCONTIG; i++) {
        size_t len = contig[i].len, off = base + contig[i].off;
        unsigned char *src = xmalloc(len), *dst = xmalloc(len + 2 * GUARD);
        fill_pat(src, seed, off, len);
        memset(dst, 0xEE, len + 2 * GUARD);
        doing("%s op=put+flush+read size=%zu", a->label, len);
        remora_status_t st = remora_put(&a->m, off, src, len);
        CHECK_ST(a->way, st, REMORA_OK, "%s op=put size=%zu", a->label, len);
        st = remora_flush(&a->m);
        CHECK_ST(a->way, st, REMORA_OK, "%s op=flush size=%zu", a->label, len);
        st = remora_read(&a->m, off, dst + GUARD, len);
        CHECK_ST(a->way, st, REMORA_OK, "%s op=read size=%zu", a->label, len);
        check_guarded(a, dst, len, seed, off, "read of own put");
        free(src);
        free(dst);
    }
}

/* Own mapped memory as the origin of a put to itself, overlapping (the
 * engine's window may be both): the result is memmove's. */
static void origin_self_overlap(struct access *a)
{
    static const struct { size_t len; int shift; } cases[] = {{8, 3},    {8, -3},    {4, 1},     {4, -1}, {1, 1},
                                                              {7, 2},    {1000, 17}, {1000, -17}, {4096, 1}, {4096, -4000}};
    uint64_t area = slot_off(me, a->how) + 1064960, area_len = 16384; /* beyond the pieces of the other tests */
    unsigned char *mem = buf[a->kind], *exp = xmalloc(area_len);
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        uint64_t src = area + 6000, dst = src + (uint64_t)(int64_t)cases[c].shift;
        fill_pat(mem + area, seed_of(TAG_DATA, 99, (int)c, a->kind, 0), area, area_len);
        memcpy(exp, mem + area, area_len);
        memmove(exp + (dst - area), exp + (src - area), cases[c].len);
        doing("%s op=put to itself, overlapping, size=%zu shift=%d", a->label, cases[c].len, cases[c].shift);
        remora_status_t st = remora_put(&a->m, dst, mem + src, cases[c].len);
        st = remora_ok(st) ? remora_flush(&a->m) : st;
        if (!CHECK_ST(a->way, st, REMORA_OK, "%s op=put to itself size=%zu", a->label, cases[c].len))
            continue;
        size_t ndiff;
        long d = first_diff(mem + area, exp, area_len, &ndiff);
        CHECK(a->way, d < 0,
              "%s op=put from own memory to itself, overlapping, size=%zu shift=%d: %zu wrong bytes, first at "
              "%ld from the destination",
              a->label, cases[c].len, cases[c].shift, ndiff, d - (long)(dst - area));
    }
    free(exp);
}

/* ---- 4. atomics ---------------------------------------------------------------------------- */

static const char *op_name(enum remora_amo_op op)
{
    switch (op) {
    case REMORA_AMO_ADD: return "ADD";
    case REMORA_AMO_AND: return "AND";
    case REMORA_AMO_OR: return "OR";
    case REMORA_AMO_XOR: return "XOR";
    case REMORA_AMO_SWAP: return "SWAP";
    case REMORA_AMO_CSWAP: return "CSWAP";
    }
    return "?";
}

static uint64_t mask_of(size_t size) { return size == 8 ? ~0ull : (1ull << (8 * size)) - 1; }

/* x with garbage above the size-byte word */
static uint64_t garbled(uint64_t x, size_t size, uint64_t garbage)
{
    return size == 8 ? x : (x & mask_of(size)) | (garbage << (8 * size));
}

static uint64_t apply(enum remora_amo_op op, uint64_t old, uint64_t x, uint64_t cmp, size_t size)
{
    uint64_t m = mask_of(size);
    switch (op) {
    case REMORA_AMO_ADD: return (old + x) & m;
    case REMORA_AMO_AND: return old & x & m;
    case REMORA_AMO_OR: return (old | x) & m;
    case REMORA_AMO_XOR: return (old ^ x) & m;
    case REMORA_AMO_SWAP: return x & m;
    case REMORA_AMO_CSWAP: return (old & m) == (cmp & m) ? x & m : old & m;
    }
    return old;
}

static uint64_t get_field(const unsigned char *w, unsigned pos, size_t size)
{
    uint64_t v = 0;
    memcpy(&v, w + pos, size); /* little endian host: the low bytes */
    return v;
}

static void set_field(unsigned char *w, unsigned pos, size_t size, uint64_t v) { memcpy(w + pos, &v, size); }

enum amo_case { C_ADD_WRAP, C_ADD, C_AND, C_OR, C_XOR, C_SWAP, C_CSWAP_MATCH, C_CSWAP_MISS_LOW, C_CSWAP_MISS_TOP, NCASES };
static const char *const case_names[NCASES] = {"ADD(wrap)", "ADD",   "AND",           "OR",
                                               "XOR",       "SWAP",  "CSWAP(match)",  "CSWAP(mismatch low bit)",
                                               "CSWAP(mismatch top bit)"};

/* One atomic on a fresh 8-byte word at slot offset word_off: set the word
 * (put + flush), the atomic (flush if not fetching), read the word back. */
static void amo_one(struct access *a, uint64_t word_off, size_t size, unsigned pos, int c, int fetching, uint64_t *rng)
{
    uint64_t m = mask_of(size);
    unsigned char init[8], got[8];
    for (int i = 0; i < 8; i++)
        init[i] = (unsigned char)(0x11 * (unsigned)(i + 1) ^ (rng_next(rng) & 0x80));
    uint64_t v0 = rng_next(rng) & m, x = rng_next(rng) & m, cmp = 0;
    enum remora_amo_op op = REMORA_AMO_ADD;
    switch (c) {
    case C_ADD_WRAP: v0 = m - 1; x = 3; break; /* carries out of the word */
    case C_ADD: break;
    case C_AND: op = REMORA_AMO_AND; break;
    case C_OR: op = REMORA_AMO_OR; break;
    case C_XOR: op = REMORA_AMO_XOR; break;
    case C_SWAP: op = REMORA_AMO_SWAP; break;
    case C_CSWAP_MATCH: op = REMORA_AMO_CSWAP; cmp = v0; break;
    case C_CSWAP_MISS_LOW: op = REMORA_AMO_CSWAP; cmp = v0 ^ 1; break;
    case C_CSWAP_MISS_TOP: op = REMORA_AMO_CSWAP; cmp = v0 ^ (1ull << (8 * size - 1)); break;
    }
    if (op != REMORA_AMO_CSWAP && x == 0)
        x = 0x5a & m;
    set_field(init, pos, size, v0);
    uint64_t expect_field = apply(op, v0, x, cmp, size);
    unsigned char want[8];
    memcpy(want, init, 8);
    set_field(want, pos, size, expect_field);

    char what[200];
    snprintf(what, sizeof what, "%s op=%s%s size=%zu pos=%u (slot byte %" PRIu64 ")", a->label, case_names[c],
             fetching ? "(fetch)" : "", size, pos, word_off - slot_off(me, a->how) + pos);
    doing("%s", what);
    remora_status_t st = remora_put(&a->m, word_off, init, 8);
    st = remora_ok(st) ? remora_flush(&a->m) : st;
    if (!CHECK_ST(a->way, st, REMORA_OK, "%s: setting the word (put+flush)", what))
        return;
    uint64_t fetched = 0xdeadbeefdeadbeefull;
    st = remora_amo(&a->m, word_off + pos, size, op, garbled(x, size, 0xc3a5c3a5c3a5c3a5ull),
                    garbled(cmp, size, 0x5a3c5a3c5a3c5a3cull), fetching ? &fetched : NULL);
    if (!CHECK_ST(a->way, st, REMORA_OK, "%s: remora_amo", what))
        return;
    if (!fetching) {
        st = remora_flush(&a->m);
        CHECK_ST(a->way, st, REMORA_OK, "%s: flush after the atomic", what);
    } else {
        CHECK(a->way, fetched == v0, "%s: fetched %#" PRIx64 ", expected the old value %#" PRIx64, what, fetched, v0);
    }
    memset(got, 0xEE, sizeof got);
    st = remora_read(&a->m, word_off, got, 8);
    if (!CHECK_ST(a->way, st, REMORA_OK, "%s: reading the word back", what))
        return;
    uint64_t gw = 0, ww = 0, iw = 0;
    memcpy(&gw, got, 8);
    memcpy(&ww, want, 8);
    memcpy(&iw, init, 8);
    uint64_t field_mask = m << (8 * pos);
    CHECK(a->way, (gw & field_mask) == (ww & field_mask),
          "%s: word %#018" PRIx64 " -> %#018" PRIx64 ": the field is %#" PRIx64 ", expected %#" PRIx64
          " (operand %#" PRIx64 ", compare %#" PRIx64 ")",
          what, iw, gw, get_field(got, pos, size), expect_field, x, cmp);
    CHECK(a->way, (gw & ~field_mask) == (ww & ~field_mask),
          "%s: word %#018" PRIx64 " -> %#018" PRIx64 ": neighbouring bytes changed (expected %#018" PRIx64 ")", what,
          iw, gw, ww);
}

static void origin_amo_matrix(struct access *a)
{
    uint64_t rng = seed_of(TAG_AMO, me, a->target, a->kind, a->how);
    uint64_t word_off = slot_off(me, a->how) + 64;
    static const size_t sizes[] = {1, 2, 4, 8};
    for (int si = 0; si < 4; si++) {
        size_t size = sizes[si];
        if (!remora_amo_size_ok(&a->m, size)) {
            CHECK(a->way, 0, "%s: remora_amo_size_ok(%zu) is 0 on memory with atomics (amo_sizes %#x)", a->label,
                  size, a->m.tp->amo_sizes);
            continue;
        }
        for (unsigned pos = 0; pos < 8; pos += (unsigned)size)
            for (int c = 0; c < NCASES; c++)
                for (int fetching = 0; fetching < 2; fetching++) {
                    amo_one(a, word_off, size, pos, c, fetching, &rng);
                    word_off += 8;
                }
    }
}

/* ---- 5. unsupported atomics --------------------------------------------------------------- */

/* Atomics that must be refused and must leave the memory as it was; the
 * failures of one (access, size, reason) are reported together. */
struct refusals {
    long calls, not_refused, changed;
    remora_status_t first_status;
    const char *status_op, *changed_op;
    int status_fetch, changed_fetch;
    uint64_t status_off, changed_off;
};

/* One atomic that must be refused; the 16 bytes at word_off must stay. */
static void amo_refused(struct access *a, uint64_t word_off, uint64_t off, size_t size, enum remora_amo_op op,
                        int fetching, const char *why, struct refusals *r)
{
    unsigned char before[16], after[16];
    uint64_t slot_rel = off - slot_off(me, a->how);
    doing("%s op=%s%s size=%zu offset=%" PRIu64 " (%s, must be refused)", a->label, op_name(op),
          fetching ? "(fetch)" : "", size, slot_rel, why);
    remora_status_t st = remora_read(&a->m, word_off, before, 16);
    if (!CHECK_ST(a->way, st, REMORA_OK, "%s: read before op=%s size=%zu", a->label, op_name(op), size))
        return;
    uint64_t fetched = 0x1234;
    st = remora_amo(&a->m, off, size, op, 0x0101010101010101ull, 0, fetching ? &fetched : NULL);
    remora_flush(&a->m);
    remora_status_t rst = remora_read(&a->m, word_off, after, 16);
    if (!CHECK_ST(a->way, rst, REMORA_OK, "%s: read after op=%s size=%zu", a->label, op_name(op), size))
        return;
    atomic_fetch_add(&nchecks[a->way], 2);
    r->calls++;
    if (!remora_status_is(st, REMORA_S_UNSUPPORTED) && r->not_refused++ == 0) {
        r->first_status = st;
        r->status_op = op_name(op);
        r->status_fetch = fetching;
        r->status_off = slot_rel;
    }
    if (memcmp(before, after, 16) != 0 && r->changed++ == 0) {
        r->changed_op = op_name(op);
        r->changed_fetch = fetching;
        r->changed_off = slot_rel;
    }
}

static void refusal_verdict(struct access *a, size_t size, const char *why, const struct refusals *r, int line)
{
    if (r->not_refused)
        report(a->way, line,
               "%s size=%zu (%s): %ld of %ld atomics not refused; first: op=%s%s at slot byte %" PRIu64
               " gave status %d (%s), expected %d (%s)",
               a->label, size, why, r->not_refused, r->calls, r->status_op, r->status_fetch ? "(fetch)" : "",
               r->status_off, (int)r->first_status.code, remora_status_str(r->first_status), (int)REMORA_S_UNSUPPORTED,
               remora_status_str(REMORA_ERR_UNSUPPORTED));
    if (r->changed)
        report(a->way, line,
               "%s size=%zu (%s): %ld of %ld refused atomics changed the memory; first: op=%s%s at slot byte %" PRIu64,
               a->label, size, why, r->changed, r->calls, r->changed_op, r->changed_fetch ? "(fetch)" : "",
               r->changed_off);
}

static void origin_amo_errors(struct access *a)
{
    uint64_t word_off = slot_off(me, a->how) + 8192; /* 64-byte aligned: the 16 bytes stay in one cache line */
    if (a->way == WAY_CMA) {
        CHECK(a->way, a->m.tp->amo_sizes == 0, "%s: amo_sizes %#x on memory without atomics", a->label,
              a->m.tp->amo_sizes);
        for (size_t size = 1; size <= 8; size *= 2) {
            CHECK(a->way, !remora_amo_size_ok(&a->m, size), "%s: remora_amo_size_ok(%zu) is 1", a->label, size);
            struct refusals r = {0};
            for (int op = REMORA_AMO_ADD; op <= REMORA_AMO_CSWAP; op++)
                for (int fetching = 0; fetching < 2; fetching++)
                    amo_refused(a, word_off, word_off, size, (enum remora_amo_op)op, fetching, "no atomics", &r);
            refusal_verdict(a, size, "no atomics", &r, __LINE__);
        }
    } else {
        for (size_t size = 2; size <= 8; size *= 2) {
            CHECK(a->way, remora_amo_size_ok(&a->m, size), "%s: remora_amo_size_ok(%zu) is 0", a->label, size);
            struct refusals r = {0};
            for (uint64_t mis = 1; mis < size; mis++)
                for (int fetching = 0; fetching < 2; fetching++) {
                    amo_refused(a, word_off, word_off + mis, size, REMORA_AMO_ADD, fetching, "misaligned", &r);
                    amo_refused(a, word_off, word_off + mis, size, REMORA_AMO_CSWAP, fetching, "misaligned", &r);
                }
            refusal_verdict(a, size, "misaligned", &r, __LINE__);
        }
    }
    static const size_t bad_sizes[] = {0, 3, 5, 6, 7, 16, 32};
    for (size_t i = 0; i < sizeof bad_sizes / sizeof bad_sizes[0]; i++) {
        size_t size = bad_sizes[i];
        CHECK(a->way, !remora_amo_size_ok(&a->m, size), "%s: remora_amo_size_ok(%zu) is 1", a->label, size);
        /* offsets 0..7: some are multiples of size, so alignment alone cannot refuse it */
        struct refusals r = {0};
        for (uint64_t o = 0; o < 8; o++)
            for (int fetching = 0; fetching < 2; fetching++)
                amo_refused(a, word_off, word_off + o, size, REMORA_AMO_ADD, fetching, "no such size", &r);
        refusal_verdict(a, size, "no such size", &r, __LINE__);
    }
}

/* ---- 4b. concurrent counters ----------------------------------------------------------- */

#define NTHREADS_MAX 4
struct counter_job {
    const struct remora_rmem *m;
    uint64_t off;
    size_t size;
    int fetching, iters; /* fetching 2: posted (remora_amo_nbi), the values arrive by flushes */
    uint64_t *fetched; /* iters entries when fetching (NULL: not kept) */
    remora_status_t bad_status;
    int nbad;
    uint64_t operand;  /* 0: 1 */
    int late;          /* posted fetches whose value was not there after their flush */
};

static uint64_t counter_init(size_t size);

static void *counter_thread(void *arg)
{
    struct counter_job *j = arg;
    /* posted fetches are flushed in batches of 5 (each kept apart by the
     * transport) and 40 (more than it keeps apart: ucx.c's MAX_FETCHES) */
    int flushed = 0;
    for (int i = 0; i < j->iters; i++) {
        uint64_t f = 0, x = garbled(j->operand ? j->operand : 1, j->size, 0x7e57c0de7e57c0deull);
        remora_status_t st;
        if (j->fetching == 2) { /* the size bytes land in the word's low bytes (little-endian) */
            j->fetched[i] = 0;
            st = remora_amo_nbi(j->m, j->off, j->size, REMORA_AMO_ADD, x, 0, &j->fetched[i]);
            if (remora_ok(st) && ((i + 1) % 45 == 5 || (i + 1) % 45 == 0 || i + 1 == j->iters)) {
                st = remora_flush(j->m);
                for (; flushed <= i; flushed++) {
                    /* an 8-byte counter only grows from its start (narrower ones wrap round) */
                    j->late += j->size == 8 && j->fetched[flushed] < counter_init(8);
                    j->fetched[flushed] &= mask_of(j->size);
                }
            }
        } else {
            st = remora_amo(j->m, j->off, j->size, REMORA_AMO_ADD, x, 0, j->fetching ? &f : NULL);
        }
        if (!remora_ok(st)) {
            j->bad_status = st;
            j->nbad++;
        }
        if (j->fetching == 1 && j->fetched)
            j->fetched[i] = f;
    }
    return NULL;
}

static int cmp_u64(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return a < b ? -1 : a > b;
}

/* field position of the shared counter in its word, by size */
static unsigned counter_pos(size_t size) { return size == 1 ? 5 : size == 2 ? 2 : size == 4 ? 4 : 0; }
static uint64_t counter_init(size_t size) { return size == 8 ? 0xfffffffdull : mask_of(size) - 3; }
static uint64_t slot_init(size_t size, unsigned slot)
{
    return size == 8 ? 0xfffffff0ull + slot : (mask_of(size) - 15 + slot) & mask_of(size);
}
static unsigned char counter_neighbour(unsigned i) { return (unsigned char)(0x5a + 0x11 * i); }

/* Word of (domain, size index, thread variant, subtest). */
static uint64_t counter_word(int dom, int si, int tv, int sub)
{
    return counter_off + 8 * (uint64_t)(((dom * 4 + si) * 2 + tv) * 2 + sub);
}

/* Atomics of every size on one 8-byte word at once, none changing another's
 * bytes: the narrow emulation's compare-and-swap loop must be atomic with the
 * 4- and 8-byte atomics on the same word.  Roles, by (rank, thread):
 *   0: 1-byte ADD 1 on byte 0       1: 1-byte ADD 1 on byte 1
 *   2: 4-byte ADD 1<<24 on bytes 0-3 (moves byte 3 only)
 *   3: 2-byte ADD 1 on bytes 4-5    4: 8-byte ADD 1<<48 (moves bytes 6-7 only)
 * byte 2 is left alone. */
#define NROLES 5
static const struct { unsigned off; size_t size; uint64_t operand; } roles[NROLES] = {
    {0, 1, 1}, {1, 1, 1}, {0, 4, 1ull << 24}, {4, 2, 1}, {0, 8, 1ull << 48}};
static const unsigned char mixed_init[8] = {0xf0, 0xe1, 0x5a, 0xc3, 0xf0, 0xff, 0xf8, 0xff};
static uint64_t mixed_word(int dom, int tv) { return counter_off + 8 * (uint64_t)(64 + dom * 2 + tv); }
static int mixed_role(int rank, int thread, int nth) { return (rank * nth + thread) % NROLES; }

static void owner_init_counters(void)
{
    static const size_t sizes[] = {1, 2, 4, 8};
    for (int dom = 0; dom < 2; dom++)
        for (int si = 0; si < 4; si++)
            for (int tv = 0; tv < 2; tv++) {
                size_t size = sizes[si];
                unsigned char *w = buf[KIND_POOL] + counter_word(dom, si, tv, 0);
                for (unsigned i = 0; i < 8; i++)
                    w[i] = counter_neighbour(i);
                set_field(w, counter_pos(size), size, counter_init(size));
                w = buf[KIND_POOL] + counter_word(dom, si, tv, 1);
                for (unsigned s = 0; s < 8 / size; s++)
                    set_field(w, s * (unsigned)size, size, slot_init(size, s));
                memcpy(buf[KIND_POOL] + mixed_word(dom, tv), mixed_init, 8);
            }
}

static int counter_participates(int rank, int dom)
{
    return dom == 1 || expected_way(rank, np - 1, KIND_POOL, REMORA_REACH_FAST) == WAY_MAPPED;
}

static void mixed_sizes(int dom, int tv, int iters)
{
    const int T = np - 1, nth = tv ? NTHREADS_MAX : 1;
    int way = dom == 0 ? WAY_MAPPED : WAY_NET;
    struct access *a = access_of(T, KIND_POOL, dom == 0 ? REMORA_REACH_FAST : REMORA_REACH_NET);
    uint64_t word = mixed_word(dom, tv);
    if (counter_participates(me, dom) && a->ok) {
        struct counter_job job[NTHREADS_MAX];
        pthread_t th[NTHREADS_MAX];
        doing("%s op=ADD(mixed sizes on one word) threads=%d", a->label, nth);
        for (int i = 0; i < nth; i++) {
            int r = mixed_role(me, i, nth);
            job[i] = (struct counter_job){&a->m, word + roles[r].off, roles[r].size, i % 2 == 0, iters, NULL, REMORA_OK, 0,
                                          roles[r].operand, 0};
            if (pthread_create(&th[i], NULL, counter_thread, &job[i]) != 0) {
                fprintf(stderr, "[rank %d] pthread_create failed\n", me);
                MPI_Abort(MPI_COMM_WORLD, 2);
            }
        }
        for (int i = 0; i < nth; i++) {
            pthread_join(th[i], NULL);
            int r = mixed_role(me, i, nth);
            CHECK(way, job[i].nbad == 0,
                  "%s op=ADD(mixed sizes on one word, role %d)%s size=%zu threads=%d: %d atomics failed, status %d (%s)",
                  a->label, r, job[i].fetching ? "(fetch)" : "", roles[r].size, nth, job[i].nbad, (int)job[i].bad_status.code,
                  remora_status_str(job[i].bad_status));
        }
        remora_status_t st = remora_flush(&a->m);
        CHECK_ST(way, st, REMORA_OK, "%s op=flush after mixed-size ADDs", a->label);
    }
    barrier();
    if (me != T)
        return;
    uint64_t n[NROLES] = {0};
    for (int r = 0; r < np; r++)
        for (int i = 0; i < nth; i++)
            if (counter_participates(r, dom))
                n[mixed_role(r, i, nth)] += (uint64_t)iters;
    const unsigned char *w = buf[KIND_POOL] + word;
    uint64_t got[6] = {w[0], w[1], w[2], w[3], get_field(w, 4, 2), get_field(w, 6, 2)};
    uint64_t want[6] = {(mixed_init[0] + n[0]) & 0xff, (mixed_init[1] + n[1]) & 0xff, mixed_init[2],
                        (mixed_init[3] + n[2]) & 0xff, (get_field(mixed_init, 4, 2) + n[3]) & 0xffff,
                        (get_field(mixed_init, 6, 2) + n[4]) & 0xffff};
    static const char *const field[6] = {"byte 0 (1-byte ADDs)", "byte 1 (1-byte ADDs)", "byte 2 (untouched)",
                                         "byte 3 (4-byte ADDs of 1<<24)", "bytes 4-5 (2-byte ADDs)",
                                         "bytes 6-7 (8-byte ADDs of 1<<48)"};
    for (int f = 0; f < 6; f++)
        CHECK(way, got[f] == want[f],
              "target=%d(me) mem=pool reach=%s op=ADD(mixed sizes on one word) threads=%d: %s is %#" PRIx64
              ", expected %#" PRIx64 " (counts: %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 ")",
              T, dom == 0 ? "FAST" : "NET", nth, field[f], got[f], want[f], n[0], n[1], n[2], n[3], n[4]);
}

static void counters(int iters_net, int iters_mapped)
{
    static const size_t sizes[] = {1, 2, 4, 8};
    const int T = np - 1;
    if (me == T)
        owner_init_counters();
    barrier();
    for (int dom = 0; dom < 2; dom++) { /* 0: mapped (FAST on T's node), 1: net (REACH_NET from everyone) */
        int way = dom == 0 ? WAY_MAPPED : WAY_NET;
        int iters = dom == 0 ? iters_mapped : iters_net;
        struct access *a = access_of(T, KIND_POOL, dom == 0 ? REMORA_REACH_FAST : REMORA_REACH_NET);
        int part = counter_participates(me, dom) && a->ok;
        int nparts = 0;
        for (int r = 0; r < np; r++)
            nparts += counter_participates(r, dom);
        for (int si = 0; si < 4; si++)
            for (int tv = 0; tv < 2; tv++) {
                size_t size = sizes[si];
                int nth = tv ? NTHREADS_MAX : 1;
                double t0 = now();
                for (int sub = 0; sub < 2; sub++) {
                    uint64_t word = counter_word(dom, si, tv, sub);
                    struct counter_job job[NTHREADS_MAX];
                    pthread_t th[NTHREADS_MAX];
                    uint64_t *mine = xmalloc(sizeof *mine * (size_t)(nth * iters));
                    doing("%s op=ADD%s size=%zu threads=%d (concurrent counters)", a->label,
                          sub == 0 ? "(fetch, shared counter)" : "(neighbour slots)", size, nth);
                    if (part) {
                        for (int i = 0; i < nth; i++) {
                            unsigned slot = (unsigned)((me * nth + i) % (int)(8 / size));
                            /* the shared counter's threads fetch by turns waited for and posted */
                            int fetching = sub == 0 ? 1 + (me + i) % 2 : 0;
                            job[i] = (struct counter_job){&a->m, sub == 0 ? word + counter_pos(size) : word + slot * size,
                                                          size, fetching, iters, mine + (size_t)i * (size_t)iters, REMORA_OK, 0, 0, 0};
                            if (pthread_create(&th[i], NULL, counter_thread, &job[i]) != 0) {
                                fprintf(stderr, "[rank %d] pthread_create failed\n", me);
                                MPI_Abort(MPI_COMM_WORLD, 2);
                            }
                        }
                        for (int i = 0; i < nth; i++) {
                            pthread_join(th[i], NULL);
                            CHECK(way, job[i].nbad == 0,
                                  "%s op=ADD%s size=%zu threads=%d: %d atomics failed, status %d (%s)", a->label,
                                  sub == 0 ? "(fetch, shared counter)" : "(neighbour slots)", size, nth, job[i].nbad,
                                  (int)job[i].bad_status.code, remora_status_str(job[i].bad_status));
                            CHECK(way, job[i].late == 0,
                                  "%s op=ADD(fetch, posted) size=%zu: %d fetched values were not there after the flush",
                                  a->label, size, job[i].late);
                        }
                        /* the threads' non-fetching atomics, flushed by this thread */
                        remora_status_t st = remora_flush(&a->m);
                        CHECK_ST(way, st, REMORA_OK, "%s op=flush after concurrent ADDs size=%zu", a->label, size);
                    }
                    /* the fetched values of every rank, at T */
                    if (sub == 0) {
                        int n = part ? nth * iters : 0;
                        int *counts = me == T ? xmalloc(sizeof(int) * (size_t)np) : NULL;
                        int *displs = me == T ? xmalloc(sizeof(int) * (size_t)np) : NULL;
                        MPI_Gather(&n, 1, MPI_INT, counts, 1, MPI_INT, T, MPI_COMM_WORLD);
                        uint64_t *all = NULL;
                        int total = 0;
                        if (me == T) {
                            for (int r = 0; r < np; r++) {
                                displs[r] = total;
                                total += counts[r];
                            }
                            all = xmalloc(sizeof *all * (size_t)total);
                        }
                        MPI_Gatherv(mine, n, MPI_UINT64_T, all, counts, displs, MPI_UINT64_T, T, MPI_COMM_WORLD);
                        if (me == T) {
                            uint64_t *exp = xmalloc(sizeof *exp * (size_t)total);
                            for (int i = 0; i < total; i++)
                                exp[i] = (counter_init(size) + (uint64_t)i) & mask_of(size);
                            qsort(exp, (size_t)total, sizeof *exp, cmp_u64);
                            qsort(all, (size_t)total, sizeof *all, cmp_u64);
                            int first = -1, nbad = 0;
                            for (int i = 0; i < total; i++)
                                if (all[i] != exp[i]) {
                                    if (first < 0)
                                        first = i;
                                    nbad++;
                                }
                            CHECK(way, first < 0,
                                  "target=%d(me) mem=pool reach=%s op=ADD(fetch, shared counter) size=%zu threads=%d: "
                                  "the %d fetched values are not init..init+%d (a lost or doubled update): %d differ, "
                                  "first sorted #%d is %#" PRIx64 ", expected %#" PRIx64,
                                  T, dom == 0 ? "FAST" : "NET", size, nth, total, total - 1, nbad, first,
                                  first >= 0 ? all[first] : 0, first >= 0 ? exp[first] : 0);
                            free(exp);
                            free(all);
                            free(counts);
                            free(displs);
                        }
                    }
                    free(mine);
                }
                barrier(); /* every rank's atomics are complete */
                if (me == T) {
                    unsigned char *w = buf[KIND_POOL] + counter_word(dom, si, tv, 0);
                    unsigned pos = counter_pos(size);
                    uint64_t total = (uint64_t)nparts * (uint64_t)nth * (uint64_t)iters;
                    uint64_t want = (counter_init(size) + total) & mask_of(size), got = get_field(w, pos, size);
                    CHECK(way, got == want,
                          "target=%d(me) mem=pool op=ADD(fetch, shared counter) size=%zu threads=%d ranks=%d: final "
                          "%#" PRIx64 ", expected %#" PRIx64 " (init %#" PRIx64 " + %" PRIu64 ")",
                          T, size, nth, nparts, got, want, counter_init(size), total);
                    for (unsigned i = 0; i < 8; i++)
                        if (i < pos || i >= pos + size)
                            CHECK(way, w[i] == counter_neighbour(i),
                                  "target=%d(me) mem=pool op=ADD(fetch, shared counter) size=%zu threads=%d: "
                                  "neighbouring byte %u is %#04x, expected %#04x",
                                  T, size, nth, i, w[i], counter_neighbour(i));
                    w = buf[KIND_POOL] + counter_word(dom, si, tv, 1);
                    for (unsigned s = 0; s < 8 / size; s++) {
                        uint64_t ops = 0;
                        for (int r = 0; r < np; r++)
                            for (int i = 0; i < nth; i++)
                                if (counter_participates(r, dom) && (unsigned)((r * nth + i) % (int)(8 / size)) == s)
                                    ops += (uint64_t)iters;
                        uint64_t exp_v = (slot_init(size, s) + ops) & mask_of(size);
                        uint64_t got_v = get_field(w, s * (unsigned)size, size);
                        CHECK(way, got_v == exp_v,
                              "target=%d(me) mem=pool op=ADD(neighbour slots) size=%zu threads=%d: slot %u (byte %zu) "
                              "is %#" PRIx64 ", expected %#" PRIx64 " (init %#" PRIx64 " + %" PRIu64 ")",
                              T, size, nth, s, s * size, got_v, exp_v, slot_init(size, s), ops);
                    }
                }
                if (me == 0)
                    printf("  counters: way=%s size=%zu threads=%d ranks=%d iters=%d: %.2f s\n", way_names[way], size,
                           nth, nparts, iters, now() - t0);
            }
        for (int tv = 0; tv < 2; tv++) {
            double t0 = now();
            mixed_sizes(dom, tv, iters);
            if (me == 0)
                printf("  counters: way=%s mixed sizes threads=%d ranks=%d iters=%d: %.2f s\n", way_names[way],
                       tv ? NTHREADS_MAX : 1, nparts, iters, now() - t0);
        }
    }
}

/* ---- 6. keys --------------------------------------------------------------------------------- */

/* An unpack that must fail with `want` and leave an empty rmem. */
static void unpack_refused(int t, const void *key, size_t len, int how, remora_status_t want, const char *what)
{
    struct remora_rmem m;
    memset(&m, 0x5a, sizeof m);
    remora_status_t st = remora_mem_unpack(t, key, len, how, &m);
    int way = remora_status_is(want, REMORA_S_INVALID) ? WAY_KEYS : expected_way(me, t, KIND_MALLOC, how);
    CHECK_ST(way, st, want, "target=%d reach=%s: unpack of %s (%zu bytes)", t, how_names[how], what, len);
    if (remora_ok(st))
        remora_rmem_release(&m);
    else
        CHECK(way, m.tp == NULL, "target=%d reach=%s: failed unpack of %s leaves tp=%p (not NULL)", t, how_names[how],
              what, (const void *)m.tp);
}

static void keys_phase(void)
{
    unsigned char k[REMORA_KEY_MAX + 64];
    uint64_t rng = seed_of(TAG_KEYS, me, 0, 0, 0);
    for (int t = 0; t < np; t++) {
        doing("keys of target=%d", t);
        for (int how = 0; how < NHOW; how++) {
            /* truncated and over-long keys */
            static const int which[] = {KEY_NET_POOL, KEY_NET_MALLOC, KEY_NONET_MALLOC, KEY_ZERO_NET, KEY_ZERO_NONET};
            for (size_t w = 0; w < sizeof which / sizeof which[0]; w++) {
                const struct keymsg *key = key_of(t, which[w]);
                char what[80];
                for (size_t len = 0; len < key->len; len++) {
                    snprintf(what, sizeof what, "the %s key truncated", key_names[which[w]]);
                    unpack_refused(t, key->b, len, how, REMORA_ERR_INVALID, what);
                }
                memcpy(k, key->b, key->len);
                memset(k + key->len, 0xa7, 64);
                snprintf(what, sizeof what, "the %s key with bytes appended", key_names[which[w]]);
                unpack_refused(t, k, key->len + 1, how, REMORA_ERR_INVALID, what);
                unpack_refused(t, k, key->len + 8, how, REMORA_ERR_INVALID, what);
            }
            /* garbage */
            static const size_t glen[] = {1, 7, 8, 64, 71, 72, 73, 80, 128, 200, REMORA_KEY_MAX};
            for (size_t g = 0; g < sizeof glen / sizeof glen[0]; g++) {
                for (size_t i = 0; i < glen[g]; i++)
                    k[i] = (unsigned char)rng_next(&rng);
                unpack_refused(t, k, glen[g], how, REMORA_ERR_INVALID, "random bytes");
                memset(k, 0xff, glen[g]);
                unpack_refused(t, k, glen[g], how, REMORA_ERR_INVALID, "0xff bytes");
            }
            for (int w = 0; w < NKEYS; w++) { /* same length as a real key, random content */
                size_t len = key_of(t, w)->len;
                for (size_t i = 0; i < len; i++)
                    k[i] = (unsigned char)rng_next(&rng);
                unpack_refused(t, k, len, how, REMORA_ERR_INVALID, "random bytes of a real key's length");
            }
            /* zero-filled, of a key without the network's length: nothing can
             * tell it from a real key but its contents; it must not be reachable */
            {
                size_t len = key_of(t, KEY_NONET_MALLOC)->len;
                memset(k, 0, len);
                struct remora_rmem m;
                remora_status_t st = remora_mem_unpack(t, k, len, how, &m);
                CHECK(WAY_KEYS, remora_status_is(st, REMORA_S_INVALID) || remora_status_is(st, REMORA_S_UNREACHABLE),
                      "target=%d reach=%s: unpack of a zero-filled key (%zu bytes): status %d (%s), expected "
                      "REMORA_ERR_INVALID or REMORA_ERR_UNREACHABLE",
                      t, how_names[how], len, (int)st.code, remora_status_str(st));
                if (remora_ok(st))
                    remora_rmem_release(&m);
            }
        }
        /* keys without the network */
        for (int kind = 0; kind < NKINDS; kind++) {
            const struct keymsg *key = key_of(t, kind == KIND_POOL ? KEY_NONET_POOL : KEY_NONET_MALLOC);
            char what[80];
            snprintf(what, sizeof what, "a %s key registered without the network", kind_names[kind]);
            unpack_refused(t, key->b, key->len, REMORA_REACH_NET, REMORA_ERR_UNREACHABLE, what);
            int way = expected_way(me, t, kind, REMORA_REACH_FAST);
            if (way == WAY_NET) {
                unpack_refused(t, key->b, key->len, REMORA_REACH_FAST, REMORA_ERR_UNREACHABLE, what);
                continue;
            }
            struct remora_rmem m;
            remora_status_t st = remora_mem_unpack(t, key->b, key->len, REMORA_REACH_FAST, &m);
            if (!CHECK_ST(way, st, REMORA_OK, "target=%d reach=FAST: unpack of %s (same node)", t, what))
                continue;
            CHECK(way, m.tp && way_of_tp(m.tp) == way, "target=%d reach=FAST: %s reached as %s, expected %s", t, what,
                  m.tp ? way_names[way_of_tp(m.tp)] : "nothing", way_names[way]);
            unsigned char got[64], exp[64];
            uint64_t off = slot_off(me, REMORA_REACH_FAST) + 100;
            fill_pat(exp, seed_owner_t(t, kind, PH_KEYS), off, sizeof exp);
            st = m.tp ? remora_read(&m, off, got, sizeof got) : REMORA_ERR_INVALID;
            if (CHECK_ST(way, st, REMORA_OK, "target=%d mem=%s reach=FAST (key without network) op=read size=64", t,
                         kind_names[kind]))
                CHECK(way, memcmp(got, exp, sizeof got) == 0,
                      "target=%d mem=%s reach=FAST (key without network) op=read size=64: wrong data", t,
                      kind_names[kind]);
            remora_rmem_release(&m);
            CHECK(way, m.tp == NULL, "target=%d: remora_rmem_release left tp set", t);
        }
        /* zero-length registrations */
        for (int z = KEY_ZERO_NET; z <= KEY_ZERO_NONET; z++) {
            const struct keymsg *key = key_of(t, z);
            for (int how = 0; how < NHOW; how++) {
                int way = expected_way(me, t, KIND_MALLOC, how);
                int reachable = z == KEY_ZERO_NET || way != WAY_NET;
                struct remora_rmem m;
                remora_status_t st = remora_mem_unpack(t, key->b, key->len, how, &m);
                if (!CHECK_ST(way, st, reachable ? REMORA_OK : REMORA_ERR_UNREACHABLE,
                              "target=%d reach=%s: unpack of a %s registration", t, how_names[how], key_names[z]))
                    continue;
                if (!remora_ok(st))
                    continue;
                CHECK(way, m.tp != NULL, "target=%d reach=%s: %s registration unpacked to tp NULL", t, how_names[how],
                      key_names[z]);
                if (m.tp) {
                    st = remora_flush(&m);
                    CHECK_ST(way, st, REMORA_OK, "target=%d reach=%s: flush toward a %s registration", t,
                             how_names[how], key_names[z]);
                }
                remora_rmem_release(&m);
            }
        }
        /* one key, two rmems, released one after the other */
        for (int how = 0; how < NHOW; how++) {
            const struct keymsg *key = key_of(t, KEY_NET_MALLOC);
            int way = expected_way(me, t, KIND_MALLOC, how);
            struct remora_rmem m1, m2;
            remora_status_t st1 = remora_mem_unpack(t, key->b, key->len, how, &m1);
            remora_status_t st2 = remora_mem_unpack(t, key->b, key->len, how, &m2);
            CHECK_ST(way, st1, REMORA_OK, "target=%d mem=malloc reach=%s: first unpack", t, how_names[how]);
            CHECK_ST(way, st2, REMORA_OK, "target=%d mem=malloc reach=%s: second unpack of the same key", t,
                     how_names[how]);
            if (!remora_ok(st1) || !remora_ok(st2))
                continue;
            unsigned char got[32], exp[32];
            uint64_t off = slot_off(me, how) + 333;
            fill_pat(exp, seed_owner_t(t, KIND_MALLOC, PH_KEYS), off, sizeof exp);
            remora_status_t st = remora_read(&m1, off, got, sizeof got);
            CHECK(way, remora_ok(st) && memcmp(got, exp, sizeof got) == 0,
                  "target=%d mem=malloc reach=%s op=read through the first of two rmems: status %d or wrong data", t,
                  how_names[how], (int)st.code);
            remora_rmem_release(&m1);
            memset(got, 0, sizeof got);
            st = remora_read(&m2, off, got, sizeof got);
            CHECK(way, remora_ok(st) && memcmp(got, exp, sizeof got) == 0,
                  "target=%d mem=malloc reach=%s op=read through the second rmem after the first was released: "
                  "status %d or wrong data",
                  t, how_names[how], (int)st.code);
            remora_rmem_release(&m2);
        }
    }
}

/* ---- main ------------------------------------------------------------------------------------ */

static long arg_long(int argc, char **argv, const char *name, long dflt)
{
    for (int i = 1; i + 1 < argc; i++)
        if (strcmp(argv[i], name) == 0)
            return strtol(argv[i + 1], NULL, 10);
    return dflt;
}

static const char *arg_str(int argc, char **argv, const char *name, const char *dflt)
{
    for (int i = 1; i + 1 < argc; i++)
        if (strcmp(argv[i], name) == 0)
            return argv[i + 1];
    return dflt;
}

static void phase_done(const char *name, double t0)
{
    if (me == 0) {
        printf("phase %-26s %6.2f s\n", name, now() - t0);
        fflush(stdout);
    }
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    double t_start = now(), t0;
    signal(SIGTERM, on_signal);
    signal(SIGINT, on_signal);
    signal(SIGABRT, on_signal);
    doing("start-up");
    int node_size = (int)arg_long(argc, argv, "--node-size", 0);
    const char *expect = arg_str(argc, argv, "--expect", "");
    int iters_net = (int)arg_long(argc, argv, "--iters", 50);
    int iters_mapped = (int)arg_long(argc, argv, "--mapped-iters", 20000);
    CHECK(WAY_SETUP, provided == MPI_THREAD_MULTIPLE, "MPI_Init_thread provided %d, not MPI_THREAD_MULTIPLE",
          provided);
    if (me == 0)
        printf("transport conformance: %d ranks, --node-size %d, expecting %s\n", np, node_size, expect);

    t0 = now();
    check_topology(node_size);
    remora_status_t st = remora_net_wireup(MPI_COMM_WORLD);
    CHECK_ST(WAY_SETUP, st, REMORA_OK, "remora_net_wireup(MPI_COMM_WORLD)");
    register_all();
    unpack_all();
    barrier();
    phase_done("setup", t0);

    unsigned char *scratch = xmalloc(SLOT);

    /* 1. contiguous */
    t0 = now();
    owner_fill(seed_bg, PH_CONTIG);
    barrier();
    for (int i = 0; i < nacc; i++)
        if (acc[i].ok)
            origin_contig_put(&acc[i]);
    barrier();
    for (int kind = 0; kind < NKINDS; kind++)
        for (int o = 0; o < np; o++)
            for (int how = 0; how < NHOW; how++)
                owner_check_slot(kind, o, how, PH_CONTIG, contig, NCONTIG, seed_data(PH_CONTIG, o, kind, how), scratch,
                                 "put+flush");
    owner_fill(seed_owner, PH_CONTIG);
    barrier();
    for (int i = 0; i < nacc; i++)
        if (acc[i].ok)
            origin_contig_get(&acc[i], PH_CONTIG);
    barrier();
    phase_done("1 contiguous put/get", t0);

    /* 2. vectored */
    t0 = now();
    owner_fill(seed_bg, PH_VEC);
    barrier();
    for (int i = 0; i < nacc; i++)
        if (acc[i].ok)
            origin_vec_put(&acc[i]);
    barrier();
    owner_check_vec(PH_VEC, scratch);
    owner_fill(seed_owner, PH_VEC);
    barrier();
    for (int i = 0; i < nacc; i++)
        if (acc[i].ok)
            origin_vec_get(&acc[i], PH_VEC);
    barrier();
    phase_done("2 vectored putv/getv", t0);

    /* 3. blocking reads */
    t0 = now();
    owner_fill(seed_owner, PH_READ_A);
    barrier();
    for (int i = 0; i < nacc; i++)
        if (acc[i].ok)
            origin_read(&acc[i], PH_READ_A);
    barrier();
    owner_fill(seed_owner, PH_READ_B);
    barrier();
    for (int i = 0; i < nacc; i++)
        if (acc[i].ok) {
            origin_read(&acc[i], PH_READ_B);
            origin_read_own_put(&acc[i]);
            if (acc[i].target == me && acc[i].way == WAY_MAPPED)
                origin_self_overlap(&acc[i]);
        }
    barrier();
    phase_done("3 read", t0);

    /* 6. keys */
    t0 = now();
    owner_fill(seed_owner, PH_KEYS);
    barrier();
    keys_phase();
    barrier();
    phase_done("6 keys", t0);

    /* 5. refused atomics, 4b. counters, 4. the atomics matrix (last: an
     * atomic that kills a process hides nothing else) */
    t0 = now();
    owner_fill(seed_bg, PH_AMO);
    barrier();
    for (int i = 0; i < nacc; i++)
        if (acc[i].ok)
            origin_amo_errors(&acc[i]);
    barrier();
    phase_done("5 refused atomics", t0);
    t0 = now();
    counters(iters_net, iters_mapped);
    phase_done("4b concurrent counters", t0);
    t0 = now();
    for (int i = 0; i < nacc; i++)
        if (acc[i].ok && acc[i].way != WAY_CMA)
            origin_amo_matrix(&acc[i]);
    barrier();
    phase_done("4 atomics", t0);

    /* 7. flushes, release, deregistration */
    t0 = now();
    doing("flushes and clean-up");
    for (int t = 0; t < np; t++) {
        int way = expected_way(me, t, KIND_POOL, REMORA_REACH_FAST);
        st = remora_flush_proc(t);
        CHECK_ST(way, st, REMORA_OK, "target=%d: remora_flush_proc", t);
    }
    st = remora_flush_all();
    CHECK_ST(WAY_NET, st, REMORA_OK, "remora_flush_all");
    barrier(); /* nobody reaches anybody's memory any more */
    for (int i = 0; i < nacc; i++) {
        remora_rmem_release(&acc[i].m);
        CHECK(acc[i].way, acc[i].m.tp == NULL, "%s: remora_rmem_release left tp set", acc[i].label);
    }
    st = remora_flush_all();
    CHECK_ST(WAY_NET, st, REMORA_OK, "remora_flush_all after every rmem was released");
    barrier();
    for (int k = 0; k < NKEYS; k++) {
        remora_mem_deregister(&regs[k]);
        CHECK(WAY_KEYS, regs[k].net == NULL && regs[k].packed_len == 0, "remora_mem_deregister(%s) left the registration set",
              key_names[k]);
    }
    CHECK(WAY_SETUP, remora_pool_free(buf[KIND_POOL]) == 1, "remora_pool_free of the pool buffer gave 0");
    free(buf[KIND_MALLOC]);
    free(scratch);
    free(acc);
    free(keys);
    free(topo);
    phase_done("7 flush, release", t0);

    /* verdict */
    long checks[NWAYS], fails[NWAYS], accs[NWAYS];
    for (int w = 0; w < NWAYS; w++) {
        checks[w] = atomic_load(&nchecks[w]);
        fails[w] = atomic_load(&nfails[w]);
    }
    MPI_Allreduce(MPI_IN_PLACE, checks, NWAYS, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, fails, NWAYS, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(acc_per_way, accs, NWAYS, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    long total_fails = 0;
    for (int w = 0; w < NWAYS; w++)
        total_fails += fails[w];
    if (me == 0) {
        for (int w = 0; w < NWAYS; w++)
            printf("way %-7s %9ld checks %6ld failures  (%ld accesses)\n", way_names[w], checks[w], fails[w],
                   w <= WAY_NET ? accs[w] : 0);
        /* the ways this mode must offer */
        char list[128];
        snprintf(list, sizeof list, "%s", expect);
        for (char *save = NULL, *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
            int w = 0;
            while (w < NWAYS && strcmp(way_names[w], tok) != 0)
                w++;
            if (w == NWAYS) {
                printf("FAIL: --expect names an unknown way '%s'\n", tok);
                total_fails++;
            } else if (checks[w] == 0 || accs[w] == 0) {
                printf("FAIL: way %s must be exercised in this mode but got no %s\n", tok,
                       accs[w] == 0 ? "access" : "check");
                total_fails++;
            }
        }
        printf("total time %.2f s\n", now() - t_start);
        if (total_fails == 0)
            printf("No Errors\n");
        else
            printf("Found %ld errors\n", total_fails);
        fflush(stdout);
    }
    MPI_Bcast(&total_fails, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    doing("MPI_Finalize (the test is over%s)", total_fails ? ", with failures" : "");
    MPI_Finalize();
    return total_fails ? 1 : 0;
}
