/* RMA: put, get, p, g, iput, iget, ibput, ibget, put_nbi, get_nbi for every
 * type of the standard RMA table, the sized forms (8..128 bits) and the mem
 * forms; each through the plain name, the ctx_ name on SHMEM_CTX_DEFAULT and
 * on a created context, and (typed) the C11 generic interface with and
 * without a context; into the symmetric heap and into the program's static
 * data; between every pair of PEs (each PE to itself too).
 *
 * Every transfer lands in a slot of its own framed by guard elements; every
 * element of the slot is checked, so a wrong value, a wrong stride and a write
 * past either end all show.  Values depend on the source PE, the element and
 * a per-case seed, so data left from an earlier case does not pass. */
#include <string.h>

#include "shtest_modes.h"

#define N 13      /* elements per transfer */
#define GUARD 4   /* untouched elements on each side of a slot */
#define SPAN 48   /* room for the widest shape's extent */
#define SLOT (GUARD + SPAN + GUARD)
#define MAXPE 16
#define MAXELEM 16 /* long double, 128 bits */

/* nblocks blocks of bsize elements; block b at b*dstride on the destination
 * side and b*sstride on the source side (in elements). */
struct shape {
    size_t bsize, nblocks;
    ptrdiff_t dstride, sstride;
};
static const struct shape CONTIG = {N, 1, N, N}, STRIDED = {1, N, 2, 3}, BLOCKED = {3, 4, 5, 4};
/* p and g move one element per call: fewer, to keep the network layouts quick */
static const struct shape SINGLES = {5, 1, 5, 5};

/* the puts first, then the gets (GET is the first get) */
enum op { PUT, PUT_NBI, P, IPUT, IBPUT, GET, GET_NBI, G, IGET, IBGET, NOPS };
static const char *const OP_NAME[] = {"put", "put_nbi", "p", "iput", "ibput", "get", "get_nbi", "g", "iget", "ibget"};
enum mem { HEAP, STATIC, NMEMS };
static const char *const MEM_NAME[] = {"heap", "static"};
/* Every mode into the heap; into static data the modes that differ in how the
 * address is reached (a region lookup that the mode does not change). */
static const struct {
    enum mem mem;
    enum mode mode;
} COMBOS[] = {{HEAP, PLAIN},  {HEAP, CTX_DEFAULT}, {HEAP, CTX_MADE},       {HEAP, GENERIC},
              {HEAP, GENERIC_CTX}, {STATIC, PLAIN}, {STATIC, CTX_MADE}, {STATIC, GENERIC_CTX}};
#define NCOMBOS (int)(sizeof COMBOS / sizeof COMBOS[0])

static const struct shape *shape_of(int op)
{
    return op == IPUT || op == IGET     ? &STRIDED
           : op == IBPUT || op == IBGET ? &BLOCKED
           : op == P || op == G         ? &SINGLES
                                        : &CONTIG;
}

/* Element k's place on the destination (dest != 0) or source side. */
static ptrdiff_t pos(const struct shape *s, size_t k, int dest)
{
    return (ptrdiff_t)(k / s->bsize) * (dest ? s->dstride : s->sstride) + (ptrdiff_t)(k % s->bsize);
}

/* Which element belongs at destination place q (relative to the span), or -1. */
static long element_at(const struct shape *s, ptrdiff_t q)
{
    if (q < 0 || q >= SPAN)
        return -1;
    size_t b = (size_t)(q / s->dstride), j = (size_t)(q % s->dstride);
    return b < s->nblocks && j < s->bsize ? (long)(b * s->bsize + j) : -1;
}

static int seed;
#define NFAMILIES_MAX 30 /* 24 types, 5 sizes, mem */

/* the operations beyond put/get (nbi) each family has */
#define EXTRA_mem(K, ID, T)
#define EXTRA_sized(K, ID, T)                                                                                 \
    case IPUT: CALL(K, ID, m, , iput, , remote, local, s->dstride, s->sstride, s->nblocks, pe); break;        \
    case IGET: CALL(K, ID, m, , iget, , local, remote, s->dstride, s->sstride, s->nblocks, pe); break;        \
    case IBPUT:                                                                                               \
        CALL(K, ID, m, , ibput, , remote, local, s->dstride, s->sstride, s->bsize, s->nblocks, pe);           \
        break;                                                                                                \
    case IBGET:                                                                                               \
        CALL(K, ID, m, , ibget, , local, remote, s->dstride, s->sstride, s->bsize, s->nblocks, pe);           \
        break;
#define EXTRA_typed(K, ID, T)                                                                                 \
    EXTRA_sized(K, ID, T) case P:                                                                             \
    for (size_t k = 0; k < n; k++)                                                                            \
        CALL(K, ID, m, , p, , remote + k, local[k], pe);                                                      \
    break;                                                                                                    \
    case G:                                                                                                   \
        for (size_t k = 0; k < n; k++)                                                                        \
            CALL(K, ID, m, local[k] =, g, , remote + k, pe);                                                  \
        break;

#define OPS_typed ((1u << NOPS) - 1)
#define OPS_sized (OPS_typed & ~(1u << P | 1u << G))
#define OPS_mem (1u << PUT | 1u << PUT_NBI | 1u << GET | 1u << GET_NBI)

/* One family: its values, a slot's layout and check, one transfer, and the
 * steps of a case (op x PE) for all families at once. */
#define FAMILY(K, ID, T)                                                                                      \
    static T val_##ID(int pe, size_t k) { return (T)((pe * 37 + (int)k * 11 + seed * 5) % 97 + 1); }          \
    static void layout_##ID(T *slot, const struct shape *s, int pe, int dest)                                 \
    {                                                                                                         \
        for (size_t q = 0; q < SLOT; q++)                                                                     \
            slot[q] = (T)-3;                                                                                  \
        for (size_t k = 0; pe >= 0 && k < s->bsize * s->nblocks; k++)                                         \
            slot[GUARD + pos(s, k, dest)] = val_##ID(pe, k);                                                  \
    }                                                                                                         \
    static void check_##ID(const char *what, const char *op, const T *slot, const struct shape *s, int pe)    \
    {                                                                                                         \
        for (ptrdiff_t q = 0; q < SLOT; q++) {                                                                \
            long k = element_at(s, q - GUARD);                                                                \
            T want = k < 0 || pe < 0 ? (T)-3 : val_##ID(pe, (size_t)k);                                       \
            SHT_CHECK(slot[q] == want, "%s %s %s with PE %d: slot[%td] = %g, expected %g", #ID, op, what,     \
                      pe, q, (double)slot[q], (double)want);                                                  \
        }                                                                                                     \
    }                                                                                                         \
    static void xfer_##ID(enum op op, enum mode m, T *remote, T *local, const struct shape *s, int pe)        \
    {                                                                                                         \
        size_t n = s->bsize * s->nblocks;                                                                     \
        (void)n;                                                                                              \
        switch (op) {                                                                                         \
        case PUT: CALL(K, ID, m, , put, , remote, local, n, pe); break;                                       \
        case PUT_NBI: CALL(K, ID, m, , put, _nbi, remote, local, n, pe); break;                               \
        case GET: CALL(K, ID, m, , get, , local, remote, n, pe); break;                                       \
        case GET_NBI: CALL(K, ID, m, , get, _nbi, local, remote, n, pe); break;                               \
            EXTRA_##K(K, ID, T) default : break;                                                              \
        }                                                                                                     \
    }                                                                                                         \
    /* The puts: every PE lays out its sources and clears its destinations,                                   \
     * puts into its slot of every put op's group at every PE (all ops, all                                   \
     * families at once), and checks every slot. */                                                           \
    static T put_src_##ID[GET][SLOT];                                                                         \
    static void put_prepare_##ID(unsigned char *area)                                                         \
    {                                                                                                         \
        T *dst = (T *)area;                                                                                   \
        int me = shmem_my_pe(), npes = shmem_n_pes();                                                         \
        for (int op = 0; op < GET; op++) {                                                                    \
            for (int pe = 0; pe < npes; pe++)                                                                 \
                layout_##ID(dst + (op * npes + pe) * SLOT, shape_of(op), -1, 1);                              \
            layout_##ID(put_src_##ID[op], shape_of(op), me, 0);                                               \
        }                                                                                                     \
    }                                                                                                         \
    static void put_issue_##ID(enum mode m, unsigned char *area)                                              \
    {                                                                                                         \
        T *dst = (T *)area;                                                                                   \
        int me = shmem_my_pe(), npes = shmem_n_pes();                                                         \
        for (int op = 0; op < GET; op++)                                                                      \
            for (int i = 1; (OPS_##K & 1u << op) && i <= npes; i++)                                           \
                if (reaches(m, i, npes))                                                                      \
                    xfer_##ID(op, m, dst + (op * npes + me) * SLOT + GUARD,                                   \
                              put_src_##ID[op] + GUARD, shape_of(op), (me + i) % npes);                       \
    }                                                                                                         \
    static void put_check_##ID(enum mode m, unsigned char *area, const char *what)                            \
    {                                                                                                         \
        T *dst = (T *)area;                                                                                   \
        int me = shmem_my_pe(), npes = shmem_n_pes();                                                         \
        for (int op = 0; op < GET; op++)                                                                      \
            for (int pe = 0; (OPS_##K & 1u << op) && pe < npes; pe++)                                         \
                check_##ID(what, OP_NAME[op], dst + (op * npes + pe) * SLOT, shape_of(op),                    \
                           reaches(m, offset_to(pe, me, npes), npes) ? pe : -1);                              \
    }                                                                                                         \
    /* The gets: every PE lays its values out in a source slot per get op, gets                               \
     * from every PE with every op (all families outstanding at once), completes                              \
     * them and checks what it got. */                                                                        \
    static T got_##ID[NOPS - GET][MAXPE][SLOT];                                                               \
    static void get_prepare_##ID(unsigned char *area)                                                         \
    {                                                                                                         \
        T *src = (T *)area;                                                                                   \
        for (int op = GET; op < NOPS; op++) {                                                                 \
            layout_##ID(src + (op - GET) * SLOT, shape_of(op), shmem_my_pe(), 0);                             \
            for (int pe = 0; pe < shmem_n_pes(); pe++)                                                        \
                layout_##ID(got_##ID[op - GET][pe], shape_of(op), -1, 1);                                     \
        }                                                                                                     \
    }                                                                                                         \
    static void get_issue_##ID(enum mode m, unsigned char *area)                                              \
    {                                                                                                         \
        T *src = (T *)area;                                                                                   \
        int me = shmem_my_pe(), npes = shmem_n_pes();                                                         \
        for (int op = GET; op < NOPS; op++)                                                                   \
            for (int i = 1; (OPS_##K & 1u << op) && i <= npes; i++)                                           \
                if (reaches(m, i, npes))                                                                      \
                    xfer_##ID(op, m, src + (op - GET) * SLOT + GUARD,                                         \
                              got_##ID[op - GET][(me + i) % npes] + GUARD, shape_of(op), (me + i) % npes);    \
    }                                                                                                         \
    static void get_check_##ID(enum mode m, unsigned char *area, const char *what)                            \
    {                                                                                                         \
        int me = shmem_my_pe(), npes = shmem_n_pes();                                                         \
        (void)area;                                                                                           \
        for (int op = GET; op < NOPS; op++)                                                                   \
            for (int pe = 0; (OPS_##K & 1u << op) && pe < npes; pe++)                                         \
                check_##ID(what, OP_NAME[op], got_##ID[op - GET][pe], shape_of(op),                           \
                           reaches(m, offset_to(me, pe, npes), npes) ? pe : -1);                              \
    }

#define TYPED(ID, T) FAMILY(typed, ID, T)
SHT_RMA_TYPES(TYPED)
SHT_SIZED_FAMILIES(FAMILY)

/* the families, each with its steps */
typedef void prepare_fn(unsigned char *area);
typedef void issue_fn(enum mode m, unsigned char *area);
typedef void check_fn(enum mode m, unsigned char *area, const char *what);
static const struct family {
    enum mode modes; /* the modes it has: all, or those before GENERIC */
    prepare_fn *put_prepare, *get_prepare;
    issue_fn *put_issue, *get_issue;
    check_fn *put_check, *get_check;
} FAMILIES[] = {
#define ENTRY(K, ID, T)                                                                                       \
    {MODES_##K, put_prepare_##ID, get_prepare_##ID, put_issue_##ID, get_issue_##ID, put_check_##ID, get_check_##ID},
#define TYPED_ENTRY(ID, T) ENTRY(typed, ID, T)
    SHT_RMA_TYPES(TYPED_ENTRY) SHT_SIZED_FAMILIES(ENTRY)};
#define NFAMILIES (int)(sizeof FAMILIES / sizeof FAMILIES[0])
_Static_assert(NFAMILIES <= NFAMILIES_MAX, "the static areas are too small");

/* Each family's part of the areas (sized for MAXELEM-byte elements). */
#define DST_BYTES(npes) ((size_t)GET * (size_t)(npes) * SLOT * MAXELEM)
#define SRC_BYTES ((size_t)(NOPS - GET) * SLOT * MAXELEM)
/* the static data: the destinations in .bss, the sources in .data */
static _Alignas(64) unsigned char static_dst[NFAMILIES_MAX * DST_BYTES(MAXPE)];
_Alignas(64) unsigned char global_src[NFAMILIES_MAX * SRC_BYTES] = {1};

/* One combination of mode and memory, every family at once: four barriers. */
static void run(enum mode m, unsigned char *dst, unsigned char *src, const char *what)
{
    size_t dst_bytes = DST_BYTES(shmem_n_pes());
#define EACH(call)                                                                                            \
    for (int f = 0; f < NFAMILIES; f++)                                                                       \
        if (m < FAMILIES[f].modes)                                                                            \
            FAMILIES[f].call;
#define DST (dst + (size_t)f * dst_bytes)
#define SRC (src + (size_t)f * SRC_BYTES)
    seed++;
    EACH(put_prepare(DST))
    sht_barrier();
    EACH(put_issue(m, DST))
    complete(m);
    sht_barrier();
    EACH(put_check(m, DST, what))
    EACH(get_prepare(SRC))
    sht_barrier();
    EACH(get_issue(m, SRC))
    complete(m);
    EACH(get_check(m, SRC, what))
    sht_barrier(); /* before anyone lays out the next case */
}

int main(void)
{
    shmem_init();
    sht_require_pes(MAXPE);
    int npes = shmem_n_pes();
    sht_make_ctx(SHMEM_CTX_SERIALIZED);
    unsigned char *dst[NMEMS] = {shmem_malloc(NFAMILIES * DST_BYTES(npes)), static_dst};
    unsigned char *src[NMEMS] = {shmem_malloc(NFAMILIES * SRC_BYTES), global_src};
    SHT_CHECK(dst[HEAP] && src[HEAP], "shmem_malloc returned NULL");
    for (int i = 0; dst[HEAP] && src[HEAP] && i < NCOMBOS; i++) {
        char what[64];
        snprintf(what, sizeof what, "%s/%s", MODE_NAME[COMBOS[i].mode], MEM_NAME[COMBOS[i].mem]);
        run(COMBOS[i].mode, dst[COMBOS[i].mem], src[COMBOS[i].mem], what);
    }
    shmem_ctx_destroy(sht_ctx);
    shmem_free(src[HEAP]);
    shmem_free(dst[HEAP]);
    return sht_finish("rma");
}
