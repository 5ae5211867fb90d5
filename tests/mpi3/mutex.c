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
#include "mt3.h"

#include <sched.h>

enum { NEXT_TICKET = 0, NOW_SERVING = 8, COUNTER = 16, HOLDERS = 24, WIN_BYTES = 64 };

typedef struct {
  mt3_win w;
  int threads, iters;
  int lock_rank, data_rank;
} mutex_test;
static mutex_test M;

static int64_t fetch_add(int rank, size_t off, int64_t v, MPI_Op op) {
  int64_t res = 0;
  MT3_MPI(MPI_Fetch_and_op(&v, &res, MPI_INT64_T, rank, mt3_disp(&M.w, rank, off), op, M.w.win));
  MT3_MPI(MPI_Win_flush(rank, M.w.win));
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
      mt3_die(__FILE__, __LINE__, "ticket %lld waited %d s: now_serving %lld, next_ticket %lld",
              (long long)ticket, STUCK_SECONDS, (long long)serving,
              (long long)fetch_add(M.lock_rank, NEXT_TICKET, 0, MPI_NO_OP));
    /* Oversubscribed ranks: give the holder's process the core while waiting. */
    sched_yield();
  }
}

static void release(void) { fetch_add(M.lock_rank, NOW_SERVING, 1, MPI_SUM); }

static void critical_section(int thread) {
  MT3_EQ(fetch_add(M.data_rank, HOLDERS, 1, MPI_SUM), 0, "holders found on entry");
  int64_t c = -1;
  MPI_Aint d = mt3_disp(&M.w, M.data_rank, COUNTER);
  MT3_MPI(MPI_Get(&c, 1, MPI_INT64_T, M.data_rank, d, 1, MPI_INT64_T, M.w.win));
  MT3_MPI(MPI_Win_flush(M.data_rank, M.w.win));
  MT3_CHECK(c >= 0, "thread %d read counter %lld", thread, (long long)c);
  c++;
  MT3_MPI(MPI_Put(&c, 1, MPI_INT64_T, M.data_rank, d, 1, MPI_INT64_T, M.w.win));
  MT3_MPI(MPI_Win_flush(M.data_rank, M.w.win));
  MT3_EQ(fetch_add(M.data_rank, HOLDERS, -1, MPI_SUM), 1, "holders found on exit");
}

static void worker(int thread, void *arg) {
  (void)arg;
  for (int i = 0; i < M.iters; i++) {
    acquire();
    critical_section(thread);
    release();
  }
}

static void run(mt3_win_kind kind) {
  mt3_set_context("%s window", mt3_win_kind_name(kind));
  mt3_win_open(&M.w, kind, WIN_BYTES, MPI_INFO_NULL, MPI_COMM_WORLD);
  MT3_MPI(MPI_Win_lock_all(0, M.w.win));
  mt3_run_threads(M.threads, worker, NULL);
  MT3_MPI(MPI_Win_flush_all(M.w.win));
  MPI_Barrier(MPI_COMM_WORLD);
  MT3_MPI(MPI_Win_sync(M.w.win));
  int64_t total = (int64_t)mt3.size * M.threads * M.iters;
  const int64_t *words = (const int64_t *)M.w.base;
  if (mt3.rank == M.lock_rank) {
    MT3_EQ(words[NEXT_TICKET / 8], total, "tickets drawn");
    MT3_EQ(words[NOW_SERVING / 8], total, "tickets served");
  }
  if (mt3.rank == M.data_rank) {
    MT3_EQ(words[COUNTER / 8], total, "counter incremented under the mutex");
    MT3_EQ(words[HOLDERS / 8], 0, "holders at the end");
  }
  MT3_MPI(MPI_Win_unlock_all(M.w.win));
  mt3_win_close(&M.w);
}

int main(int argc, char **argv) {
  mt3_init(&argc, &argv, MPI_THREAD_MULTIPLE);
  M.threads = (int)mt3_arg_long(argc, argv, "--threads", 4);
  M.iters = (int)mt3_arg_long(argc, argv, "--iters", 10);
  M.lock_rank = 0;
  M.data_rank = mt3.size - 1;
  mt3_win_kind kinds[MT3_NKINDS];
  int nk = mt3_win_kinds(argc, argv, kinds);
  for (int k = 0; k < nk; k++)
    run(kinds[k]);
  return mt3_finish();
}
