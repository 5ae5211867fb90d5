/* The datatype module against the host MPI's own view of the same types:
 * gathering bytes along a layout's cursor must equal MPI_Pack, scattering
 * along it must equal MPI_Unpack, the paired walk must equal Pack + Unpack,
 * sizes and extents must equal MPI's, and the cache must follow MPI_Type_free.
 * Runs on one process (the layouts are local). */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/datatype.h"

#include "unit_check.h"

#define BUF 65536
#define BIAS 8192 /* room for negative displacements */

static unsigned char src[BUF], dst[BUF], ref[BUF], packed[BUF], mine[BUF];

static void fill(unsigned char *b, unsigned seed)
{
    for (int i = 0; i < BUF; i++)
        b[i] = (unsigned char)((i * 2654435761u + seed) >> 13);
}

/* Gathering along a layout's runs (remora_dt_runs): each run's blocks in turn. */
struct runs_gather {
    MPI_Aint at, len, blocks;
    int bad_index;
};

static int gather_run(const struct remora_dt_run *r, MPI_Aint index, void *arg)
{
    struct runs_gather *g = arg;
    g->bad_index |= index != g->blocks;
    for (MPI_Aint i = 0; i < r->n; i++, g->at += g->len)
        memcpy(mine + g->at, src + BIAS + r->first + i * r->stride, (size_t)g->len);
    g->blocks += r->n;
    return 0;
}

/* Gather/scatter of (BIAS-based buffer, count, type) compared with Pack/Unpack. */
static void check_type(const char *name, MPI_Datatype t, int count)
{
    const struct remora_dt *dt;
    int rc = remora_dt_get(t, &dt);
    CHECK(rc == MPI_SUCCESS, "%s: remora_dt_get returned %d", name, rc);
    if (rc != MPI_SUCCESS)
        return;
    int size;
    MPI_Aint lb, ext, tlb, text;
    MPI_Type_size(t, &size);
    MPI_Type_get_extent(t, &lb, &ext);
    MPI_Type_get_true_extent(t, &tlb, &text);
    CHECK(dt->size == size && dt->lb == lb && dt->extent == ext && dt->true_lb == tlb && dt->true_extent == text,
          "%s: size/extent differ from MPI's", name);
    MPI_Aint total = 0;
    for (size_t i = 0; i < dt->nblocks; i++)
        total += dt->blocks[i].len;
    CHECK(total == size, "%s: blocks hold %ld bytes, MPI_Type_size says %d", name, (long)total, size);

    fill(src, 1);
    int pos = 0;
    MPI_Pack(src + BIAS, count, t, packed, BUF, &pos, MPI_COMM_SELF);
    /* gather along the cursor, in pieces of varying size */
    struct remora_dt_cursor c;
    remora_dt_cursor_init(&c, dt, count);
    MPI_Aint d, len, at = 0, max = 1;
    while ((len = remora_dt_cursor_next(&c, max, &d)) > 0) {
        memcpy(mine + at, src + BIAS + d, (size_t)len);
        at += len;
        max = max * 3 % 97 + 1;
    }
    CHECK(at == pos, "%s x%d: cursor gave %ld bytes, MPI_Pack %d", name, count, (long)at, pos);
    CHECK(memcmp(mine, packed, (size_t)pos) == 0, "%s x%d: cursor bytes differ from MPI_Pack", name, count);

    /* a layout of equal blocks gathered along its runs packs as MPI_Pack does */
    struct runs_gather g = {0, dt->nblocks ? dt->blocks[0].len : 0, 0, 0};
    int equal = dt->nblocks > 0;
    for (size_t i = 1; i < dt->nblocks; i++)
        equal &= dt->blocks[i].len == g.len;
    memset(mine, 0, (size_t)pos);
    rc = remora_dt_runs(dt, count, g.len, gather_run, &g);
    CHECK(equal ? rc == 0 : rc == -1 && g.at == 0, "%s x%d: remora_dt_runs returned %d", name, count, rc);
    CHECK(!equal || (g.at == pos && !g.bad_index && memcmp(mine, packed, (size_t)pos) == 0),
          "%s x%d: the runs gather %ld bytes unlike MPI_Pack's %d", name, count, (long)g.at, pos);

    /* scatter: the same bytes land where MPI_Unpack puts them, and nowhere else */
    fill(ref, 2);
    fill(dst, 2);
    int upos = 0;
    MPI_Unpack(packed, pos, &upos, ref + BIAS, count, t, MPI_COMM_SELF);
    remora_dt_cursor_init(&c, dt, count);
    at = 0;
    while ((len = remora_dt_cursor_next(&c, 1 << 20, &d)) > 0) {
        memcpy(dst + BIAS + d, packed + at, (size_t)len);
        at += len;
    }
    CHECK(memcmp(dst, ref, BUF) == 0, "%s x%d: scatter differs from MPI_Unpack", name, count);
}

/* The paired walk between two types of one signature equals Pack(o) + Unpack(t). */
struct walk { unsigned char *o, *t; };

static int copy_piece(MPI_Aint od, MPI_Aint td, MPI_Aint len, void *arg)
{
    struct walk *w = arg;
    memcpy(w->t + td, w->o + od, (size_t)len);
    return 0;
}

static void check_pair(const char *name, MPI_Datatype o, int ocount, MPI_Datatype t, int tcount)
{
    const struct remora_dt *od, *td;
    if (remora_dt_get(o, &od) != MPI_SUCCESS || remora_dt_get(t, &td) != MPI_SUCCESS) {
        CHECK(0, "%s: remora_dt_get failed", name);
        return;
    }
    fill(src, 3);
    fill(ref, 4);
    fill(dst, 4);
    int pos = 0, upos = 0;
    MPI_Pack(src + BIAS, ocount, o, packed, BUF, &pos, MPI_COMM_SELF);
    MPI_Unpack(packed, pos, &upos, ref + BIAS, tcount, t, MPI_COMM_SELF);
    struct walk w = {src + BIAS, dst + BIAS};
    int rc = remora_dt_pair_walk(od, ocount, td, tcount, copy_piece, &w);
    CHECK(rc == 0, "%s: pair walk returned %d", name, rc);
    CHECK(memcmp(dst, ref, BUF) == 0, "%s: pair walk differs from Pack+Unpack", name);
    CHECK(remora_dt_pair_walk(od, ocount + 1, td, tcount, copy_piece, &w) == MPI_ERR_TYPE,
          "%s: a signature mismatch went unnoticed", name);
}

static MPI_Datatype commit(MPI_Datatype t)
{
    MPI_Type_commit(&t);
    return t;
}

/* Many threads asking for one new type at once get one layout. */
static MPI_Datatype shared_type;
static const struct remora_dt *seen[8];

static void *ask(void *arg)
{
    long i = (long)arg;
    remora_dt_get(shared_type, &seen[i]);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Datatype t[32];
    int n = 0;
    const char *names[32];
#define ADD(nm, expr) (names[n] = nm, t[n++] = commit(expr))
    MPI_Datatype tmp, tmp2;

    MPI_Type_contiguous(5, MPI_INT, &tmp);
    ADD("contiguous", tmp);
    MPI_Type_vector(4, 3, 7, MPI_DOUBLE, &tmp);
    ADD("vector", tmp);
    MPI_Type_vector(3, 2, -4, MPI_INT, &tmp);
    ADD("vector negative stride", tmp);
    MPI_Type_create_hvector(3, 2, 40, MPI_SHORT, &tmp);
    ADD("hvector", tmp);
    int bl[3] = {2, 1, 3}, di[3] = {5, 0, 9};
    MPI_Type_indexed(3, bl, di, MPI_FLOAT, &tmp);
    ADD("indexed (out of order)", tmp);
    MPI_Aint hd[3] = {64, 0, 200};
    MPI_Type_create_hindexed(3, bl, hd, MPI_INT, &tmp);
    ADD("hindexed", tmp);
    MPI_Type_create_indexed_block(3, 2, di, MPI_LONG, &tmp);
    ADD("indexed_block", tmp);
    MPI_Type_create_hindexed_block(3, 2, hd, MPI_CHAR, &tmp);
    ADD("hindexed_block", tmp);
    int sbl[3] = {1, 2, 1};
    MPI_Aint sd[3] = {0, 8, 32};
    MPI_Datatype st[3] = {MPI_CHAR, MPI_DOUBLE, MPI_INT};
    MPI_Type_create_struct(3, sbl, sd, st, &tmp);
    ADD("struct mixed", tmp);
    int sizes[3] = {6, 5, 4}, sub[3] = {3, 2, 2}, starts[3] = {1, 2, 1};
    MPI_Type_create_subarray(3, sizes, sub, starts, MPI_ORDER_C, MPI_INT, &tmp);
    ADD("subarray C", tmp);
    MPI_Type_create_subarray(3, sizes, sub, starts, MPI_ORDER_FORTRAN, MPI_DOUBLE, &tmp);
    ADD("subarray Fortran", tmp);
    int gs[2] = {10, 9}, dist[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC},
        dargs[2] = {MPI_DISTRIBUTE_DFLT_DARG, 2}, ps[2] = {2, 3};
    MPI_Type_create_darray(6, 4, 2, gs, dist, dargs, ps, MPI_ORDER_C, MPI_INT, &tmp);
    ADD("darray C block/cyclic(2)", tmp);
    int dist2[2] = {MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_NONE}, dargs2[2] = {MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG},
        ps2[2] = {3, 1};
    MPI_Type_create_darray(3, 2, 2, gs, dist2, dargs2, ps2, MPI_ORDER_FORTRAN, MPI_DOUBLE, &tmp);
    ADD("darray Fortran cyclic/none", tmp);
    MPI_Type_vector(2, 1, 3, MPI_INT, &tmp2);
    MPI_Type_create_resized(tmp2, -8, 20, &tmp);
    MPI_Type_free(&tmp2);
    ADD("resized lb<0", tmp);
    MPI_Type_dup(t[1], &tmp);
    ADD("dup of vector", tmp);
    MPI_Type_vector(2, 2, 3, t[4], &tmp2);
    MPI_Type_contiguous(2, tmp2, &tmp);
    MPI_Type_free(&tmp2);
    ADD("nested contiguous(vector(indexed))", tmp);
    int sbl2[2] = {2, 1};
    MPI_Aint sd2[2] = {0, 100};
    MPI_Datatype st2[2] = {t[1], MPI_DOUBLE};
    MPI_Type_create_struct(2, sbl2, sd2, st2, &tmp);
    ADD("struct of one basic type", tmp);
    ADD("MPI_DOUBLE_INT (pair with a hole)", MPI_DOUBLE_INT);
    ADD("MPI_SHORT_INT", MPI_SHORT_INT);
    /* rows decoded as one block each (grid): of bytes as ARMCI-MPI makes
     * them, and of a child with gaps, where they are not */
    int bsizes[2] = {6, 40}, bsub[2] = {3, 16}, bstarts[2] = {2, 8};
    MPI_Type_create_subarray(2, bsizes, bsub, bstarts, MPI_ORDER_C, MPI_BYTE, &tmp);
    ADD("subarray of bytes (rows as blocks)", tmp);
    MPI_Type_vector(2, 1, 2, MPI_INT, &tmp2);
    int vsizes[2] = {4, 5}, vsub[2] = {2, 3}, vstarts[2] = {1, 1};
    MPI_Type_create_subarray(2, vsizes, vsub, vstarts, MPI_ORDER_FORTRAN, tmp2, &tmp);
    MPI_Type_free(&tmp2);
    ADD("subarray Fortran of a vector (child with a gap)", tmp);
    int bgs[2] = {6, 8}, bdist[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_BLOCK},
        bdarg[2] = {MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG}, bps[2] = {2, 2};
    MPI_Type_create_darray(4, 3, 2, bgs, bdist, bdarg, bps, MPI_ORDER_C, MPI_SHORT, &tmp);
    ADD("darray C block/block (rows as blocks)", tmp);
    MPI_Type_vector(6, 1, 6, MPI_INT, &tmp2); /* a column of a 6x6 int matrix */
    MPI_Type_create_hvector(6, 1, sizeof(int), tmp2, &tmp);
    MPI_Type_free(&tmp2);
    ADD("transpose of 6x6 ints (hvector of columns: runs per column)", tmp);
#undef ADD
    for (int i = 0; i < n; i++)
        for (int count = 1; count <= 3; count++)
            check_type(names[i], t[i], count);

    /* basic type: one predefined type or mixed */
    const struct remora_dt *dt;
    remora_dt_get(t[8], &dt);
    CHECK(dt->basic == MPI_DATATYPE_NULL, "mixed struct reports a basic type");
    remora_dt_get(t[16], &dt);
    CHECK(dt->basic == MPI_DOUBLE, "struct of doubles reports another basic type");
    remora_dt_get(t[10], &dt);
    CHECK(dt->basic == MPI_DOUBLE && dt->basic_size == 8, "subarray of doubles: basic type wrong");
    remora_dt_get(t[0], &dt);
    CHECK(!dt->contiguous || dt->nblocks == 1, "contiguous flag without one block");

    /* same signature, different layouts */
    check_pair("vector(4x3 double) -> contiguous 12 doubles", t[1], 1, MPI_DOUBLE, 12);
    MPI_Datatype c6 = commit((MPI_Type_contiguous(6, MPI_INT, &tmp), tmp));
    check_pair("indexed floats -> 6 ints", t[4], 1, MPI_INT, 6);
    check_pair("subarray C -> vector", t[9], 1, c6, 2);
    check_pair("darray -> hindexed ints", t[11], 2, MPI_INT, 2 * 15);

    /* cache: same pointer twice; a freed and re-made type is decoded anew */
    const struct remora_dt *a, *b;
    remora_dt_get(t[1], &a);
    remora_dt_get(t[1], &b);
    CHECK(a == b, "the cache returned two layouts for one type");
    for (int round = 0; round < 50; round++) {
        MPI_Type_vector(2 + round % 5, 1, 2, MPI_INT, &tmp);
        MPI_Type_commit(&tmp);
        remora_dt_get(tmp, &a);
        CHECK(a->size == (MPI_Aint)sizeof(int) * (2 + round % 5), "round %d: stale layout after free/re-create", round);
        MPI_Type_free(&tmp);
    }
    /* many threads, one new type */
    MPI_Type_vector(3, 2, 5, MPI_INT, &shared_type);
    MPI_Type_commit(&shared_type);
    pthread_t th[8];
    for (long i = 0; i < 8; i++)
        pthread_create(&th[i], NULL, ask, (void *)i);
    for (int i = 0; i < 8; i++)
        pthread_join(th[i], NULL);
    for (int i = 1; i < 8; i++)
        CHECK(seen[i] == seen[0] && seen[0], "threads got different layouts for one type");
    MPI_Type_free(&shared_type);
    CHECK(remora_dt_get(MPI_DATATYPE_NULL, &a) == MPI_ERR_TYPE, "MPI_DATATYPE_NULL accepted");

    for (int i = 0; i < n; i++)
        if (t[i] != MPI_DOUBLE_INT && t[i] != MPI_SHORT_INT)
            MPI_Type_free(&t[i]);
    MPI_Type_free(&c6);
    remora_dt_finalize();
    MPI_Finalize();
    return unit_result();
}
