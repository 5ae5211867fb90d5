/* Strided puts and gets larger than one network message (Remora moves a
 * regular run of blocks as one strided transfer; over messages, each
 * message takes as many of its blocks as fit): vectors of 4-, 12-, 64-,
 * 4096- and 70000-byte blocks (the last larger than a message) whose data
 * spans several messages, with a contiguous or a strided origin, behind a
 * small put that already fills part of the message, in passive (lock) and
 * active (fence) epochs; MPI_Get_accumulate through the same layouts
 * (the owner applies a strided call in chunks of blocks); and a transpose
 * by a datatype of columns on either side (a run per column).  Every byte of the target window is checked (the
 * gaps between blocks must stay untouched), and every byte of the origin
 * after a get. */
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

#define WIN_BYTES (3 << 20)
#define TOTAL (256 << 10) /* bytes moved by one transfer: four messages of 64 KiB at least */
#define SENTINEL 0x5a

static unsigned char pattern(int who, int sweep, size_t i) { return (unsigned char)(who * 31 + sweep * 7 + i % 251 + 1); }

struct shape {
    int block;    /* bytes */
    int ostrided; /* origin blocks at stride 2 * block, else packed */
};

/* MPI_Get_accumulate (MPI_SUM of ints) through the same layouts: the target
 * holds its old ints plus the left neighbour's, every other int untouched,
 * and the result (packed) the old ints. */
static void get_accumulate(MPI_Win win, int *base, int *origin, int *result, const struct shape *s, int n, int passive,
                           int right, int left)
{
    int per = s->block / (int)sizeof(int), ostride = s->ostrided ? 2 * per : per, nints = WIN_BYTES / (int)sizeof(int);
    MPI_Datatype tt, ot;
    MTEST_MPI(MPI_Type_vector(n, per, 2 * per, MPI_INT, &tt));
    MTEST_MPI(MPI_Type_vector(n, per, ostride, MPI_INT, &ot));
    MTEST_MPI(MPI_Type_commit(&tt));
    MTEST_MPI(MPI_Type_commit(&ot));
    for (int i = 0; i < nints; i++)
        base[i] = i, origin[i] = mtest.rank * 1000003 + i, result[i] = -1;
    MTEST_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (passive)
        MTEST_MPI(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win));
    else
        MTEST_MPI(MPI_Win_fence(0, win));
    MTEST_MPI(MPI_Get_accumulate(origin, 1, ot, result, n * per, MPI_INT, right, 0, 1, tt, MPI_SUM, win));
    if (passive)
        MTEST_MPI(MPI_Win_unlock(right, win));
    else
        MTEST_MPI(MPI_Win_fence(0, win));
    MTEST_MPI(MPI_Barrier(MPI_COMM_WORLD));
    int bad = -1;
    for (int i = 0; i < nints && bad < 0; i++) {
        int b = i / (2 * per), j = i % (2 * per);
        int want = b < n && j < per ? i + left * 1000003 + b * ostride + j : i;
        if (base[i] != want)
            bad = i;
    }
    MTEST_CHECK(bad < 0, "get_accumulate: int %d of the target is %d", bad, bad < 0 ? 0 : base[bad]);
    bad = -1;
    for (int i = 0; i < nints && bad < 0; i++)
        if (result[i] != (i < n * per ? i / per * 2 * per + i % per : -1))
            bad = i;
    MTEST_CHECK(bad < 0, "get_accumulate: int %d of the result is %d", bad, bad < 0 ? 0 : result[bad]);
    MPI_Type_free(&tt);
    MPI_Type_free(&ot);
}

/* A transpose: the N x N int matrix by a datatype of columns (an hvector
 * of vectors: no single run, a run per column), on the target side of a put
 * and of a get, and on the origin side of a put; the other side
 * contiguous. */
#define N 300
static void transpose(MPI_Win win, int *base, int *origin, int *want, int passive, int right, int left)
{
    MPI_Datatype column, t;
    MTEST_MPI(MPI_Type_vector(N, 1, N, MPI_INT, &column));
    MTEST_MPI(MPI_Type_create_hvector(N, 1, sizeof(int), column, &t));
    MTEST_MPI(MPI_Type_commit(&t));
    for (int way = 0; way < 3; way++) { /* put to t, get from t, put from t */
        mtest_set_context("transpose %s, %s", way == 0 ? "put into" : way == 1 ? "get from" : "put from",
                          passive ? "lock" : "fence");
        int *mem = way == 1 ? origin : base, peer = way == 1 ? right : left;
        for (int i = 0; i < N * N; i++)
            base[i] = origin[i] = -1;
        for (int i = 0; i < N * N; i++)
            (way == 1 ? base : origin)[i] = mtest.rank * 1000000 + i;
        MTEST_MPI(MPI_Barrier(MPI_COMM_WORLD));
        if (passive)
            MTEST_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win));
        else
            MTEST_MPI(MPI_Win_fence(0, win));
        if (way == 0)
            MTEST_MPI(MPI_Put(origin, N * N, MPI_INT, right, 0, 1, t, win));
        else if (way == 1)
            MTEST_MPI(MPI_Get(origin, N * N, MPI_INT, right, 0, 1, t, win));
        else
            MTEST_MPI(MPI_Put(origin, 1, t, right, 0, N * N, MPI_INT, win));
        if (passive)
            MTEST_MPI(MPI_Win_unlock(right, win));
        else
            MTEST_MPI(MPI_Win_fence(0, win));
        MTEST_MPI(MPI_Barrier(MPI_COMM_WORLD));
        for (int i = 0; i < N; i++)
            for (int j = 0; j < N; j++) /* element (i, j) of the contiguous side is (j, i) of the other */
                want[i * N + j] = peer * 1000000 + j * N + i;
        int bad = -1;
        for (int i = 0; i < N * N && bad < 0; i++)
            if (mem[i] != want[i])
                bad = i;
        MTEST_CHECK(bad < 0, "int %d is %d, expected %d", bad, bad < 0 ? 0 : mem[bad], bad < 0 ? 0 : want[bad]);
    }
    MPI_Type_free(&t);
}

int main(int argc, char **argv)
{
    mtest_init(&argc, &argv, MPI_THREAD_SINGLE);
    int rank = mtest.rank, size = mtest.size, right = (rank + 1) % size, left = (rank + size - 1) % size;
    unsigned char *base, *want = malloc(WIN_BYTES), *origin = malloc(WIN_BYTES);
    MPI_Win win;
    MTEST_MPI(MPI_Win_allocate(WIN_BYTES, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
    static const struct shape shapes[] = {{4, 0}, {4, 1}, {12, 1}, {64, 0}, {4096, 1}, {70000, 0}, {70000, 1}};
    int sweep = 0;
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++)
        for (int passive = 0; passive < 2; passive++, sweep++) {
            const struct shape *s = &shapes[k];
            int n = TOTAL / s->block;
            size_t ostride = s->ostrided ? 2 * (size_t)s->block : (size_t)s->block;
            MPI_Datatype tt, ot;
            MTEST_MPI(MPI_Type_vector(n, s->block, 2 * s->block, MPI_BYTE, &tt)); /* target: every other block */
            MTEST_MPI(MPI_Type_vector(n, s->block, (int)ostride, MPI_BYTE, &ot));
            MTEST_MPI(MPI_Type_commit(&tt));
            MTEST_MPI(MPI_Type_commit(&ot));
            mtest_set_context("%d-byte blocks, origin %s, %s", s->block, s->ostrided ? "strided" : "packed",
                              passive ? "lock" : "fence");
            /* put: 16 bytes at the end of the window, then the strided put, into the right neighbour */
            for (size_t i = 0; i < WIN_BYTES; i++)
                origin[i] = pattern(rank, sweep, i);
            memset(base, SENTINEL, WIN_BYTES);
            MTEST_MPI(MPI_Barrier(MPI_COMM_WORLD));
            if (passive)
                MTEST_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win));
            else
                MTEST_MPI(MPI_Win_fence(0, win));
            MTEST_MPI(MPI_Put(origin, 16, MPI_BYTE, right, WIN_BYTES - 16, 16, MPI_BYTE, win));
            MTEST_MPI(MPI_Put(origin, 1, ot, right, 0, 1, tt, win));
            if (passive)
                MTEST_MPI(MPI_Win_unlock(right, win));
            else
                MTEST_MPI(MPI_Win_fence(0, win));
            MTEST_MPI(MPI_Barrier(MPI_COMM_WORLD));
            memset(want, SENTINEL, WIN_BYTES);
            for (int b = 0; b < n; b++)
                for (int j = 0; j < s->block; j++)
                    want[(size_t)b * 2 * s->block + j] = pattern(left, sweep, (size_t)b * ostride + j);
            for (int j = 0; j < 16; j++)
                want[WIN_BYTES - 16 + j] = pattern(left, sweep, j);
            size_t bad = WIN_BYTES;
            for (size_t i = 0; i < WIN_BYTES && bad == WIN_BYTES; i++)
                if (base[i] != want[i])
                    bad = i;
            MTEST_CHECK(bad == WIN_BYTES, "put: byte %zu of the target is %d, expected %d", bad,
                        bad < WIN_BYTES ? base[bad] : 0, bad < WIN_BYTES ? want[bad] : 0);
            /* get: the right neighbour's window (a pattern) through the target type into the origin layout */
            for (size_t i = 0; i < WIN_BYTES; i++)
                base[i] = pattern(rank, sweep + 100, i);
            memset(origin, SENTINEL, WIN_BYTES);
            MTEST_MPI(MPI_Barrier(MPI_COMM_WORLD));
            if (passive)
                MTEST_MPI(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win));
            else
                MTEST_MPI(MPI_Win_fence(0, win));
            MTEST_MPI(MPI_Get(origin + WIN_BYTES - 16, 16, MPI_BYTE, right, 0, 16, MPI_BYTE, win));
            MTEST_MPI(MPI_Get(origin, 1, ot, right, 0, 1, tt, win));
            if (passive)
                MTEST_MPI(MPI_Win_unlock(right, win));
            else
                MTEST_MPI(MPI_Win_fence(0, win));
            memset(want, SENTINEL, WIN_BYTES);
            for (int b = 0; b < n; b++)
                for (int j = 0; j < s->block; j++)
                    want[(size_t)b * ostride + j] = pattern(right, sweep + 100, (size_t)b * 2 * s->block + j);
            for (int j = 0; j < 16; j++)
                want[WIN_BYTES - 16 + j] = pattern(right, sweep + 100, j);
            bad = WIN_BYTES;
            for (size_t i = 0; i < WIN_BYTES && bad == WIN_BYTES; i++)
                if (origin[i] != want[i])
                    bad = i;
            MTEST_CHECK(bad == WIN_BYTES, "get: byte %zu of the origin is %d, expected %d", bad,
                        bad < WIN_BYTES ? origin[bad] : 0, bad < WIN_BYTES ? want[bad] : 0);
            MTEST_MPI(MPI_Barrier(MPI_COMM_WORLD));
            if (s->block <= 4096)
                get_accumulate(win, (int *)base, (int *)origin, (int *)want, s, n, passive, right, left);
            MPI_Type_free(&tt);
            MPI_Type_free(&ot);
        }
    for (int passive = 0; passive < 2; passive++)
        transpose(win, (int *)base, (int *)origin, (int *)want, passive, right, left);
    MTEST_MPI(MPI_Win_free(&win));
    free(want);
    free(origin);
    return mtest_finish();
}
