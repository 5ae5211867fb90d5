/* MPI_Put and MPI_Get with derived datatypes on either side: every pair of
 * 16 layouts of the same type signature (96 ints) - contiguous, vector,
 * hvector, indexed, hindexed, indexed_block, hindexed_block, struct,
 * subarray, darray, resized, dup, nested, a predefined MPI_INT, and two
 * regular runs of blocks (a vector whose elements continue its run, and
 * blocks at descending addresses, which Remora moves without its general
 * datatype walk) - as
 * origin and target types.  Each transfer goes to the right neighbour inside
 * fences; the expected memory is computed with MPI_Pack/MPI_Unpack of the
 * host MPI, so every byte of the window is checked, also those the target
 * layout must leave untouched. */
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

#define NINTS 96          /* the common signature: 96 MPI_INTs */
#define BUF_INTS 1024     /* every layout's extent fits */
#define SENTINEL (-7)

struct layout {
    const char *name;
    MPI_Datatype type;
    int count;            /* elements of type that carry NINTS ints */
};

static struct layout layouts[24];
static int nlayouts;

static void add(const char *name, MPI_Datatype t, int count)
{
    if (t != MPI_INT)
        MPI_Type_commit(&t);
    layouts[nlayouts++] = (struct layout){name, t, count};
}

static void make_layouts(void)
{
    MPI_Datatype t, inner;
    add("int", MPI_INT, NINTS);
    MPI_Type_contiguous(NINTS, MPI_INT, &t);
    add("contiguous", t, 1);
    MPI_Type_vector(12, 4, 7, MPI_INT, &t);                   /* 48 ints */
    add("vector", t, 2);
    MPI_Type_create_hvector(8, 3, 20 * sizeof(int), MPI_INT, &t); /* 24 ints */
    add("hvector", t, 4);
    int bl[5] = {1, 5, 2, 8, 8}, dp[5] = {30, 0, 9, 12, 40};  /* 24 ints, out of order */
    MPI_Type_indexed(5, bl, dp, MPI_INT, &t);
    add("indexed", t, 4);
    MPI_Aint hdp[5] = {120, 0, 36, 48, 160};
    MPI_Type_create_hindexed(5, bl, hdp, MPI_INT, &t);
    add("hindexed", t, 4);
    int ibd[4] = {20, 0, 7, 14};                               /* 4 x 3 = 12 ints */
    MPI_Type_create_indexed_block(4, 3, ibd, MPI_INT, &t);
    add("indexed_block", t, 8);
    MPI_Aint hbd[4] = {80, 0, 28, 56};
    MPI_Type_create_hindexed_block(4, 3, hbd, MPI_INT, &t);
    add("hindexed_block", t, 8);
    int sbl[3] = {2, 3, 1};                                    /* 6 ints */
    MPI_Aint sdp[3] = {0, 16, 40};
    MPI_Datatype sty[3] = {MPI_INT, MPI_INT, MPI_INT};
    MPI_Type_create_struct(3, sbl, sdp, sty, &t);
    add("struct", t, 16);
    int sizes[3] = {6, 5, 8}, sub[3] = {4, 3, 8}, start[3] = {1, 2, 0}; /* 96 ints */
    MPI_Type_create_subarray(3, sizes, sub, start, MPI_ORDER_C, MPI_INT, &t);
    add("subarray", t, 1);
    /* process 1 of a 2x2 grid over a 12x32 array, block-cyclic(2) columns: 96 ints */
    int gs[2] = {12, 32}, distrib[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC};
    int dargs[2] = {MPI_DISTRIBUTE_DFLT_DARG, 2}, psizes[2] = {2, 2};
    MPI_Type_create_darray(4, 1, 2, gs, distrib, dargs, psizes, MPI_ORDER_C, MPI_INT, &t);
    add("darray", t, 1);
    MPI_Type_contiguous(2, MPI_INT, &inner);                   /* 2 ints, extent 5 ints */
    MPI_Type_create_resized(inner, 0, 5 * sizeof(int), &t);
    MPI_Type_free(&inner);
    add("resized", t, 48);
    MPI_Type_vector(12, 4, 7, MPI_INT, &inner);
    MPI_Type_dup(inner, &t);
    MPI_Type_free(&inner);
    add("dup", t, 2);
    MPI_Type_vector(12, 4, 7, MPI_INT, &inner);               /* 48 ints, extent 12 x 7 ints */
    MPI_Type_create_resized(inner, 0, 12 * 7 * sizeof(int), &t);
    MPI_Type_free(&inner);
    add("vector_run", t, 2);
    MPI_Aint desc[24];                                         /* 24 x 4 ints, descending */
    for (int i = 0; i < 24; i++)
        desc[i] = (MPI_Aint)(23 - i) * 7 * sizeof(int);
    MPI_Type_create_hindexed_block(24, 4, desc, MPI_INT, &t);
    add("descending", t, 1);
    MPI_Datatype idx;                                          /* vector of 3 x indexed(8 ints) */
    int nbl[2] = {3, 5}, ndp[2] = {5, 0};
    MPI_Type_indexed(2, nbl, ndp, MPI_INT, &idx);
    MPI_Type_create_hvector(3, 1, 11 * sizeof(int), idx, &t);
    MPI_Type_free(&idx);
    add("nested", t, 4);
}

/* The memory (buf filled with SENTINEL) after unpacking src's (type, count) data into (dtype, dcount). */
static void expected(const int *src, const struct layout *from, const struct layout *to, int *out)
{
    char packed[NINTS * sizeof(int) + 64];
    int pos = 0;
    MPI_Pack(src, from->count, from->type, packed, sizeof packed, &pos, MPI_COMM_SELF);
    MTEST_CHECK(pos == NINTS * (int)sizeof(int), "%s packs %d bytes", from->name, pos);
    for (int i = 0; i < BUF_INTS; i++)
        out[i] = SENTINEL;
    pos = 0;
    MPI_Unpack(packed, sizeof packed, &pos, out, to->count, to->type, MPI_COMM_SELF);
}

int main(int argc, char **argv)
{
    mtest_init(&argc, &argv, MPI_THREAD_SINGLE);
    make_layouts();
    int rank = mtest.rank, size = mtest.size;
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int *base, *origin = malloc(BUF_INTS * sizeof(int)), *want = malloc(BUF_INTS * sizeof(int));
    int *src = malloc(BUF_INTS * sizeof(int));
    /* MPI_Win_allocate memory (load/store) and MPI_Win_create on malloc
     * memory (process_vm_readv/writev under Remora) */
    for (int kind = 0; kind < 2; kind++) {
    MPI_Win win;
    int *heap = NULL;
    if (kind == 0)
        MTEST_MPI(MPI_Win_allocate(BUF_INTS * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
    else
        MTEST_MPI(MPI_Win_create(base = heap = malloc(BUF_INTS * sizeof(int)), BUF_INTS * sizeof(int), sizeof(int),
                                 MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    for (int o = 0; o < nlayouts; o++) {
        for (int t = 0; t < nlayouts; t++) {
            const struct layout *ol = &layouts[o], *tl = &layouts[t];
            mtest_set_context("%s window, origin %s, target %s", kind ? "create" : "allocate", ol->name, tl->name);
            /* put: my origin buffer into my right neighbour's window */
            for (int i = 0; i < BUF_INTS; i++) {
                origin[i] = rank * 100000 + o * 1000 + i;
                base[i] = SENTINEL;
            }
            MTEST_MPI(MPI_Win_fence(0, win));
            MTEST_MPI(MPI_Put(origin, ol->count, ol->type, right, 0, tl->count, tl->type, win));
            MTEST_MPI(MPI_Win_fence(0, win));
            for (int i = 0; i < BUF_INTS; i++)
                src[i] = left * 100000 + o * 1000 + i; /* what my left neighbour put */
            expected(src, ol, tl, want);
            int bad = -1;
            for (int i = 0; i < BUF_INTS && bad < 0; i++)
                if (base[i] != want[i])
                    bad = i;
            MTEST_CHECK(bad < 0, "put: int %d of the target is %d, expected %d", bad, bad < 0 ? 0 : base[bad],
                        bad < 0 ? 0 : want[bad]);
            /* get: my right neighbour's window (a pattern) through the target type into mine */
            for (int i = 0; i < BUF_INTS; i++) {
                base[i] = rank * 100000 + t * 1000 + i + 50000;
                origin[i] = SENTINEL;
            }
            MTEST_MPI(MPI_Win_fence(0, win));
            MTEST_MPI(MPI_Get(origin, ol->count, ol->type, right, 0, tl->count, tl->type, win));
            MTEST_MPI(MPI_Win_fence(0, win));
            for (int i = 0; i < BUF_INTS; i++)
                src[i] = right * 100000 + t * 1000 + i + 50000;
            expected(src, tl, ol, want);
            bad = -1;
            for (int i = 0; i < BUF_INTS && bad < 0; i++)
                if (origin[i] != want[i])
                    bad = i;
            MTEST_CHECK(bad < 0, "get: int %d of the origin is %d, expected %d", bad, bad < 0 ? 0 : origin[bad],
                        bad < 0 ? 0 : want[bad]);
        }
    }
    MTEST_MPI(MPI_Win_free(&win));
    free(heap);
    }
    for (int i = 1; i < nlayouts; i++)
        MPI_Type_free(&layouts[i].type);
    free(origin);
    free(want);
    free(src);
    return mtest_finish();
}
