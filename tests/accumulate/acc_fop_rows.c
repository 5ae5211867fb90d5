/* MPI_Fetch_and_op increments of a word that row accumulates update too.
 *
 * An engine may apply accumulates of several elements with plain loads and
 * stores (under its own serialisation of such calls) until the first
 * single-word call that bypasses that serialisation comes to the target
 * (Remora: ctrl.acc_lock_free, core/acc_stripes.h).  A fetch-and-op that is
 * one CPU atomic is such a call, wherever it is issued from: the inline fast
 * path of MPI_Fetch_and_op (core/fop_fast.h) included, which a window takes
 * for every target once one fetch-and-op of the type has gone through it
 * (the window's amo hint).  If it ever skipped the switch, the rows' plain
 * read-modify-writes would overwrite its increments.
 *
 * Every round opens a new window (the kinds of --win in turn) and a
 * lock_all epoch.  Every rank first reads the first word of rank 0 with
 * MPI_Get (which reaches rank 0 without an accumulate) and does one
 * MPI_Fetch_and_op(MPI_NO_OP) of an MPI_INT64_T at rank 1 (which puts the
 * fetch-and-op fast path in place for that window), then its threads race
 * at rank 0, where no single-word call has come yet: the
 * threads with (rank + thread) odd do MPI_Fetch_and_op(MPI_SUM) of 1 to the
 * first word, the others MPI_Accumulate(MPI_SUM) of the row {1, 1} of two
 * MPI_INT64_Ts over the first two words (the same op and predefined type on
 * the same location: atomic per element by the standard).  In the end the
 * first word is the sum of every increment and the second the number of
 * rows; every fetched value is below the final first word.  The racers go
 * on for --ms milliseconds (not a number of calls: on a loaded machine the
 * ranks must still share the time they run in).
 *
 *   acc_fop_rows [--rounds R] [--ms M] [--threads T] [--win all|allocate,...] */
#include "mtest.h"

#include <stdio.h>
#include <stdlib.h>

enum { FLUSH_EVERY = 16 };

typedef struct {
  mtest_win w;
  int threads, round;
  int ms;               /* how long the racers of a round go on */
  double until;         /* ... until this MPI_Wtime */
  int64_t max_fetched;  /* this rank's largest fetched value (under its threads' atomics) */
  int64_t done[2];      /* this rank's rows and fetch-and-ops (under its threads' atomics) */
} rows_test;

static rows_test *T_;

static int fop_role(int thread) { return (mtest.rank + thread) % 2 == 1; }

static void racer(int thread, void *arg) {
  (void)arg;
  rows_test *t = T_;
  MPI_Aint disp = mtest_disp(&t->w, 0, 0);
  int64_t max = -1, n = 0;
  if (fop_role(thread)) {
    const int64_t one = 1;
    for (; n % FLUSH_EVERY || MPI_Wtime() < t->until; n++) {
      int64_t old = -1;
      MTEST_MPI(MPI_Fetch_and_op(&one, &old, MPI_INT64_T, 0, disp, MPI_SUM, t->w.win));
      MTEST_MPI(MPI_Win_flush(0, t->w.win));
      if (old > max)
        max = old;
    }
  } else {
    const int64_t row[2] = {1, 1};
    for (; n % FLUSH_EVERY || MPI_Wtime() < t->until; n++) {
      MTEST_MPI(MPI_Accumulate(row, 2, MPI_INT64_T, 0, disp, 2, MPI_INT64_T, MPI_SUM, t->w.win));
      if (n % FLUSH_EVERY == FLUSH_EVERY - 1)
        MTEST_MPI(MPI_Win_flush(0, t->w.win));
    }
  }
  __atomic_fetch_add(&t->done[fop_role(thread)], n, __ATOMIC_RELAXED);
  int64_t cur = __atomic_load_n(&t->max_fetched, __ATOMIC_RELAXED);
  while (max > cur && !__atomic_compare_exchange_n(&t->max_fetched, &cur, max, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
    ;
}

static void round_of(rows_test *t, mtest_win_kind kind, int round) {
  mtest_set_context("%s window, round %d", mtest_win_kind_name(kind), round);
  mtest_win_open(&t->w, kind, 2 * sizeof(int64_t), MPI_INFO_NULL, MPI_COMM_WORLD);
  MTEST_MPI(MPI_Win_lock_all(0, t->w.win));
  t->round = round;
  t->max_fetched = -1;
  t->done[0] = t->done[1] = 0;
  /* rank 0 reached by a get (an engine may first check a target of a
   * lock_all at its first access), the fast path's type learnt at another
   * target than the one raced on */
  int64_t zero = 0, old = -1, got = -1;
  MTEST_MPI(MPI_Get(&got, 1, MPI_INT64_T, 0, mtest_disp(&t->w, 0, 0), 1, MPI_INT64_T, t->w.win));
  MTEST_MPI(MPI_Win_flush(0, t->w.win));
  MTEST_EQ(got, 0, "the word read at rank 0");
  MTEST_MPI(MPI_Fetch_and_op(&zero, &old, MPI_INT64_T, 1, mtest_disp(&t->w, 1, 0), MPI_NO_OP, t->w.win));
  MTEST_MPI(MPI_Win_flush(1, t->w.win));
  MTEST_EQ(old, 0, "the word read at rank 1");
  MPI_Barrier(MPI_COMM_WORLD);
  t->until = MPI_Wtime() + t->ms / 1000.0;
  mtest_run_threads(t->threads, racer, NULL);
  MTEST_MPI(MPI_Win_flush_all(t->w.win));
  MPI_Barrier(MPI_COMM_WORLD);
  MTEST_MPI(MPI_Win_sync(t->w.win));
  int64_t all[2], max = 0;
  MPI_Allreduce(t->done, all, 2, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  int64_t rows = all[0], fops = all[1];
  MPI_Reduce(&t->max_fetched, &max, 1, MPI_INT64_T, MPI_MAX, 0, MPI_COMM_WORLD);
  if (mtest.rank == 0) {
    const int64_t *m = (const int64_t *)t->w.base;
    MTEST_CHECK(m[0] == rows + fops && m[1] == rows,
                "round %d: the words hold %lld and %lld, expected %lld and %lld (%lld rows, %lld fetch-and-ops): "
                "%lld increments lost", round, (long long)m[0], (long long)m[1], (long long)(rows + fops),
                (long long)rows, (long long)rows, (long long)fops, (long long)(rows + fops - m[0]));
    MTEST_CHECK(max < m[0], "round %d: a fetch-and-op fetched %lld, the word ends at %lld", round, (long long)max,
                (long long)m[0]);
  }
  MTEST_MPI(MPI_Win_unlock_all(t->w.win));
  mtest_win_close(&t->w);
}

int main(int argc, char **argv) {
  mtest_init(&argc, &argv, MPI_THREAD_MULTIPLE);
  static rows_test t;
  T_ = &t;
  int rounds = (int)mtest_arg_long(argc, argv, "--rounds", 8);
  t.threads = (int)mtest_arg_long(argc, argv, "--threads", 1);
  t.ms = (int)mtest_arg_long(argc, argv, "--ms", 250);
  MTEST_ASSERT(mtest.size >= 2, "needs 2 ranks or more: the race at rank 0, the fast path learnt at rank 1");
  mtest_win_kind kinds[MTEST_NKINDS];
  int nk = mtest_win_kinds(argc, argv, kinds);
  for (int r = 0; r < rounds; r++)
    round_of(&t, kinds[r % nk], r);
  if (mtest.rank == 0)
    printf("%d rounds\n", rounds);
  return mtest_finish();
}
