/* A read of several words by one call sees one state of them, while
 * single-word calls change them one after the other.
 *
 * Rank 1 (the writer) counts g = 1, 2, ... and for each g writes word A
 * (bytes [8, 16) of rank 0's window) := g, then word B (bytes [16, 24))
 * := g, each by its own MPI_Accumulate(MPI_REPLACE) of one MPI_INT64_T,
 * flushed, so that A is written before B.  The others (rank 0 and ranks
 * 2..) read A and B together with one MPI_Get_accumulate(MPI_NO_OP) of the
 * 16 bytes [8, 24) as MPI_BYTEs, until the writer is done.  A whole-call read never
 * sees B ahead of A (B > A): that would be a read of A before the writer's
 * write of A and of B after its write of B.  The 16 bytes straddle two
 * 16-byte units, so the engine cannot read them with one atomic.
 *
 *   acc_snapshot [--iters N] */
#include "mtest.h"

#include <stdint.h>
#include <string.h>

int main(int argc, char **argv) {
  mtest_init(&argc, &argv, MPI_THREAD_SINGLE);
  MTEST_ASSERT(mtest.size >= 2, "acc_snapshot needs 2 ranks or more");
  long iters = mtest_arg_long(argc, argv, "--iters", 20000);
  int64_t *base;
  MPI_Win win;
  MTEST_MPI(MPI_Win_allocate(64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
  memset(base, 0, 64);
  MPI_Barrier(MPI_COMM_WORLD);
  MTEST_MPI(MPI_Win_lock_all(0, win));
  int64_t done_flag = 0;
  if (mtest.rank == 1) {
    for (int64_t g = 1; g <= iters; g++) {
      MTEST_MPI(MPI_Accumulate(&g, 1, MPI_INT64_T, 0, 8, 1, MPI_INT64_T, MPI_REPLACE, win));
      MTEST_MPI(MPI_Win_flush(0, win));
      MTEST_MPI(MPI_Accumulate(&g, 1, MPI_INT64_T, 0, 16, 1, MPI_INT64_T, MPI_REPLACE, win));
      MTEST_MPI(MPI_Win_flush(0, win));
    }
    done_flag = 1;
    MTEST_MPI(MPI_Accumulate(&done_flag, 1, MPI_INT64_T, 0, 32, 1, MPI_INT64_T, MPI_REPLACE, win));
    MTEST_MPI(MPI_Win_flush(0, win));
  } else {
    long reads = 0, torn = 0;
    int64_t last_a = 0;
    for (;;) {
      int64_t ab[2] = {-1, -1};
      MTEST_MPI(MPI_Get_accumulate(NULL, 0, MPI_BYTE, ab, 16, MPI_BYTE, 0, 8, 16, MPI_BYTE, MPI_NO_OP, win));
      MTEST_MPI(MPI_Win_flush(0, win));
      reads++;
      if (ab[1] > ab[0] || ab[0] < last_a) {
        if (torn++ < 5)
          mtest_fail(__FILE__, __LINE__, "read %ld: A = %lld, B = %lld (previous A %lld): not one state", reads,
                     (long long)ab[0], (long long)ab[1], (long long)last_a);
      }
      last_a = ab[0];
      int64_t fin = 0, zero = 0;
      MTEST_MPI(MPI_Fetch_and_op(&zero, &fin, MPI_INT64_T, 0, 32, MPI_NO_OP, win));
      MTEST_MPI(MPI_Win_flush(0, win));
      if (fin)
        break;
    }
    if (torn)
      mtest_fail(__FILE__, __LINE__, "%ld of %ld reads saw B ahead of A", torn, reads);
  }
  MTEST_MPI(MPI_Win_unlock_all(win));
  MPI_Barrier(MPI_COMM_WORLD);
  if (mtest.rank == 0)
    MTEST_CHECK(base[1] == iters && base[2] == iters, "A = %lld, B = %lld at the end, not %ld", (long long)base[1],
                (long long)base[2], iters);
  MTEST_MPI(MPI_Win_free(&win));
  return mtest_finish();
}
