/* Element-wise atomicity of accumulates: counters incremented by every rank x
 * T threads, ending exactly right.
 *
 * Every rank holds two counters, an int64 (MPI_INT64_T) and an int32 (MPI_INT),
 * and every thread increments them all over the job.  The standard's default
 * accumulate_ops is same_op_no_op: concurrent accumulates to one location use
 * one operation or MPI_NO_OP.  So the test runs two phases, separated by a
 * barrier: in phase A threads mix MPI_Fetch_and_op(SUM), MPI_Accumulate(SUM)
 * and MPI_Get_accumulate(SUM) increments with MPI_Fetch_and_op(NO_OP) reads;
 * in phase B they increment with MPI_Compare_and_swap loops (reads by
 * MPI_Fetch_and_op NO_OP again).
 *
 * Checked: every counter's final value; every fetched old value is unique per
 * counter (no two increments saw the same value) and in range; reads made by
 * one thread never go backwards.
 *
 *   acc_counter [--threads T] [--iters N] [--win all|allocate,create,alloc_mem,dynamic] */
#include "mtest.h"

#include <stdlib.h>
#include <string.h>

enum { NWORDS = 2 };  /* word 0: int64 at byte 0; word 1: int at byte 8 */
static const MPI_Aint word_off[NWORDS] = {0, 8};

/* One fetched old value of an increment, as the checker needs it. */
typedef struct { int64_t phase, target, word, value; } fetched;

typedef struct {
  mtest_win w;
  int threads, iters;
  fetched *log;      /* per thread: iters entries per phase */
  int *nlog;         /* per thread */
} counter_test;

static int target_of(int rank, int thread, int i, int n) { return (rank + thread + i) % n; }
static int word_of(int i) { return i % 2; }

static int64_t load_word(const void *p, int word) {
  return word == 0 ? *(const int64_t *)p : *(const int *)p;
}

/* Read with MPI_Fetch_and_op(NO_OP): allowed next to any one operation. */
static int64_t read_counter(counter_test *t, int target, int word) {
  char zero[8] = {0}, res[8];
  MPI_Datatype dt = word == 0 ? MPI_INT64_T : MPI_INT;
  MTEST_MPI(MPI_Fetch_and_op(zero, res, dt, target, mtest_disp(&t->w, target, (size_t)word_off[word]),
                           MPI_NO_OP, t->w.win));
  MTEST_MPI(MPI_Win_flush(target, t->w.win));
  return load_word(res, word);
}

static void record(counter_test *t, int thread, int phase, int target, int word, int64_t v) {
  fetched *f = &t->log[(size_t)thread * 2 * (size_t)t->iters + (size_t)t->nlog[thread]++];
  *f = (fetched){phase, target, word, v};
}

/* known[target][word]: what the counter holds at least, from this thread's
 * completed operations (they complete at flush, so values only grow). */
static void phase_sum(counter_test *t, int thread) {
  int64_t (*known)[NWORDS] = calloc((size_t)mtest.size, sizeof *known);
  MTEST_ASSERT(known != NULL, "calloc");
  for (int i = 0; i < t->iters; i++) {
    int target = target_of(mtest.rank, thread, i, mtest.size), word = word_of(i);
    MPI_Aint disp = mtest_disp(&t->w, target, (size_t)word_off[word]);
    MPI_Datatype dt = word == 0 ? MPI_INT64_T : MPI_INT;
    int64_t one64 = 1;
    int one32 = 1;
    const void *one = word == 0 ? (const void *)&one64 : (const void *)&one32;
    char res[8];
    int64_t seen, after;  /* the value read; the counter after my increment */
    switch ((i / 2 + thread) % 3) {
    case 0:
      MTEST_MPI(MPI_Fetch_and_op(one, res, dt, target, disp, MPI_SUM, t->w.win));
      MTEST_MPI(MPI_Win_flush(target, t->w.win));
      seen = load_word(res, word);
      after = seen + 1;
      record(t, thread, 0, target, word, seen);
      break;
    case 1:
      MTEST_MPI(MPI_Get_accumulate(one, 1, dt, res, 1, dt, target, disp, 1, dt, MPI_SUM, t->w.win));
      MTEST_MPI(MPI_Win_flush(target, t->w.win));
      seen = load_word(res, word);
      after = seen + 1;
      record(t, thread, 0, target, word, seen);
      break;
    default:
      MTEST_MPI(MPI_Accumulate(one, 1, dt, target, disp, 1, dt, MPI_SUM, t->w.win));
      MTEST_MPI(MPI_Win_flush(target, t->w.win));
      after = read_counter(t, target, word);
      seen = after - 1;  /* at least my increment is in what the read saw */
      break;
    }
    MTEST_CHECK(seen >= known[target][word], "phase A: thread %d saw %lld at rank %d word %d, "
              "below the %lld its own completed increments had made", thread,
              (long long)seen, target, word, (long long)known[target][word]);
    known[target][word] = after;
  }
  free(known);
}

static void phase_cas(counter_test *t, int thread) {
  for (int i = 0; i < t->iters; i++) {
    int target = target_of(mtest.rank, thread, i, mtest.size), word = word_of(i);
    MPI_Aint disp = mtest_disp(&t->w, target, (size_t)word_off[word]);
    MPI_Datatype dt = word == 0 ? MPI_INT64_T : MPI_INT;
    int64_t cur = read_counter(t, target, word);
    for (int tries = 0;; tries++) {
      int64_t want64 = cur + 1, cmp64 = cur, res64 = 0;
      int want32 = (int)(cur + 1), cmp32 = (int)cur, res32 = 0;
      if (word == 0)
        MTEST_MPI(MPI_Compare_and_swap(&want64, &cmp64, &res64, dt, target, disp, t->w.win));
      else
        MTEST_MPI(MPI_Compare_and_swap(&want32, &cmp32, &res32, dt, target, disp, t->w.win));
      MTEST_MPI(MPI_Win_flush(target, t->w.win));
      int64_t old = word == 0 ? res64 : res32;
      if (old == cur) {
        record(t, thread, 1, target, word, old);
        break;
      }
      MTEST_CHECK(old > cur, "phase B: CAS on rank %d word %d found %lld below %lld read before",
                target, word, (long long)old, (long long)cur);
      if (old <= cur || tries > 1000000) {
        mtest_fail(__FILE__, __LINE__, "phase B: CAS loop gives up");
        return;
      }
      cur = old;
    }
  }
}

static counter_test *the_test;
static void phase_a_thread(int i, void *arg) { (void)arg; phase_sum(the_test, i); }
static void phase_b_thread(int i, void *arg) { (void)arg; phase_cas(the_test, i); }

/* How many increments of one phase target (target, word), over the job. */
static int64_t expected_increments(const counter_test *t, int target, int word) {
  int64_t n = 0;
  for (int r = 0; r < mtest.size; r++)
    for (int th = 0; th < t->threads; th++)
      for (int i = 0; i < t->iters; i++)
        n += target_of(r, th, i, mtest.size) == target && word_of(i) == word;
  return n;
}

static int cmp_fetched(const void *a, const void *b) {
  const fetched *x = a, *y = b;
  if (x->target != y->target) return x->target < y->target ? -1 : 1;
  if (x->word != y->word) return x->word < y->word ? -1 : 1;
  return x->value < y->value ? -1 : x->value > y->value;
}

/* Every old value an increment fetched is unique per counter: phase A
 * fetched values lie in [0, A), phase B ones in [A, A + B) and cover it. */
static void check_fetched(counter_test *t) {
  int mine = 0;
  for (int th = 0; th < t->threads; th++)
    for (int k = 0; k < t->nlog[th]; k++)
      t->log[mine++] = t->log[(size_t)th * 2 * (size_t)t->iters + (size_t)k];
  int *counts = malloc(sizeof(int) * (size_t)mtest.size), *displs = malloc(sizeof(int) * (size_t)mtest.size);
  int n4 = mine * 4;
  MPI_Gather(&n4, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
  int total = 0;
  if (mtest.rank == 0)
    for (int r = 0; r < mtest.size; r++) {
      displs[r] = total;
      total += counts[r];
    }
  fetched *all = mtest.rank == 0 ? malloc(sizeof(fetched) * (size_t)(total / 4 + 1)) : NULL;
  MPI_Gatherv(t->log, n4, MPI_INT64_T, all, counts, displs, MPI_INT64_T, 0, MPI_COMM_WORLD);
  if (mtest.rank == 0) {
    int n = total / 4;
    qsort(all, (size_t)n, sizeof *all, cmp_fetched);
    for (int k = 0; k < n; k++) {
      fetched *f = &all[k];
      int64_t a = expected_increments(t, (int)f->target, (int)f->word);
      int64_t lo = f->phase ? a : 0, hi = f->phase ? 2 * a : a;
      MTEST_CHECK(f->value >= lo && f->value < hi, "phase %c fetched %lld from rank %lld word %lld, "
                "outside [%lld, %lld)", f->phase ? 'B' : 'A', (long long)f->value,
                (long long)f->target, (long long)f->word, (long long)lo, (long long)hi);
      if (k > 0 && f->target == f[-1].target && f->word == f[-1].word)
        MTEST_CHECK(f->value != f[-1].value, "two increments of rank %lld word %lld fetched %lld",
                  (long long)f->target, (long long)f->word, (long long)f->value);
    }
  }
  free(all);
  free(counts);
  free(displs);
}

static void run(counter_test *t, mtest_win_kind kind) {
  mtest_set_context("%s window", mtest_win_kind_name(kind));
  memset(t->nlog, 0, sizeof(int) * (size_t)t->threads);
  mtest_win_open(&t->w, kind, 64, MPI_INFO_NULL, MPI_COMM_WORLD);
  MTEST_MPI(MPI_Win_lock_all(0, t->w.win));
  mtest_run_threads(t->threads, phase_a_thread, NULL);
  MTEST_MPI(MPI_Win_flush_all(t->w.win));
  MPI_Barrier(MPI_COMM_WORLD);
  mtest_run_threads(t->threads, phase_b_thread, NULL);
  MTEST_MPI(MPI_Win_flush_all(t->w.win));
  MPI_Barrier(MPI_COMM_WORLD);
  MTEST_MPI(MPI_Win_sync(t->w.win));
  for (int word = 0; word < NWORDS; word++)
    MTEST_EQ(load_word(t->w.base + word_off[word], word), 2 * expected_increments(t, mtest.rank, word),
           word == 0 ? "final int64 counter" : "final int counter");
  MTEST_MPI(MPI_Win_unlock_all(t->w.win));
  check_fetched(t);
  mtest_win_close(&t->w);
}

int main(int argc, char **argv) {
  mtest_init(&argc, &argv, MPI_THREAD_MULTIPLE);
  counter_test t = {0};
  t.threads = (int)mtest_arg_long(argc, argv, "--threads", 4);
  t.iters = (int)mtest_arg_long(argc, argv, "--iters", 100);
  MTEST_ASSERT(t.threads >= 1 && t.iters >= 1, "bad --threads/--iters");
  t.log = calloc((size_t)t.threads * 2 * (size_t)t.iters, sizeof *t.log);
  t.nlog = calloc((size_t)t.threads, sizeof *t.nlog);
  MTEST_ASSERT(t.log && t.nlog, "calloc");
  the_test = &t;
  mtest_win_kind kinds[MTEST_NKINDS];
  int nk = mtest_win_kinds(argc, argv, kinds);
  for (int k = 0; k < nk; k++)
    run(&t, kinds[k]);
  free(t.log);
  free(t.nlog);
  return mtest_finish();
}
