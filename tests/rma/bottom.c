/* Origin and result buffers given as MPI_BOTTOM with datatypes of absolute
 * addresses (MPI_Get_address displacements), as ARMCI-MPI and other
 * libraries build them for strided and vector transfers: MPI_Put, MPI_Get,
 * MPI_Accumulate, MPI_Get_accumulate (origin and result at MPI_BOTTOM), and
 * the request-based forms.  Every rank works on its right neighbour's window
 * under lock_all; data is verified.
 *
 *   bottom [--win all|allocate,create,alloc_mem,dynamic] [--host-skip rget] */
#include <string.h>

#include "mtest.h"

enum { N = 6, STRIDE = 3 };

/* An hindexed type of N ints at buf[0], buf[STRIDE], ... by absolute address. */
static MPI_Datatype absolute_type(int *buf) {
  int blens[N];
  MPI_Aint displs[N];
  for (int i = 0; i < N; i++) {
    blens[i] = 1;
    MPI_Get_address(&buf[i * STRIDE], &displs[i]);
  }
  MPI_Datatype t;
  MPI_Type_create_hindexed(N, blens, displs, MPI_INT, &t);
  MPI_Type_commit(&t);
  return t;
}

/* buf[i * STRIDE] == times * (base + i) */
static void check_strided(const int *buf, int times, int base, const char *what) {
  for (int i = 0; i < N; i++)
    MTEST_CHECK(buf[i * STRIDE] == times * (base + i), "%s: element %d is %d, not %d", what, i, buf[i * STRIDE],
                times * (base + i));
}

int main(int argc, char **argv) {
  mtest_init(&argc, &argv, MPI_THREAD_SINGLE);
  const char *skip = mtest_host_list(argc, argv, "--host-skip");
  int right = (mtest.rank + 1) % mtest.size, left = (mtest.rank + mtest.size - 1) % mtest.size;
  mtest_win_kind kinds[MTEST_NKINDS];
  int nk = mtest_win_kinds(argc, argv, kinds);
  for (int k = 0; k < nk; k++) {
    mtest_win w;
    mtest_win_open(&w, kinds[k], N * sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD);
    int *mine = (int *)w.base;
    int src[N * STRIDE], res[N * STRIDE];
    MPI_Datatype src_t = absolute_type(src), res_t = absolute_type(res);
    MPI_Aint at = mtest_disp(&w, right, 0);
    MPI_Request req;

    mtest_set_context("MPI_Put from MPI_BOTTOM on %s", mtest_win_kind_name(kinds[k]));
    for (int i = 0; i < N * STRIDE; i++)
      src[i] = mtest.rank * 100 + i / STRIDE;
    MTEST_MPI(MPI_Win_lock_all(0, w.win));
    MTEST_MPI(MPI_Put(MPI_BOTTOM, 1, src_t, right, at, N, MPI_INT, w.win));
    MTEST_MPI(MPI_Win_flush_all(w.win));
    MPI_Barrier(MPI_COMM_WORLD);
    MTEST_MPI(MPI_Win_sync(w.win));
    for (int i = 0; i < N; i++)
      MTEST_EQ(mine[i], left * 100 + i, "an element put from MPI_BOTTOM");
    MPI_Barrier(MPI_COMM_WORLD);

    mtest_set_context("MPI_Get into MPI_BOTTOM on %s", mtest_win_kind_name(kinds[k]));
    memset(res, 0, sizeof res);
    MTEST_MPI(MPI_Get(MPI_BOTTOM, 1, res_t, right, at, N, MPI_INT, w.win));
    MTEST_MPI(MPI_Win_flush(right, w.win));
    check_strided(res, 1, mtest.rank * 100, "MPI_Get into MPI_BOTTOM");
    if (!mtest_listed(skip, "rget")) {
      memset(res, 0, sizeof res);
      MTEST_MPI(MPI_Rget(MPI_BOTTOM, 1, res_t, right, at, N, MPI_INT, w.win, &req));
      MTEST_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
      check_strided(res, 1, mtest.rank * 100, "MPI_Rget into MPI_BOTTOM");
    }
    MPI_Barrier(MPI_COMM_WORLD);

    mtest_set_context("accumulates at MPI_BOTTOM on %s", mtest_win_kind_name(kinds[k]));
    MTEST_MPI(MPI_Accumulate(MPI_BOTTOM, 1, src_t, right, at, N, MPI_INT, MPI_SUM, w.win));
    MTEST_MPI(MPI_Win_flush(right, w.win));
    memset(res, 0, sizeof res);
    /* result at MPI_BOTTOM: a read (MPI_NO_OP), then a fetch-and-add */
    MTEST_MPI(MPI_Get_accumulate(NULL, 0, MPI_INT, MPI_BOTTOM, 1, res_t, right, at, N, MPI_INT, MPI_NO_OP, w.win));
    MTEST_MPI(MPI_Win_flush(right, w.win));
    check_strided(res, 2, mtest.rank * 100, "MPI_Get_accumulate NO_OP into MPI_BOTTOM");
    memset(res, 0, sizeof res);
    MTEST_MPI(MPI_Rget_accumulate(MPI_BOTTOM, 1, src_t, MPI_BOTTOM, 1, res_t, right, at, N, MPI_INT, MPI_SUM,
                                  w.win, &req));
    MTEST_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    check_strided(res, 2, mtest.rank * 100, "MPI_Rget_accumulate SUM, origin and result at MPI_BOTTOM");
    MTEST_MPI(MPI_Win_unlock_all(w.win));
    MPI_Barrier(MPI_COMM_WORLD);
    MTEST_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, mtest.rank, 0, w.win));
    for (int i = 0; i < N; i++)
      MTEST_EQ(mine[i], 3 * (left * 100 + i), "the target after three sums");
    MTEST_MPI(MPI_Win_unlock(mtest.rank, w.win));
    MPI_Barrier(MPI_COMM_WORLD);

    MPI_Type_free(&src_t);
    MPI_Type_free(&res_t);
    mtest_set_context("%s", "");
    mtest_win_close(&w);
  }
  return mtest_finish();
}
