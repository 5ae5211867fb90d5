/* The fence's barrier (invariant F1 of core/fence.c): nobody returns from a
 * fence before every process has entered it with its operations complete.
 * In each epoch every rank puts the epoch's number into its own slot at
 * every rank; one rank, a different one each epoch, arrives late (it sleeps
 * before its puts).  After the closing fence every rank checks every slot:
 * a barrier that lets anyone out before the late rank arrived, or before a
 * flush completed, leaves a slot of the previous epoch.  Then a fence that
 * closes the read-only epoch: a rank that leaves it early puts the next
 * epoch's numbers into a rank still checking.
 * Across nodes the barrier gathers each node at its leader and the leaders
 * meet in rounds (a dissemination barrier): run with node counts that are
 * not powers of two, and with leaders that wait for ranks of their node. */
#include <time.h>

#include "mtest.h"

static long iters = 24;

/* The closing fence's assert: each is true of the epochs here. */
static const int closing[] = {0, MPI_MODE_NOSTORE, MPI_MODE_NOPUT, MPI_MODE_NOSTORE | MPI_MODE_NOPUT,
                              MPI_MODE_NOSUCCEED};

static void epochs(mtest_win *w)
{
    int me = mtest.rank, n = mtest.size;
    long *slot = (long *)w->base;
    for (int k = 0; k < n; k++)
        slot[k] = -1;
    MTEST_MPI(MPI_Win_fence(MPI_MODE_NOPRECEDE, w->win));
    for (long it = 0; it < iters; it++) {
        if (it % n == me) /* late: 3 ms, many times a fence across nodes */
            nanosleep(&(struct timespec){0, 3000000}, NULL);
        for (int t = 0; t < n; t++)
            MTEST_MPI(MPI_Put(&it, 1, MPI_LONG, t, mtest_disp(w, t, (size_t)me * sizeof(long)), 1, MPI_LONG, w->win));
        int a = closing[it % (sizeof closing / sizeof *closing)];
        MTEST_MPI(MPI_Win_fence(a, w->win));
        for (int k = 0; k < n; k++)
            MTEST_CHECK(slot[k] == it, "epoch %ld (closing assert %#x), late rank %ld: rank %d's slot holds %ld",
                        it, a, it % n, k, slot[k]);
        if (me == (it + 1) % n) /* late into the fence that ends the reads */
            nanosleep(&(struct timespec){0, 3000000}, NULL);
        MTEST_MPI(MPI_Win_fence(MPI_MODE_NOSTORE, w->win));
    }
    MTEST_MPI(MPI_Win_fence(MPI_MODE_NOSUCCEED, w->win));
}

int main(int argc, char **argv)
{
    mtest_init(&argc, &argv, MPI_THREAD_SINGLE);
    iters = mtest_arg_long(argc, argv, "--iters", iters);
    mtest_win_kind kinds[MTEST_NKINDS];
    int nkinds = mtest_win_kinds(argc, argv, kinds);
    for (int k = 0; k < nkinds; k++) {
        mtest_set_context("%s window", mtest_win_kind_name(kinds[k]));
        mtest_win w;
        mtest_win_open(&w, kinds[k], (size_t)mtest.size * sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD);
        epochs(&w);
        mtest_win_close(&w);
    }
    return mtest_finish();
}
