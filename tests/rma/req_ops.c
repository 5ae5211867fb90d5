/* Request-based RMA: MPI_Rput, MPI_Rget, MPI_Raccumulate, MPI_Rget_accumulate
 * in lock_all and in lock epochs, their requests completed together with host
 * point-to-point requests (MPI_Isend/MPI_Irecv) by MPI_Waitall, MPI_Testany,
 * MPI_Waitsome, MPI_Test, MPI_Waitany, MPI_Testall and MPI_Wait loops.
 *
 * Completion semantics checked: when a request completes, Rget data and
 * Rget_accumulate results are in place, and the origin buffers of Rput and
 * Raccumulate may be reused (they are overwritten at once; the targets must
 * still get the original data, checked after the epoch).  A request may also
 * be completed after MPI_Win_unlock.
 *
 *   req_ops [--win all|allocate,create,alloc_mem,dynamic] */
#include "mtest.h"

#include <string.h>

enum { K = 8, NREQ = 6 };
typedef enum { WAITALL, TESTANY, WAITSOME, TEST, WAITANY, TESTALL, WAIT, AFTER_UNLOCK, NMETHODS } method;
static const char *method_names[] = {"MPI_Waitall", "MPI_Testany", "MPI_Waitsome", "MPI_Test",
                                     "MPI_Waitany", "MPI_Testall", "MPI_Wait", "MPI_Wait after unlock"};
/* Rounds 0..NMETHODS-2 in one lock_all epoch; then every method in lock epochs. */
enum { NALL = NMETHODS - 1, ROUNDS = NALL + NMETHODS };

/* Window: A (Rput targets), B (Rget sources), D (Rget_accumulate), C (Raccumulate) */
static size_t off_a(int r) { return (size_t)r * K * 8; }
static size_t off_b(int r) { return (size_t)(ROUNDS + r) * K * 8; }
static size_t off_d(int r) { return (size_t)2 * ROUNDS * K * 8 + (size_t)r * 8; }
static size_t off_c(void) { return off_d(ROUNDS); }
static size_t win_bytes(void) { return off_c() + 8; }

static int64_t val_a(int rank, int r, int e) { return 1000000 * (rank + 1) + 1000 * r + e; }
static int64_t val_b(int rank, int r, int e) { return -val_a(rank, r, e); }
static int64_t val_d(int rank, int r) { return 77 * rank + r; }
static int64_t val_m(int rank, int r) { return 5 * rank + 3 * r + 1; }

typedef struct {
  mtest_win w;
  int next, prev;
  int64_t put[K], get[K], acc, ga_origin, ga_result, send, recv;
} req_test;

static void complete(method m, MPI_Request *req, int n) {
  int done = 0, flag = 0, idx, outcount, idxs[NREQ];
  /* Real status arrays: MPICH's access attributes make gcc reject
   * MPI_STATUSES_IGNORE here. */
  MPI_Status st[NREQ];
  switch (m) {
  case WAITALL:
    MTEST_MPI(MPI_Waitall(n, req, st));
    break;
  case TESTANY:
    for (;;) {
      MTEST_MPI(MPI_Testany(n, req, &idx, &flag, MPI_STATUS_IGNORE));
      if (flag && idx == MPI_UNDEFINED)
        break;  /* every request is complete and freed */
    }
    break;
  case WAITSOME:
    while (done < n) {
      MTEST_MPI(MPI_Waitsome(n, req, &outcount, idxs, st));
      MTEST_ASSERT(outcount != MPI_UNDEFINED, "MPI_Waitsome found no active request");
      done += outcount;
    }
    break;
  case TEST:
    for (int i = 0; i < n; i++)
      for (flag = 0; !flag;)
        MTEST_MPI(MPI_Test(&req[i], &flag, MPI_STATUS_IGNORE));
    break;
  case WAITANY:
    for (int i = 0; i < n; i++) {
      MTEST_MPI(MPI_Waitany(n, req, &idx, MPI_STATUS_IGNORE));
      MTEST_ASSERT(idx != MPI_UNDEFINED, "MPI_Waitany found no active request");
    }
    break;
  case TESTALL:
    for (flag = 0; !flag;)
      MTEST_MPI(MPI_Testall(n, req, &flag, st));
    break;
  case WAIT:
  case AFTER_UNLOCK:
  case NMETHODS:
    for (int i = 0; i < n; i++)
      MTEST_MPI(MPI_Wait(&req[i], MPI_STATUS_IGNORE));
    break;
  }
  for (int i = 0; i < n; i++)
    MTEST_CHECK(req[i] == MPI_REQUEST_NULL, "request %d not freed by %s", i, method_names[m]);
}

static void issue(req_test *t, int r, MPI_Request req[NREQ]) {
  MPI_Win win = t->w.win;
  for (int e = 0; e < K; e++)
    t->put[e] = val_a(mtest.rank, r, e);
  t->acc = r + 1;
  t->ga_origin = r + 7;
  t->send = val_m(mtest.rank, r);
  MTEST_MPI(MPI_Irecv(&t->recv, 1, MPI_INT64_T, t->prev, r, MPI_COMM_WORLD, &req[0]));
  MTEST_MPI(MPI_Rput(t->put, K, MPI_INT64_T, t->next, mtest_disp(&t->w, t->next, off_a(r)), K,
                   MPI_INT64_T, win, &req[1]));
  MTEST_MPI(MPI_Rget(t->get, K, MPI_INT64_T, t->prev, mtest_disp(&t->w, t->prev, off_b(r)), K,
                   MPI_INT64_T, win, &req[2]));
  MTEST_MPI(MPI_Raccumulate(&t->acc, 1, MPI_INT64_T, 0, mtest_disp(&t->w, 0, off_c()), 1, MPI_INT64_T,
                          MPI_SUM, win, &req[3]));
  MTEST_MPI(MPI_Rget_accumulate(&t->ga_origin, 1, MPI_INT64_T, &t->ga_result, 1, MPI_INT64_T, t->next,
                              mtest_disp(&t->w, t->next, off_d(r)), 1, MPI_INT64_T, MPI_SUM, win,
                              &req[4]));
  MTEST_MPI(MPI_Isend(&t->send, 1, MPI_INT64_T, t->next, r, MPI_COMM_WORLD, &req[5]));
}

/* Local completion: results are here and origin buffers are mine again. */
static void after_completion(req_test *t, int r, method m) {
  for (int e = 0; e < K; e++)
    MTEST_CHECK(t->get[e] == val_b(t->prev, r, e), "round %d (%s): MPI_Rget element %d is %lld, "
              "expected %lld", r, method_names[m], e, (long long)t->get[e],
              (long long)val_b(t->prev, r, e));
  MTEST_CHECK(t->ga_result == val_d(t->next, r), "round %d (%s): MPI_Rget_accumulate fetched %lld, "
            "expected %lld", r, method_names[m], (long long)t->ga_result,
            (long long)val_d(t->next, r));
  MTEST_CHECK(t->recv == val_m(t->prev, r), "round %d (%s): received %lld, expected %lld", r,
            method_names[m], (long long)t->recv, (long long)val_m(t->prev, r));
  memset(t->put, 0xa5, sizeof t->put);
  t->acc = t->ga_origin = -999999;
  memset(t->get, 0, sizeof t->get);
}

/* The distinct targets of a round in ascending order (a global lock order). */
static int lock_targets(const req_test *t, int out[3]) {
  int cand[3] = {0, t->next, t->prev}, n = 0;
  for (int v = 0; v < mtest.size; v++)
    for (int i = 0; i < 3; i++)
      if (cand[i] == v) {
        out[n++] = v;
        break;
      }
  return n;
}

static void lock_round(req_test *t, int r, method m) {
  int targets[3], n = lock_targets(t, targets);
  /* Shared: an exclusive lock could wait on a rank that itself waits, in
   * complete(), for my message. */
  int type = MPI_LOCK_SHARED;
  MPI_Request req[NREQ];
  for (int i = 0; i < n; i++)
    MTEST_MPI(MPI_Win_lock(type, targets[i], 0, t->w.win));
  issue(t, r, req);
  if (m != AFTER_UNLOCK)
    complete(m, req, NREQ);
  for (int i = n - 1; i >= 0; i--)
    MTEST_MPI(MPI_Win_unlock(targets[i], t->w.win));
  if (m == AFTER_UNLOCK)
    complete(m, req, NREQ);
  after_completion(t, r, m);
}

static void check_targets(const req_test *t) {
  const int64_t *w = (const int64_t *)t->w.base;
  for (int r = 0; r < ROUNDS; r++) {
    for (int e = 0; e < K; e++)
      MTEST_CHECK(w[off_a(r) / 8 + (size_t)e] == val_a(t->prev, r, e), "round %d: MPI_Rput element %d "
                "is %lld, expected %lld", r, e, (long long)w[off_a(r) / 8 + (size_t)e],
                (long long)val_a(t->prev, r, e));
    MTEST_EQ(w[off_d(r) / 8], val_d(mtest.rank, r) + r + 7, "MPI_Rget_accumulate SUM at the target");
  }
  if (mtest.rank == 0)
    MTEST_EQ(w[off_c() / 8], (int64_t)mtest.size * ROUNDS * (ROUNDS + 1) / 2, "MPI_Raccumulate SUMs");
}

static void run(req_test *t, mtest_win_kind kind) {
  mtest_set_context("%s window", mtest_win_kind_name(kind));
  mtest_win_open(&t->w, kind, win_bytes(), MPI_INFO_NULL, MPI_COMM_WORLD);
  int64_t *w = (int64_t *)t->w.base;
  MTEST_MPI(MPI_Win_lock_all(0, t->w.win));
  for (int r = 0; r < ROUNDS; r++) {
    for (int e = 0; e < K; e++)
      w[off_b(r) / 8 + (size_t)e] = val_b(mtest.rank, r, e);
    w[off_d(r) / 8] = val_d(mtest.rank, r);
  }
  MTEST_MPI(MPI_Win_sync(t->w.win));
  MPI_Barrier(MPI_COMM_WORLD);
  for (int r = 0; r < NALL; r++) {
    MPI_Request req[NREQ];
    issue(t, r, req);
    complete((method)r, req, NREQ);
    after_completion(t, r, (method)r);
  }
  MTEST_MPI(MPI_Win_unlock_all(t->w.win));
  for (int r = NALL; r < ROUNDS; r++)
    lock_round(t, r, (method)(r - NALL));

  MPI_Barrier(MPI_COMM_WORLD);
  MTEST_MPI(MPI_Win_lock_all(0, t->w.win));
  MTEST_MPI(MPI_Win_sync(t->w.win));
  check_targets(t);
  MTEST_MPI(MPI_Win_unlock_all(t->w.win));
  mtest_win_close(&t->w);
}

int main(int argc, char **argv) {
  mtest_init(&argc, &argv, MPI_THREAD_SINGLE);
  static req_test t;
  t.next = (mtest.rank + 1) % mtest.size;
  t.prev = (mtest.rank + mtest.size - 1) % mtest.size;
  mtest_win_kind kinds[MTEST_NKINDS];
  int nk = mtest_win_kinds(argc, argv, kinds);
  for (int k = 0; k < nk; k++)
    run(&t, kinds[k]);
  return mtest_finish();
}
