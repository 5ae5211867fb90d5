/* The MPI-4 large-count request-based forms MPI_Rput_c, MPI_Rget_c,
 * MPI_Raccumulate_c and MPI_Rget_accumulate_c, and the MPI_Win_c2f /
 * MPI_Win_f2c round trip of a window handle.
 *
 * Each rank issues the four operations to the next rank in a lock_all epoch
 * and completes them with MPI_Waitall; then the Rget data and Rget_accumulate
 * results are checked at the origin, and the Rput data and both sums at the
 * target.  Round 0 uses the int-count forms, round 1 the _c forms (hosts of
 * MPI < 4, such as Open MPI 4.1, have none: round 0 only), on distinct memory,
 * so both must give the same data.  Also per _c form: MPI_PROC_NULL as the
 * target gives a request that completes; MPI_WIN_NULL fails with MPI_ERR_WIN
 * (MPICH's own "Invalid MPI_Win" was reached when Remora did not define the
 * _c forms); no epoch at all fails with MPI_ERR_RMA_SYNC.  A host MPI alone
 * may not detect the errors (see mtest_expect_class).
 *
 * --big also moves INT_MAX + 64 bytes (a count only MPI_Count holds) with
 * MPI_Rput_c and back with MPI_Rget_c, on an MPI_Win_allocate window of that
 * size: 4 GiB of memory per rank.
 *
 *   large_count_req [--win all|allocate,create,alloc_mem,dynamic] [--big] */
#include "mtest.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if MPI_VERSION >= 4
#define HAVE_C_FORMS 1
enum { NROUNDS = 2 };
#else
#define HAVE_C_FORMS 0
enum { NROUNDS = 1 };
#endif

enum { K = 8, NREGIONS = 5 };
/* Regions of the window, per round: P (Rput target), G (Rget source),
 * A (Raccumulate target), R (Rget_accumulate target); then S, scratch for
 * the erroneous calls that a host may carry out. */
enum { P, G, A, R, S };
static size_t off(int region, int round) { return ((size_t)region * NROUNDS + (size_t)round) * K * 8; }
static size_t win_bytes(void) { return off(NREGIONS, 0); }

static int64_t pval(int rank, int r, int e) { return 1000000 * (rank + 1) + 1000 * r + e; }
static int64_t gval(int rank, int r, int e) { return -pval(rank, r, e); }
static int64_t aval(int rank, int r, int e) { return 10 * rank + 100 * r + e; }  /* A at start */
static int64_t cval(int rank, int r, int e) { return 3 * rank + 50 * r + e + 1; }  /* accumulated into A */
static int64_t rval(int rank, int r, int e) { return 7 * rank + 200 * r + 2 * e; }  /* R at start */
static int64_t dval(int rank, int r, int e) { return 11 * rank + 300 * r + e + 5; }  /* accumulated into R */

static const char *round_name(int r) { return r == 0 ? "int-count forms" : "_c forms"; }

typedef struct {
  int64_t put[K], get[K], acc[K], ga[K], res[K];
} bufs;

/* The four operations of round r to `target`; requests in req[0..3]. */
static void issue(const mtest_win *w, int r, int target, bufs *b, MPI_Request req[4]) {
  MPI_Win win = w->win;
  if (r == 0) {
    MTEST_MPI(MPI_Rput(b->put, K, MPI_INT64_T, target, mtest_disp(w, target, off(P, r)), K, MPI_INT64_T, win,
                       &req[0]));
    MTEST_MPI(MPI_Rget(b->get, K, MPI_INT64_T, target, mtest_disp(w, target, off(G, r)), K, MPI_INT64_T, win,
                       &req[1]));
    MTEST_MPI(MPI_Raccumulate(b->acc, K, MPI_INT64_T, target, mtest_disp(w, target, off(A, r)), K, MPI_INT64_T,
                              MPI_SUM, win, &req[2]));
    MTEST_MPI(MPI_Rget_accumulate(b->ga, K, MPI_INT64_T, b->res, K, MPI_INT64_T, target,
                                  mtest_disp(w, target, off(R, r)), K, MPI_INT64_T, MPI_SUM, win, &req[3]));
    return;
  }
#if HAVE_C_FORMS
  MPI_Count k = K;
  MTEST_MPI(MPI_Rput_c(b->put, k, MPI_INT64_T, target, mtest_disp(w, target, off(P, r)), k, MPI_INT64_T, win,
                       &req[0]));
  MTEST_MPI(MPI_Rget_c(b->get, k, MPI_INT64_T, target, mtest_disp(w, target, off(G, r)), k, MPI_INT64_T, win,
                       &req[1]));
  MTEST_MPI(MPI_Raccumulate_c(b->acc, k, MPI_INT64_T, target, mtest_disp(w, target, off(A, r)), k, MPI_INT64_T,
                              MPI_SUM, win, &req[2]));
  MTEST_MPI(MPI_Rget_accumulate_c(b->ga, k, MPI_INT64_T, b->res, k, MPI_INT64_T, target,
                                  mtest_disp(w, target, off(R, r)), k, MPI_INT64_T, MPI_SUM, win, &req[3]));
#endif
}

static void data_rounds(mtest_win *w) {
  int next = (mtest.rank + 1) % mtest.size, prev = (mtest.rank + mtest.size - 1) % mtest.size;
  int64_t *mem = (int64_t *)w->base;
  MTEST_MPI(MPI_Win_lock_all(0, w->win));
  for (int r = 0; r < NROUNDS; r++)
    for (int e = 0; e < K; e++) {
      mem[off(G, r) / 8 + (size_t)e] = gval(mtest.rank, r, e);
      mem[off(A, r) / 8 + (size_t)e] = aval(mtest.rank, r, e);
      mem[off(R, r) / 8 + (size_t)e] = rval(mtest.rank, r, e);
    }
  MTEST_MPI(MPI_Win_sync(w->win));
  MPI_Barrier(MPI_COMM_WORLD);
  for (int r = 0; r < NROUNDS; r++) {
    bufs b;
    MPI_Request req[4];
    MPI_Status st[4];  /* MPICH's access attributes make gcc reject MPI_STATUSES_IGNORE */
    for (int e = 0; e < K; e++) {
      b.put[e] = pval(mtest.rank, r, e);
      b.acc[e] = cval(mtest.rank, r, e);
      b.ga[e] = dval(mtest.rank, r, e);
      b.get[e] = b.res[e] = -1;
    }
    issue(w, r, next, &b, req);
    MTEST_MPI(MPI_Waitall(4, req, st));
    for (int i = 0; i < 4; i++)
      MTEST_CHECK(req[i] == MPI_REQUEST_NULL, "%s: request %d not freed by MPI_Waitall", round_name(r), i);
    for (int e = 0; e < K; e++) {
      MTEST_CHECK(b.get[e] == gval(next, r, e), "%s: Rget element %d is %lld, expected %lld", round_name(r), e,
                  (long long)b.get[e], (long long)gval(next, r, e));
      MTEST_CHECK(b.res[e] == rval(next, r, e), "%s: Rget_accumulate fetched element %d as %lld, expected %lld",
                  round_name(r), e, (long long)b.res[e], (long long)rval(next, r, e));
    }
  }
  MTEST_MPI(MPI_Win_unlock_all(w->win));
  MPI_Barrier(MPI_COMM_WORLD);
  MTEST_MPI(MPI_Win_lock_all(0, w->win));
  MTEST_MPI(MPI_Win_sync(w->win));
  for (int r = 0; r < NROUNDS; r++)
    for (int e = 0; e < K; e++) {
      int64_t p = mem[off(P, r) / 8 + (size_t)e], a = mem[off(A, r) / 8 + (size_t)e],
              s = mem[off(R, r) / 8 + (size_t)e];
      MTEST_CHECK(p == pval(prev, r, e), "%s: Rput element %d at the target is %lld, expected %lld",
                  round_name(r), e, (long long)p, (long long)pval(prev, r, e));
      MTEST_CHECK(a == aval(mtest.rank, r, e) + cval(prev, r, e),
                  "%s: Raccumulate SUM element %d at the target is %lld, expected %lld", round_name(r), e,
                  (long long)a, (long long)(aval(mtest.rank, r, e) + cval(prev, r, e)));
      MTEST_CHECK(s == rval(mtest.rank, r, e) + dval(prev, r, e),
                  "%s: Rget_accumulate SUM element %d at the target is %lld, expected %lld", round_name(r), e,
                  (long long)s, (long long)(rval(mtest.rank, r, e) + dval(prev, r, e)));
    }
  MTEST_MPI(MPI_Win_unlock_all(w->win));
  MPI_Barrier(MPI_COMM_WORLD);
}

#if HAVE_C_FORMS
static const char *c_names[4] = {"MPI_Rput_c", "MPI_Rget_c", "MPI_Raccumulate_c", "MPI_Rget_accumulate_c"};

/* Operation a of the _c forms, one word at S + a of `target` (MPI_PROC_NULL:
 * displacement 0). */
static int call_c(int a, const mtest_win *w, MPI_Win win, int target, int64_t *buf, int64_t *res,
                  MPI_Request *req) {
  MPI_Aint disp = target == MPI_PROC_NULL ? 0 : mtest_disp(w, target, off(S, 0) + 8 * (size_t)a);
  switch (a) {
  case 0: return MPI_Rput_c(buf, 1, MPI_INT64_T, target, disp, 1, MPI_INT64_T, win, req);
  case 1: return MPI_Rget_c(res, 1, MPI_INT64_T, target, disp, 1, MPI_INT64_T, win, req);
  case 2: return MPI_Raccumulate_c(buf, 1, MPI_INT64_T, target, disp, 1, MPI_INT64_T, MPI_SUM, win, req);
  default:
    return MPI_Rget_accumulate_c(buf, 1, MPI_INT64_T, res, 1, MPI_INT64_T, target, disp, 1, MPI_INT64_T, MPI_SUM,
                                 win, req);
  }
}

static void c_edges(mtest_win *w) {
  int next = (mtest.rank + 1) % mtest.size;
  int64_t buf = 1, res = 0;
  char what[160];

  /* MPI_PROC_NULL: no data moves, the request completes. */
  MTEST_MPI(MPI_Win_lock_all(0, w->win));
  for (int a = 0; a < 4; a++) {
    MPI_Request req = MPI_REQUEST_NULL;
    res = 42;
    MTEST_MPI(call_c(a, w, w->win, MPI_PROC_NULL, &buf, &res, &req));
    MTEST_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    MTEST_CHECK(req == MPI_REQUEST_NULL, "%s to MPI_PROC_NULL: request not freed by MPI_Wait", c_names[a]);
    MTEST_EQ(res, 42, "result buffer of an operation to MPI_PROC_NULL");
  }
  MTEST_MPI(MPI_Win_unlock_all(w->win));

  /* MPI_WIN_NULL: raised on MPI_COMM_WORLD (Remora; MPICH may use
   * MPI_COMM_SELF), so both return errors for the call. */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  for (int a = 0; a < 4; a++) {
    MPI_Request req = MPI_REQUEST_NULL;
    int rc = call_c(a, w, MPI_WIN_NULL, next, &buf, &res, &req);
    snprintf(what, sizeof what, "%s on MPI_WIN_NULL", c_names[a]);
    MTEST_EXPECT_ERR(rc, MPI_ERR_WIN, what);
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);

  /* No epoch: MPI_ERR_RMA_SYNC on the window, and no request. */
  MPI_Win_set_errhandler(w->win, MPI_ERRORS_RETURN);
  MPI_Request stray[4];
  int nstray = 0;
  for (int a = 0; a < 4; a++) {
    MPI_Request req = (MPI_Request)0;
    int rc = call_c(a, w, w->win, next, &buf, &res, &req);
    snprintf(what, sizeof what, "%s with no epoch", c_names[a]);
    if (MTEST_EXPECT_ERR(rc, MPI_ERR_RMA_SYNC, what) && mtest.remora)
      MTEST_CHECK(req == MPI_REQUEST_NULL, "%s: the request is not MPI_REQUEST_NULL", what);
    if (rc == MPI_SUCCESS && req != MPI_REQUEST_NULL)
      stray[nstray++] = req;  /* a host that did not detect it: completed in an epoch */
  }
  MPI_Win_set_errhandler(w->win, MPI_ERRORS_ARE_FATAL);
  MPI_Barrier(MPI_COMM_WORLD);
  MTEST_MPI(MPI_Win_lock_all(0, w->win));
  for (int i = 0; i < nstray; i++)
    MPI_Wait(&stray[i], MPI_STATUS_IGNORE);
  MTEST_MPI(MPI_Win_unlock_all(w->win));
  MPI_Barrier(MPI_COMM_WORLD);
}

/* INT_MAX + 64 bytes to the next rank with MPI_Rput_c, and back from it with
 * MPI_Rget_c. */
static unsigned char big_byte(int rank, size_t i) { return (unsigned char)(i * 131 + (i >> 20) + 17 * rank); }

static void big(void) {
  int next = (mtest.rank + 1) % mtest.size, prev = (mtest.rank + mtest.size - 1) % mtest.size;
  const MPI_Count n = (MPI_Count)INT_MAX + 64;
  mtest_set_context("--big, %lld bytes", (long long)n);
  unsigned char *buf = malloc((size_t)n);
  MTEST_ASSERT(buf != NULL, "malloc of %lld bytes", (long long)n);
  mtest_win w;
  mtest_win_open(&w, MTEST_WIN_ALLOCATE, (size_t)n, MPI_INFO_NULL, MPI_COMM_WORLD);
  for (size_t i = 0; i < (size_t)n; i++)
    buf[i] = big_byte(mtest.rank, i);
  MPI_Request req;
  MTEST_MPI(MPI_Win_lock_all(0, w.win));
  MTEST_MPI(MPI_Rput_c(buf, n, MPI_BYTE, next, mtest_disp(&w, next, 0), n, MPI_BYTE, w.win, &req));
  MTEST_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
  MTEST_MPI(MPI_Win_unlock_all(w.win));
  MPI_Barrier(MPI_COMM_WORLD);
  MTEST_MPI(MPI_Win_lock_all(0, w.win));
  MTEST_MPI(MPI_Win_sync(w.win));
  size_t bad = 0, first = 0;
  for (size_t i = 0; i < (size_t)n; i++)
    if ((unsigned char)w.base[i] != big_byte(prev, i) && bad++ == 0)
      first = i;
  MTEST_CHECK(bad == 0, "MPI_Rput_c: %zu bytes wrong at the target, the first at %zu", bad, first);
  memset(buf, 0, (size_t)n);
  MTEST_MPI(MPI_Rget_c(buf, n, MPI_BYTE, next, mtest_disp(&w, next, 0), n, MPI_BYTE, w.win, &req));
  MTEST_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
  bad = 0;
  for (size_t i = 0; i < (size_t)n; i++)
    if (buf[i] != big_byte(mtest.rank, i) && bad++ == 0)  /* next holds what I put there */
      first = i;
  MTEST_CHECK(bad == 0, "MPI_Rget_c: %zu bytes wrong, the first at %zu", bad, first);
  MTEST_MPI(MPI_Win_unlock_all(w.win));
  MPI_Barrier(MPI_COMM_WORLD);
  mtest_win_close(&w);
  free(buf);
}
#endif

/* A window's Fortran handle turns back into the same window, which works. */
static void c2f_round_trip(mtest_win *w) {
  MPI_Fint f = MPI_Win_c2f(w->win);
  MPI_Win back = MPI_Win_f2c(f);
  MTEST_CHECK(back == w->win, "MPI_Win_f2c(MPI_Win_c2f(win)) is not win");
  MTEST_CHECK(MPI_Win_f2c(MPI_Win_c2f(MPI_WIN_NULL)) == MPI_WIN_NULL, "MPI_WIN_NULL does not round-trip");
  int flag = 0;
  MPI_Aint *size = NULL;
  MTEST_MPI(MPI_Win_get_attr(back, MPI_WIN_SIZE, &size, &flag));
  /* mtest may round an MPI_Win_allocate window up */
  MTEST_CHECK(flag && size && (w->kind == MTEST_WIN_DYNAMIC ? *size == 0 : *size >= (MPI_Aint)w->size),
              "MPI_WIN_SIZE of the window from MPI_Win_f2c");
  /* and it works in a collective call */
  MTEST_MPI(MPI_Win_fence(0, back));
  MTEST_MPI(MPI_Win_fence(MPI_MODE_NOSUCCEED, back));
}

int main(int argc, char **argv) {
  mtest_init(&argc, &argv, MPI_THREAD_SINGLE);
  if (mtest.rank == 0)
    printf("RMA served by %s; MPI_VERSION %d: %s\n", mtest.remora ? "Remora" : "the host MPI alone", MPI_VERSION,
           HAVE_C_FORMS ? "int-count and _c forms" : "int-count forms only");
  mtest_win_kind kinds[MTEST_NKINDS];
  int nk = mtest_win_kinds(argc, argv, kinds);
  for (int i = 0; i < nk; i++) {
    mtest_win w;
    mtest_set_context("%s window", mtest_win_kind_name(kinds[i]));
    mtest_win_open(&w, kinds[i], win_bytes(), MPI_INFO_NULL, MPI_COMM_WORLD);
    c2f_round_trip(&w);
    data_rounds(&w);
#if HAVE_C_FORMS
    c_edges(&w);
#endif
    mtest_win_close(&w);
  }
  for (int i = 1; i < argc; i++)
    if (strcmp(argv[i], "--big") == 0) {
#if HAVE_C_FORMS
      big();
#else
      if (mtest.rank == 0)
        printf("--big: this MPI has no large-count forms (MPI_VERSION %d)\n", MPI_VERSION);
#endif
    }
  mtest_set_context("%s", "");
  return mtest_finish();
}
