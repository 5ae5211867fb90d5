/* The first lock-free accumulate on a window, against large accumulates in
 * flight.
 *
 * An engine may apply large accumulates with plain loads and stores (under
 * its own serialisation of large calls) as long as no single-word call that
 * bypasses that serialisation can run beside them, and switch to atomics
 * when the first such call comes (Remora: ctrl.acc_lock_free in
 * src/core/accumulate.c).  The switch must wait for the large calls already
 * running, or they see the single-word calls out of order.
 *
 * Every round opens a new window (the kinds of --win in turn).  Readers
 * (every thread of every rank but the last) read the whole buffer at rank 0,
 * NELEM MPI_INT64_Ts, with MPI_Get_accumulate(MPI_NO_OP), over and over.  The
 * last rank waits until rank 0 has read a few times (a different number each
 * round) and then writes
 * 1, 2, 3, ... with MPI_Fetch_and_op(MPI_REPLACE), each value first to the
 * element at a quarter, then to the one at three quarters, completing each
 * call before the next.  Each read is atomic as a whole against each of
 * those calls, so it sees the quarter element equal to the three-quarter one
 * or one ahead of it; anything else is a read that saw the calls out of
 * order (whichever way the engine copies).  In the end both hold the last value.
 *
 *   acc_first_lock_free [--rounds R] [--sweeps N] [--writes W] [--threads T] [--win all|allocate,...] */
#include "mtest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { NELEM = 16384, QUARTER = NELEM / 4, THREE_QUARTERS = 3 * NELEM / 4 };

typedef struct {
  mtest_win w;
  int threads, sweeps, writes, round;
  int start;   /* thread 0 of rank 0 tells the writer to start after this many reads */
  double gap;  /* the writer's wait between two values, seconds */
} first_test;

static first_test *T_;

static void reader(int thread, void *arg) {
  (void)arg;
  first_test *t = T_;
  int64_t *buf = malloc(sizeof(int64_t) * NELEM);
  MTEST_ASSERT(buf != NULL, "malloc");
  double t0 = MPI_Wtime();
  for (int s = 0; s < t->sweeps; s++) {
    if (mtest.rank == 0 && thread == 0 && s == t->start)
      MPI_Send(NULL, 0, MPI_BYTE, mtest.size - 1, 0, MPI_COMM_WORLD);
    MTEST_MPI(MPI_Get_accumulate(NULL, 0, MPI_INT64_T, buf, NELEM, MPI_INT64_T, 0, mtest_disp(&t->w, 0, 0), NELEM,
                                 MPI_INT64_T, MPI_NO_OP, t->w.win));
    MTEST_MPI(MPI_Win_flush(0, t->w.win));
    int64_t a = buf[QUARTER], b = buf[THREE_QUARTERS];
    MTEST_CHECK(a == b || a == b + 1, "round %d: a read saw %lld at a quarter and %lld at three quarters, "
                "written in the order 1, 1, 2, 2, ...: the writes out of order", t->round, (long long)a,
                (long long)b);
  }
  if (mtest.rank == 0 && thread == 0) /* a value every twentieth of a read next round */
    t->gap = (MPI_Wtime() - t0) / t->sweeps / 20;
  free(buf);
}

static void writer(first_test *t) {
  MPI_Recv(NULL, 0, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  for (int64_t v = 1; v <= t->writes; v++) {
    for (int k = 0; k < 2; k++) {
      int64_t old;
      MTEST_MPI(MPI_Fetch_and_op(&v, &old, MPI_INT64_T, 0,
                                 mtest_disp(&t->w, 0, sizeof(int64_t) * (k ? THREE_QUARTERS : QUARTER)),
                                 MPI_REPLACE, t->w.win));
      MTEST_MPI(MPI_Win_flush(0, t->w.win));
    }
    for (double until = MPI_Wtime() + t->gap; MPI_Wtime() < until;)
      ;
  }
}

static void round_of(first_test *t, mtest_win_kind kind, int round) {
  mtest_set_context("%s window, round %d", mtest_win_kind_name(kind), round);
  mtest_win_open(&t->w, kind, sizeof(int64_t) * NELEM, MPI_INFO_NULL, MPI_COMM_WORLD);
  MTEST_MPI(MPI_Win_lock_all(0, t->w.win));
  MPI_Barrier(MPI_COMM_WORLD);
  t->round = round;
  t->start = 1 + round % 8;
  if (mtest.rank == mtest.size - 1)
    writer(t);
  else
    mtest_run_threads(t->threads, reader, NULL);
  MTEST_MPI(MPI_Win_flush_all(t->w.win));
  MPI_Barrier(MPI_COMM_WORLD);
  MTEST_MPI(MPI_Win_sync(t->w.win));
  if (mtest.rank == 0) {
    const int64_t *m = (const int64_t *)t->w.base;
    MTEST_CHECK(m[QUARTER] == t->writes && m[THREE_QUARTERS] == t->writes,
                "round %d: %lld and %lld at the end, expected %d", round, (long long)m[QUARTER],
                (long long)m[THREE_QUARTERS], t->writes);
  }
  MTEST_MPI(MPI_Win_unlock_all(t->w.win));
  mtest_win_close(&t->w);
  MPI_Bcast(&t->gap, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
}

int main(int argc, char **argv) {
  mtest_init(&argc, &argv, MPI_THREAD_MULTIPLE);
  static first_test t;
  T_ = &t;
  int rounds = (int)mtest_arg_long(argc, argv, "--rounds", 40);
  t.threads = (int)mtest_arg_long(argc, argv, "--threads", 1);
  t.sweeps = (int)mtest_arg_long(argc, argv, "--sweeps", 100);
  t.writes = (int)mtest_arg_long(argc, argv, "--writes", 200);
  MTEST_ASSERT(mtest.size >= 2, "needs 2 ranks or more: readers and a writer");
  MTEST_ASSERT(t.sweeps > 9, "--sweeps: 10 or more");
  mtest_win_kind kinds[MTEST_NKINDS];
  int nk = mtest_win_kinds(argc, argv, kinds);
  for (int r = 0; r < rounds; r++)
    round_of(&t, kinds[r % nk], r);
  if (mtest.rank == 0)
    printf("%d rounds\n", rounds);
  return mtest_finish();
}
