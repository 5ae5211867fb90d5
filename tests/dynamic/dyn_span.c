/* Dynamic windows: accesses that span regions attached back to back.
 *
 * Every rank allocates one int array and attaches it to a dynamic window in
 * pieces, with one MPI_Win_attach per piece, adjacent in memory.  Layouts:
 *   two    two regions, split at a multiple of 8 bytes
 *   three  three regions, the middle one shorter than an access
 *   odd    two regions, split at a byte offset that is 4 mod 8
 *   mid    two regions, split inside an int (2 mod 4)
 * Then every rank accesses rank+1's array with COUNT ints (default 9216),
 * from COUNT/3 ints before the first boundary on, so that they cross from
 * one region into the next (into all three for "three"), through
 * MPI_Put, MPI_Get, MPI_Accumulate (MPI_SUM and MPI_REPLACE),
 * MPI_Get_accumulate (MPI_SUM and MPI_NO_OP), MPI_Rput and MPI_Rget, with the
 * target contiguous (MPI_INT), a vector (blocks of 3 ints, stride 4) and an
 * indexed type (irregular blocks and gaps); the origin is always COUNT
 * contiguous ints.  The owner checks every int of its array (the covered ones
 * changed as the operation says, the others untouched), the origin every int
 * it fetched.  Each case starts from a fresh pattern, in a lock_all epoch
 * with flushes and barriers between the phases.
 *
 * Then the errors (MPI_ERRORS_RETURN on the window): regions that are not
 * adjacent (a gap of 64 bytes between them), and an access crossing the gap
 * must fail with MPI_ERR_RMA_RANGE (put, get, accumulate, get_accumulate);
 * two adjacent regions of which the second is then detached, and an access
 * crossing into it must fail with MPI_ERR_RMA_RANGE while one inside the
 * first still works.  A call that reported the error must have changed
 * nothing.  A host MPI alone need not detect these (it prints "host does not
 * detect": mtest_expect_class).
 *
 *   dyn_span [--count N] [--layouts two,three,odd,mid] [--shapes contiguous,vector,indexed]
 *            [--errors 0|1] [--trace 1] */
#include "mtest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The array: TOTAL ints.  An access starts COUNT/3 ints before the first
 * boundary (at most MAXCOUNT: the vector spans 4/3 of COUNT). */
enum { TOTAL = 16384, MAXCOUNT = 9600 };

typedef struct {
  const char *name;
  int nsplit;
  size_t split[2];  /* byte offsets where a new region starts */
} layout;

static const layout layouts[] = {
  {"two", 1, {4 * 6144}},
  {"three", 2, {4 * 5000, 4 * 9000}},
  {"odd", 1, {4 * 6145}},          /* 24580 = 4 mod 8 */
  {"mid", 1, {4 * 6145 + 2}},      /* inside an int */
};
enum { NLAYOUTS = sizeof layouts / sizeof layouts[0] };

typedef enum { PUT, GET, ACC_SUM, ACC_REPLACE, GACC_SUM, GACC_NOOP, RPUT, RGET, NOPS } op_kind;
static const char *op_names[NOPS] = {"MPI_Put", "MPI_Get", "MPI_Accumulate(MPI_SUM)",
                                     "MPI_Accumulate(MPI_REPLACE)", "MPI_Get_accumulate(MPI_SUM)",
                                     "MPI_Get_accumulate(MPI_NO_OP)", "MPI_Rput", "MPI_Rget"};

/* A target shape: COUNT ints at target positions pos[k] (ints from the start). */
typedef struct {
  const char *name;
  MPI_Datatype dt;
  int count;  /* of dt */
  int *pos;
  int span;   /* ints from the start to past the last one */
} shape;

typedef struct {
  MPI_Win win;
  int count;
  int *array;        /* TOTAL ints, the regions' memory */
  MPI_Aint *base;    /* per rank: address of its array */
  int *origin, *result, *expect;
  int next, prev;
} span_test;

static int trace;

static int init_val(int rank, int c, int i) { return rank * 1000003 + c * 7919 + i * 3 + 1; }
static int org_val(int rank, int c, int k) { return -(rank * 100019 + c * 613 + k * 5 + 7); }

static void make_shapes(span_test *t, shape *s) {
  int n = t->count;
  /* contiguous */
  s[0].name = "contiguous MPI_INT";
  s[0].dt = MPI_INT;
  s[0].count = n;
  s[0].pos = malloc(sizeof(int) * (size_t)n);
  for (int k = 0; k < n; k++)
    s[0].pos[k] = k;
  s[0].span = n;
  /* vector: blocks of 3 ints every 4 (n a multiple of 3) */
  s[1].name = "vector (blocks of 3, stride 4)";
  MPI_Type_vector(n / 3, 3, 4, MPI_INT, &s[1].dt);
  MPI_Type_commit(&s[1].dt);
  s[1].count = 1;
  s[1].pos = malloc(sizeof(int) * (size_t)n);
  for (int k = 0; k < n; k++)
    s[1].pos[k] = k / 3 * 4 + k % 3;
  s[1].span = (n / 3 - 1) * 4 + 3;
  /* indexed: blocks of 1..17 ints, gaps of 0..4 */
  s[2].name = "indexed (irregular blocks)";
  int nb = 0, *bl = malloc(sizeof(int) * (size_t)n), *dp = malloc(sizeof(int) * (size_t)n);
  s[2].pos = malloc(sizeof(int) * (size_t)n);
  for (int k = 0, at = 0; k < n; nb++) {
    int len = 1 + (nb * 7) % 17, gap = (nb * 3) % 5;
    if (len > n - k)
      len = n - k;
    bl[nb] = len;
    dp[nb] = at;
    for (int j = 0; j < len; j++)
      s[2].pos[k++] = at + j;
    at += len + gap;
  }
  MPI_Type_indexed(nb, bl, dp, MPI_INT, &s[2].dt);
  MPI_Type_commit(&s[2].dt);
  s[2].count = 1;
  s[2].span = s[2].pos[n - 1] + 1;
  free(bl);
  free(dp);
}

/* One case: fresh pattern everywhere, rank -> rank+1, then both sides check. */
static void run_case(span_test *t, const layout *l, const shape *s, op_kind op, int c) {
  int n = t->count, *arr = t->array, start = (int)(l->split[0] / 4) - n / 3;
  MTEST_ASSERT(start >= 0 && start + s->span <= TOTAL, "%s: %d ints from int %d do not fit", s->name, s->span,
               start);
  mtest_set_context("%s layout, %s, %s", l->name, op_names[op], s->name);
  if (trace)
    fprintf(stderr, "rank %d: %s layout, %s, %s\n", mtest.rank, l->name, op_names[op], s->name);
  for (int i = 0; i < TOTAL; i++)
    arr[i] = init_val(mtest.rank, c, i);
  for (int k = 0; k < n; k++) {
    t->origin[k] = org_val(mtest.rank, c, k);
    t->result[k] = 0x5a5a5a5a;
  }
  MTEST_MPI(MPI_Win_sync(t->win));
  MPI_Barrier(MPI_COMM_WORLD);

  MPI_Aint disp = t->base[t->next] + (MPI_Aint)start * 4;
  MPI_Request req = MPI_REQUEST_NULL;
  int *o = t->origin, *r = t->result, nx = t->next;
  int rc = MPI_ERR_OTHER;
  switch (op) {
  case PUT: rc = MPI_Put(o, n, MPI_INT, nx, disp, s->count, s->dt, t->win); break;
  case GET: rc = MPI_Get(r, n, MPI_INT, nx, disp, s->count, s->dt, t->win); break;
  case ACC_SUM: rc = MPI_Accumulate(o, n, MPI_INT, nx, disp, s->count, s->dt, MPI_SUM, t->win); break;
  case ACC_REPLACE: rc = MPI_Accumulate(o, n, MPI_INT, nx, disp, s->count, s->dt, MPI_REPLACE, t->win); break;
  case GACC_SUM:
    rc = MPI_Get_accumulate(o, n, MPI_INT, r, n, MPI_INT, nx, disp, s->count, s->dt, MPI_SUM, t->win);
    break;
  case GACC_NOOP:
    rc = MPI_Get_accumulate(NULL, 0, MPI_DATATYPE_NULL, r, n, MPI_INT, nx, disp, s->count, s->dt, MPI_NO_OP,
                            t->win);
    break;
  case RPUT: rc = MPI_Rput(o, n, MPI_INT, nx, disp, s->count, s->dt, t->win, &req); break;
  case RGET: rc = MPI_Rget(r, n, MPI_INT, nx, disp, s->count, s->dt, t->win, &req); break;
  case NOPS: break;
  }
  if (rc != MPI_SUCCESS)
    mtest_fail_rc(__FILE__, __LINE__, op_names[op], rc);
  if (req != MPI_REQUEST_NULL)
    MTEST_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));  /* Rget data are in place now */
  MTEST_MPI(MPI_Win_flush(nx, t->win));

  /* Origin: what it fetched is rank+1's pattern at the covered positions. */
  int fetch = rc == MPI_SUCCESS && (op == GET || op == GACC_SUM || op == GACC_NOOP || op == RGET), bad = 0;
  for (int k = 0; fetch && k < n; k++) {
    int want = init_val(nx, c, start + s->pos[k]);
    if (r[k] != want && bad++ < 3)
      mtest_fail(__FILE__, __LINE__, "fetched element %d (int %d of rank %d, byte %d) is %d, expected %d", k,
                 start + s->pos[k], nx, 4 * (start + s->pos[k]), r[k], want);
  }
  MTEST_CHECK(bad <= 3, "%d fetched elements wrong in all", bad);

  /* Target: my array as rank-1's operation leaves it. */
  MPI_Barrier(MPI_COMM_WORLD);
  MTEST_MPI(MPI_Win_sync(t->win));
  int *e = t->expect, pv = t->prev;
  for (int i = 0; i < TOTAL; i++)
    e[i] = init_val(mtest.rank, c, i);
  for (int k = 0; k < n; k++) {
    int *x = &e[start + s->pos[k]];
    switch (op) {
    case PUT: case ACC_REPLACE: case RPUT: *x = org_val(pv, c, k); break;
    case ACC_SUM: case GACC_SUM: *x = (int)((unsigned)*x + (unsigned)org_val(pv, c, k)); break;
    default: break;
    }
  }
  bad = 0;
  for (int i = 0; i < TOTAL; i++)
    if (arr[i] != e[i] && bad++ < 3) {
      int region = 0;
      while (region < l->nsplit && (size_t)4 * i >= l->split[region])
        region++;
      mtest_fail(__FILE__, __LINE__, "from rank %d: my int %d (byte %d, region %d) is %d, expected %d%s", pv, i,
                 4 * i, region, arr[i], e[i], arr[i] == init_val(mtest.rank, c, i) ? " (untouched)" : "");
    }
  MTEST_CHECK(bad <= 3, "%d ints of my array wrong in all", bad);
  MPI_Barrier(MPI_COMM_WORLD);
}

static void attach_layout(span_test *t, const layout *l) {
  char *b = (char *)t->array;
  size_t at = 0;
  for (int i = 0; i <= l->nsplit; i++) {
    size_t end = i < l->nsplit ? l->split[i] : (size_t)TOTAL * 4;
    MTEST_MPI(MPI_Win_attach(t->win, b + at, (MPI_Aint)(end - at)));
    at = end;
  }
}

static void detach_layout(span_test *t, const layout *l) {
  char *b = (char *)t->array;
  MTEST_MPI(MPI_Win_detach(t->win, b));
  for (int i = 0; i < l->nsplit; i++)
    MTEST_MPI(MPI_Win_detach(t->win, b + l->split[i]));
}

static void spanning(span_test *t, const char *which, const char *shape_ids, shape *shapes) {
  static const char *ids[3] = {"contiguous", "vector", "indexed"};
  int c = 0;
  for (int li = 0; li < NLAYOUTS; li++) {
    const layout *l = &layouts[li];
    if (!mtest_listed(which, l->name))
      continue;
    attach_layout(t, l);
    MPI_Barrier(MPI_COMM_WORLD);  /* attached everywhere before anyone accesses */
    MTEST_MPI(MPI_Win_lock_all(0, t->win));
    for (int si = 0; si < 3; si++)
      for (int op = 0; op < NOPS && mtest_listed(shape_ids, ids[si]); op++)
        run_case(t, l, &shapes[si], (op_kind)op, c++);
    MTEST_MPI(MPI_Win_unlock_all(t->win));
    MPI_Barrier(MPI_COMM_WORLD);  /* nobody accesses while regions go */
    detach_layout(t, l);
  }
}

/* An access of 32 ints from 16 ints before `edge` (a byte offset in rank+1's
 * array) must fail with MPI_ERR_RMA_RANGE and change nothing. */
static void crossing_fails(span_test *t, size_t edge, const char *why) {
  int nx = t->next, n = 32;
  MPI_Aint disp = t->base[nx] + (MPI_Aint)edge - 16 * 4;
  for (int a = 0; a < 4; a++) {
    for (int k = 0; k < n; k++) {
      t->origin[k] = org_val(mtest.rank, 999, k);
      t->result[k] = 0x5a5a5a5a;
    }
    /* Only the checks below run between the barriers: nobody writes the
     * arrays then, and a failed call must have left them as they were. */
    MPI_Barrier(MPI_COMM_WORLD);
    int rc = MPI_SUCCESS;
    const char *name = "";
    switch (a) {
    case 0:
      name = "MPI_Put";
      rc = MPI_Put(t->origin, n, MPI_INT, nx, disp, n, MPI_INT, t->win);
      break;
    case 1:
      name = "MPI_Get";
      rc = MPI_Get(t->result, n, MPI_INT, nx, disp, n, MPI_INT, t->win);
      break;
    case 2:
      name = "MPI_Accumulate(MPI_SUM)";
      rc = MPI_Accumulate(t->origin, n, MPI_INT, nx, disp, n, MPI_INT, MPI_SUM, t->win);
      break;
    default:
      name = "MPI_Get_accumulate(MPI_SUM)";
      rc = MPI_Get_accumulate(t->origin, n, MPI_INT, t->result, n, MPI_INT, nx, disp, n, MPI_INT, MPI_SUM,
                              t->win);
      break;
    }
    if (rc == MPI_SUCCESS)
      rc = MPI_Win_flush(nx, t->win);  /* a host may report it at completion */
    char what[200];
    snprintf(what, sizeof what, "%s of %d ints crossing %s", name, n, why);
    int detected = mtest_expect_class(__FILE__, __LINE__, rc, MPI_ERR_RMA_RANGE, what);
    if (detected && (a == 1 || a == 3))
      for (int k = 0; k < n; k++)
        if (t->result[k] != 0x5a5a5a5a) {
          mtest_fail(__FILE__, __LINE__, "%s failed but wrote its result buffer (element %d)", what, k);
          break;
        }
    /* The target checks that a failed call changed nothing of its array
     * (every rank's call failed, or the host took it: then it may have). */
    int all = 0;
    MPI_Allreduce(&detected, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MTEST_MPI(MPI_Win_sync(t->win));
    for (int i = 0; all && i < TOTAL; i++)
      if (t->array[i] != init_val(mtest.rank, 998, i)) {
        mtest_fail(__FILE__, __LINE__, "%s from rank %d failed but changed my int %d", what, t->prev, i);
        break;
      }
    MPI_Barrier(MPI_COMM_WORLD);
  }
}

static void fill_for_errors(span_test *t) {
  for (int i = 0; i < TOTAL; i++)
    t->array[i] = init_val(mtest.rank, 998, i);
  MTEST_MPI(MPI_Win_sync(t->win));
}

static void errors(span_test *t) {
  char *b = (char *)t->array;
  size_t half = (size_t)TOTAL * 2, gap = 64;

  /* Two regions with a gap between them: [0, half) and [half + gap, end). */
  mtest_set_context("regions with a gap");
  MTEST_MPI(MPI_Win_attach(t->win, b, (MPI_Aint)half));
  MTEST_MPI(MPI_Win_attach(t->win, b + half + gap, (MPI_Aint)(TOTAL * 4 - half - gap)));
  MPI_Barrier(MPI_COMM_WORLD);
  MTEST_MPI(MPI_Win_lock_all(0, t->win));
  fill_for_errors(t);
  crossing_fails(t, half, "the gap between two regions");
  crossing_fails(t, half + gap, "from the gap into the second region");
  MTEST_MPI(MPI_Win_unlock_all(t->win));
  MPI_Barrier(MPI_COMM_WORLD);
  MTEST_MPI(MPI_Win_detach(t->win, b));
  MTEST_MPI(MPI_Win_detach(t->win, b + half + gap));

  /* Two adjacent regions; the second detached. */
  mtest_set_context("second region detached");
  MTEST_MPI(MPI_Win_attach(t->win, b, (MPI_Aint)half));
  MTEST_MPI(MPI_Win_attach(t->win, b + half, (MPI_Aint)half));
  MPI_Barrier(MPI_COMM_WORLD);
  MTEST_MPI(MPI_Win_lock_all(0, t->win));
  fill_for_errors(t);
  MPI_Barrier(MPI_COMM_WORLD);
  /* Crossing works while both are attached (the spanning above, once more). */
  int nx = t->next;
  MPI_Aint disp = t->base[nx] + (MPI_Aint)half - 16 * 4;
  int rc = MPI_Get(t->result, 32, MPI_INT, nx, disp, 32, MPI_INT, t->win);
  if (rc != MPI_SUCCESS)
    mtest_fail_rc(__FILE__, __LINE__, "MPI_Get of 32 ints across two adjacent regions", rc);
  MTEST_MPI(MPI_Win_flush(nx, t->win));
  for (int k = 0; k < 32 && rc == MPI_SUCCESS; k++)
    if (t->result[k] != init_val(nx, 998, (int)half / 4 - 16 + k)) {
      mtest_fail(__FILE__, __LINE__, "MPI_Get across two adjacent regions: element %d is %d, expected %d", k,
                 t->result[k], init_val(nx, 998, (int)half / 4 - 16 + k));
      break;
    }
  MTEST_MPI(MPI_Win_unlock_all(t->win));
  MPI_Barrier(MPI_COMM_WORLD);
  MTEST_MPI(MPI_Win_detach(t->win, b + half));
  MPI_Barrier(MPI_COMM_WORLD);  /* detached everywhere before anyone accesses */
  MTEST_MPI(MPI_Win_lock_all(0, t->win));
  fill_for_errors(t);
  crossing_fails(t, half, "into a detached region");
  /* Inside the first region still works (fresh data: a host that did not
   * detect the crossing calls wrote into the array). */
  fill_for_errors(t);
  MPI_Barrier(MPI_COMM_WORLD);
  MTEST_MPI(MPI_Get(t->result, 16, MPI_INT, nx, disp, 16, MPI_INT, t->win));
  MTEST_MPI(MPI_Win_flush(nx, t->win));
  MTEST_EQ(t->result[15], init_val(nx, 998, (int)half / 4 - 1), "MPI_Get inside the region still attached");
  MTEST_MPI(MPI_Win_unlock_all(t->win));
  MPI_Barrier(MPI_COMM_WORLD);
  MTEST_MPI(MPI_Win_detach(t->win, b));
}

int main(int argc, char **argv) {
  mtest_init(&argc, &argv, MPI_THREAD_SINGLE);
  span_test t = {0};
  t.count = (int)mtest_arg_long(argc, argv, "--count", 9216);
  const char *which = mtest_arg_str(argc, argv, "--layouts", "two,three,odd,mid");
  int do_errors = (int)mtest_arg_long(argc, argv, "--errors", 1);
  trace = (int)mtest_arg_long(argc, argv, "--trace", 0);
  t.count -= t.count % 3;  /* whole vector blocks */
  MTEST_ASSERT(t.count >= 3 && t.count <= MAXCOUNT, "--count %d: 3 to %d", t.count, MAXCOUNT);
  t.next = (mtest.rank + 1) % mtest.size;
  t.prev = (mtest.rank + mtest.size - 1) % mtest.size;
  t.array = aligned_alloc(64, (size_t)TOTAL * 4);
  t.origin = malloc(sizeof(int) * (size_t)t.count);
  t.result = malloc(sizeof(int) * (size_t)t.count);
  t.expect = malloc(sizeof(int) * TOTAL);
  t.base = malloc(sizeof(MPI_Aint) * (size_t)mtest.size);
  MTEST_ASSERT(t.array && t.origin && t.result && t.expect && t.base, "malloc");
  MPI_Aint mine;
  MPI_Get_address(t.array, &mine);
  MPI_Allgather(&mine, 1, MPI_AINT, t.base, 1, MPI_AINT, MPI_COMM_WORLD);
  MTEST_MPI(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &t.win));
  /* A failing case is reported (and the others still run), never fatal. */
  MPI_Win_set_errhandler(t.win, MPI_ERRORS_RETURN);

  shape shapes[3];
  make_shapes(&t, shapes);
  spanning(&t, which, mtest_arg_str(argc, argv, "--shapes", "contiguous,vector,indexed"), shapes);
  if (do_errors)
    errors(&t);

  MTEST_MPI(MPI_Win_free(&t.win));
  for (int i = 0; i < 3; i++) {
    if (shapes[i].dt != MPI_INT)
      MPI_Type_free(&shapes[i].dt);
    free(shapes[i].pos);
  }
  free(t.array);
  free(t.origin);
  free(t.result);
  free(t.expect);
  free(t.base);
  return mtest_finish();
}
