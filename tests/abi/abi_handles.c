/* What the MPI-5 standard ABI changes for Remora's abi flavour, checked from a
 * program built with the ABI's mpicc_abi (tests/abi/CMakeLists.txt):
 *   - window handles: a window's handle is not a predefined constant, survives
 *     MPI_Win_toint / MPI_Win_fromint (both ways, MPI_WIN_NULL too, which the
 *     host converts), and is told apart from MPI_WIN_NULL by every call;
 *   - predefined datatypes and ops are the ABI's constants (the type table is
 *     keyed by them): accumulates of MPI_INT, MPI_DOUBLE, MPI_LONG_LONG,
 *     MPI_UINT8_T, MPI_C_BOOL (MPI_LOR), MPI_2INT (MPI_MAXLOC), and of a
 *     derived vector of MPI_INT on the target, each result checked;
 *   - MPI_Fetch_and_op, MPI_Compare_and_swap, the window attributes
 *     MPI_WIN_BASE / MPI_WIN_SIZE / MPI_WIN_DISP_UNIT (the ABI's keyvals).
 * Every rank accumulates into every rank (fence epochs), then lock epochs. */
#define _GNU_SOURCE /* RTLD_DEFAULT */
#include <dlfcn.h>
#include <stdbool.h>
#include <string.h>

#include "mtest.h"

#define N 8

struct win_mem {
    int i[N];
    double d[N];
    long long ll[N];
    uint8_t u8[N];
    bool b[N];
    struct { int v, loc; } pair[N];
    int vec[2 * N];
    long counter;
    int cas;
};

#define OFF(f) ((MPI_Aint)offsetof(struct win_mem, f))

int main(int argc, char **argv)
{
    mtest_init(&argc, &argv, MPI_THREAD_SINGLE);
    int me = mtest.rank, np = mtest.size;
    struct win_mem *m;
    MPI_Win win;
    MTEST_MPI(MPI_Win_allocate(sizeof *m, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &m, &win));
    memset(m, 0, sizeof *m);

    /* handles */
    MTEST_CHECK(win != MPI_WIN_NULL, "MPI_Win_allocate gave MPI_WIN_NULL");
    MTEST_CHECK((uintptr_t)win >= 0x1000, "window handle %p is in the ABI's range of predefined constants",
                (void *)win);
    int wi = MPI_Win_toint(win), ni = MPI_Win_toint(MPI_WIN_NULL);
    MTEST_CHECK(wi != ni, "MPI_Win_toint: the window and MPI_WIN_NULL are both %d", wi);
    MTEST_CHECK(MPI_Win_fromint(wi) == win, "MPI_Win_fromint(MPI_Win_toint(win)) is not win");
    MTEST_CHECK(MPI_Win_fromint(ni) == MPI_WIN_NULL, "MPI_Win_fromint(MPI_Win_toint(MPI_WIN_NULL)) is not MPI_WIN_NULL");
    if (mtest.remora) {
        /* a Remora window is not the host's: its int must not be a host object's */
        int (*served)(MPI_Win) = (int (*)(MPI_Win))dlsym(RTLD_DEFAULT, "remora_win_served");
        MTEST_CHECK(served && served(win) && !served(MPI_WIN_NULL), "remora_win_served does not know the window");
    }

    /* attributes */
    void *base = NULL;
    MPI_Aint *size = NULL;
    int *unit = NULL, flag = 0;
    MTEST_MPI(MPI_Win_get_attr(win, MPI_WIN_BASE, &base, &flag));
    MTEST_CHECK(flag && base == m, "MPI_WIN_BASE: flag %d, %p, window at %p", flag, base, (void *)m);
    MTEST_MPI(MPI_Win_get_attr(win, MPI_WIN_SIZE, &size, &flag));
    MTEST_CHECK(flag && *size == (MPI_Aint)sizeof *m, "MPI_WIN_SIZE wrong");
    MTEST_MPI(MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &unit, &flag));
    MTEST_CHECK(flag && *unit == 1, "MPI_WIN_DISP_UNIT wrong");

    /* accumulates of predefined types and a derived target type */
    MPI_Datatype every_other;
    MTEST_MPI(MPI_Type_vector(N, 1, 2, MPI_INT, &every_other));
    MTEST_MPI(MPI_Type_commit(&every_other));
    MTEST_MPI(MPI_Win_fence(0, win));
    for (int t = 0; t < np; t++) {
        int oi[N], o2[N];
        double od[N];
        long long oll[N];
        uint8_t ou8[N];
        bool ob[N];
        struct { int v, loc; } op[N];
        for (int k = 0; k < N; k++) {
            oi[k] = me + k;
            od[k] = 0.5 * (me + 1);
            oll[k] = (1LL << 40) * (me + 1);
            ou8[k] = (uint8_t)(1u << (me % 8));
            ob[k] = me == k % np;
            op[k].v = (me * 7 + k) % np; /* the max is np - 1 on some rank: ties go to the lowest loc */
            op[k].loc = me;
            o2[k] = 1;
        }
        MTEST_MPI(MPI_Accumulate(oi, N, MPI_INT, t, OFF(i), N, MPI_INT, MPI_SUM, win));
        MTEST_MPI(MPI_Accumulate(od, N, MPI_DOUBLE, t, OFF(d), N, MPI_DOUBLE, MPI_SUM, win));
        MTEST_MPI(MPI_Accumulate(oll, N, MPI_LONG_LONG, t, OFF(ll), N, MPI_LONG_LONG, MPI_SUM, win));
        MTEST_MPI(MPI_Accumulate(ou8, N, MPI_UINT8_T, t, OFF(u8), N, MPI_UINT8_T, MPI_BOR, win));
        MTEST_MPI(MPI_Accumulate(ob, N, MPI_C_BOOL, t, OFF(b), N, MPI_C_BOOL, MPI_LOR, win));
        MTEST_MPI(MPI_Accumulate(op, N, MPI_2INT, t, OFF(pair), N, MPI_2INT, MPI_MAXLOC, win));
        MTEST_MPI(MPI_Accumulate(o2, N, MPI_INT, t, OFF(vec), 1, every_other, MPI_SUM, win));
    }
    MTEST_MPI(MPI_Win_fence(0, win));
    long long rank_sum = (long long)np * (np - 1) / 2;
    unsigned bits = 0;
    for (int r = 0; r < np; r++)
        bits |= 1u << (r % 8);
    for (int k = 0; k < N; k++) {
        MTEST_EQ(m->i[k], rank_sum + (long long)np * k, "MPI_INT MPI_SUM");
        MTEST_CHECK(m->d[k] == 0.5 * (double)(rank_sum + np), "MPI_DOUBLE MPI_SUM: %g", m->d[k]);
        MTEST_EQ(m->ll[k], (1LL << 40) * (rank_sum + np), "MPI_LONG_LONG MPI_SUM");
        MTEST_EQ(m->u8[k], bits, "MPI_UINT8_T MPI_BOR");
        MTEST_EQ(m->b[k], k % np < np, "MPI_C_BOOL MPI_LOR");
        int best = -1, loc = -1;
        for (int r = 0; r < np; r++)
            if ((r * 7 + k) % np > best)
                best = (r * 7 + k) % np, loc = r;
        MTEST_EQ(m->pair[k].v, best, "MPI_2INT MPI_MAXLOC value");
        MTEST_EQ(m->pair[k].loc, loc, "MPI_2INT MPI_MAXLOC location");
        MTEST_EQ(m->vec[2 * k], np, "vector target MPI_SUM (its elements)");
        MTEST_EQ(m->vec[2 * k + 1], 0, "vector target MPI_SUM (the gaps)");
    }

    /* atomics in lock epochs: a counter and a compare-and-swap on rank 0 */
    long one = 1, before = -1;
    int mine = me + 1, was = -1;
    MTEST_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
    MTEST_MPI(MPI_Fetch_and_op(&one, &before, MPI_LONG, 0, OFF(counter), MPI_SUM, win));
    int zero = 0;
    MTEST_MPI(MPI_Compare_and_swap(&mine, &zero, &was, MPI_INT, 0, OFF(cas), win));
    MTEST_MPI(MPI_Win_unlock(0, win));
    MTEST_CHECK(before >= 0 && before < np, "MPI_Fetch_and_op fetched %ld", before);
    MTEST_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (me == 0) {
        MTEST_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
        long c = -1;
        int s = -1;
        MTEST_MPI(MPI_Get(&c, 1, MPI_LONG, 0, OFF(counter), 1, MPI_LONG, win));
        MTEST_MPI(MPI_Get(&s, 1, MPI_INT, 0, OFF(cas), 1, MPI_INT, win));
        MTEST_MPI(MPI_Win_unlock(0, win));
        MTEST_EQ(c, np, "counter after every rank's MPI_Fetch_and_op");
        MTEST_CHECK(s >= 1 && s <= np, "MPI_Compare_and_swap: %d is no rank's value", s);
    }
    /* exactly one rank found the 0 and swapped */
    int swapped = was == 0, nswapped = 0;
    MTEST_MPI(MPI_Allreduce(&swapped, &nswapped, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    MTEST_EQ(nswapped, 1, "ranks whose MPI_Compare_and_swap swapped");

    MTEST_MPI(MPI_Type_free(&every_other));
    MTEST_MPI(MPI_Win_free(&win));
    MTEST_CHECK(win == MPI_WIN_NULL, "MPI_Win_free left the handle");
    return mtest_finish();
}
