/* A mutex built on MPI_Fetch_and_op (a ticket lock), taken by every thread of
 * every rank; inside it each holder increments a plain counter with MPI_Get
 * and MPI_Put.  The counter must end exactly right, and a holder-count word
 * proves that no two holders were ever inside at once.
 *
 * Words (int64): at rank 0 next_ticket (fetch-SUM only) and now_serving
 * (fetch-SUM to release, NO_OP reads to wait: same_op_no_op); at the last rank
 * the plain counter (Get/Put, only under the mutex) and the holder count
 * (SUM +1 on entry must fetch 0, SUM -1 on exit must fetch 1).
 *
 *   mutex [--threads T] [--iters N] [--win all|allocate,create,alloc_mem,dynamic] */
#include "mtest.h"

#include <sched.h>

enum { NEXT_TICKET = 0, NOW_SERVING = 8, COUNTER = 16, HOLDERS = 24, WIN_BYTES = 64 };

typedef struct {
  mtest_win w;
  int threads, iters;
  int lock_rank, data_rank;
} mutex_test;
static mutex_test M;

static int64_t fetch_add(int rank, size_t off, int64_t v, MPI_Op op) {
  int64_t res = 0;
  MTEST_MPI(MPI_Fetch_and_op(&v, &res, MPI_INT64_T, rank, mtest_disp(&M.w, rank, off), op, M.w.win));
  MTEST_MPI(MPI_Win_flush(rank, M.w.win));
  return res;
}

/* A lost or torn update of a lock word shows as a wait that never ends:
 * report the words instead of hanging until the launcher's timeout. */
enum { STUCK_SECONDS = 15 };

static void acquire(void) {
  int64_t ticket = fetch_add(M.lock_rank, NEXT_TICKET, 1, MPI_SUM), serving;
  double start = MPI_Wtime();
  while ((serving = fetch_add(M.lock_rank, NOW_SERVING, 0, MPI_NO_OP)) != ticket) {
    if (MPI_Wtime() - start > STUCK_SECONDS)
      mtest_die(__FILE__, __LINE__, "ticket %lld waited %d s: now_serving %lld, next_ticket %lld",
              (long long)ticket, STUCK_SECONDS, (long long)serving,
              (long long)fetch_add(M.lock_rank, NEXT_TICKET, 0, MPI_NO_OP));
    /* Oversubscribed ranks: give the holder's process the core while waiting. */
    sched_yield();
  }
}

static void release(void) { fetch_add(M.lock_rank, NOW_SERVING, 1, MPI_SUM); }

static void critical_section(int thread) {
  MTEST_EQ(fetch_add(M.data_rank, HOLDERS, 1, MPI_SUM), 0, "holders found on entry");
  int64_t c = -1;
  MPI_Aint d = mtest_disp(&M.w, M.data_rank, COUNTER);
  MTEST_MPI(MPI_Get(&c, 1, MPI_INT64_T, M.data_rank, d, 1, MPI_INT64_T, M.w.win));
  MTEST_MPI(MPI_Win_flush(M.data_rank, M.w.win));
  MTEST_CHECK(c >= 0, "thread %d read counter %lld", thread, (long long)c);
  c++;
  MTEST_MPI(MPI_Put(&c, 1, MPI_INT64_T, M.data_rank, d, 1, MPI_INT64_T, M.w.win));
  MTEST_MPI(MPI_Win_flush(M.data_rank, M.w.win));
  MTEST_EQ(fetch_add(M.data_rank, HOLDERS, -1, MPI_SUM), 1, "holders found on exit");
}

static void worker(int thread, void *arg) {
  (void)arg;
  for (int i = 0; i < M.iters; i++) {
    acquire();
    critical_section(thread);
    release();
  }
}

static void run(mtest_win_kind kind) {
  mtest_set_context("%s window", mtest_win_kind_name(kind));
  mtest_win_open(&M.w, kind, WIN_BYTES, MPI_INFO_NULL, MPI_COMM_WORLD);
  MTEST_MPI(MPI_Win_lock_all(0, M.w.win));
  mtest_run_threads(M.threads, worker, NULL);
  MTEST_MPI(MPI_Win_flush_all(M.w.win));
  MPI_Barrier(MPI_COMM_WORLD);
  MTEST_MPI(MPI_Win_sync(M.w.win));
  int64_t total = (int64_t)mtest.size * M.threads * M.iters;
  const int64_t *words = (const int64_t *)M.w.base;
  if (mtest.rank == M.lock_rank) {
    MTEST_EQ(words[NEXT_TICKET / 8], total, "tickets drawn");
    MTEST_EQ(words[NOW_SERVING / 8], total, "tickets served");
  }
  if (mtest.rank == M.data_rank) {
    MTEST_EQ(words[COUNTER / 8], total, "counter incremented under the mutex");
    MTEST_EQ(words[HOLDERS / 8], 0, "holders at the end");
  }
  MTEST_MPI(MPI_Win_unlock_all(M.w.win));
  mtest_win_close(&M.w);
}

int main(int argc, char **argv) {
  mtest_init(&argc, &argv, MPI_THREAD_MULTIPLE);
  M.threads = (int)mtest_arg_long(argc, argv, "--threads", 4);
  M.iters = (int)mtest_arg_long(argc, argv, "--iters", 10);
  M.lock_rank = 0;
  M.data_rank = mtest.size - 1;
  mtest_win_kind kinds[MTEST_NKINDS];
  int nk = mtest_win_kinds(argc, argv, kinds);
  for (int k = 0; k < nk; k++)
    run(kinds[k]);
  return mtest_finish();
}
