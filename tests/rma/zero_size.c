/* RMA calls with zero bytes to move are correct no-ops.
 *
 * MPI_Put, MPI_Get, MPI_Accumulate, MPI_Get_accumulate, MPI_Rput, MPI_Rget,
 * MPI_Raccumulate and MPI_Rget_accumulate with count 0 of MPI_INT (also with
 * NULL buffers), count 0 and count 1 of derived datatypes of size 0
 * (MPI_Type_contiguous(0, MPI_INT), a vector and an indexed type with
 * blocklength 0) on the origin and/or the target side, MPI_Get_accumulate
 * with MPI_NO_OP and the origin (NULL, 0, MPI_DATATYPE_NULL), and
 * MPI_Fetch_and_op with MPI_NO_OP and a NULL origin (its count is 1 by
 * definition: the target element lands in the result, the target is not
 * written), in every synchronization mode (fence, lock, lock_all, PSCW; the
 * request-based calls in lock and lock_all only) on every window kind.  The
 * calls of one sync mode go in one epoch, every rank's to rank+1, each call
 * at its own 32-byte slot of the window and of the result buffer; then every
 * byte of every window and of the result buffers must still hold its pattern
 * (a wrong write is traced to its call), and every request must have
 * completed (MPI_Test, 10 s at most).
 *
 * The zero-byte calls that are erroneous must fail with their class under
 * MPI_ERRORS_RETURN and change nothing: MPI_DATATYPE_NULL as the origin,
 * target or result datatype with count 0 (MPI_ERR_TYPE; only the origin of a
 * MPI_NO_OP Get_accumulate may be MPI_DATATYPE_NULL), size-0 types of
 * different basic types in an accumulate (MPI_ERR_TYPE over Open MPI; over
 * MPICH a no-op, as MPICH makes it), a size-0 derived
 * type in MPI_Fetch_and_op (MPI_ERR_TYPE: it takes predefined types only), a
 * rank outside the window's group (MPI_ERR_RANK), a negative displacement
 * into a window that is not dynamic (MPI_ERR_DISP as both hosts say; or
 * MPI_ERR_RMA_RANGE, the class Remora gives every negative displacement,
 * tests/errors), MPI_NO_OP in MPI_Accumulate (MPI_ERR_OP), no epoch, a
 * request-based call in a fence epoch, a target outside the lock epoch
 * (MPI_ERR_RMA_SYNC).  MPI_PROC_NULL, the window's end (disp = size), a
 * displacement past the end (no bytes are accessed: both hosts accept it,
 * and Remora does on dynamic windows) and a negative address in a dynamic
 * window (an address no byte is read at) are no-ops.
 *
 *   zero_size [--win all|allocate,create,alloc_mem,dynamic] [--sync fence,lock,lock_all,pscw]
 *             [--only CASE,...] [--host-skip ID,...] [--probe 1]
 *
 * CASE is <api>_<variant> (put_z1t, gacc_noop_n0, ...) or an erroneous
 * call's name (rank_size_put, ...).  --probe 1 prints what every call
 * returned and whether anything changed, checking nothing: the table below
 * was made with it.  --host-skip names what a host MPI alone does not check
 * (the calls are not made there; a note is printed):
 *   no_epoch          put/get/accumulate with no epoch
 *   no_epoch_req      MPI_Rput with no epoch
 *   fence_req         MPI_Rput in a fence epoch
 *   outside_lock      MPI_Put and MPI_Rput to a target the lock does not cover
 *   outside_lock_req  MPI_Rput to a target the lock does not cover
 *   result_null       MPI_DATATYPE_NULL result datatype of MPI_Get_accumulate
 *   fop_zero_type     MPI_Fetch_and_op on a size-0 derived type
 *   zero_mixed        accumulate of size-0 types of different basic types
 *
 * What the hosts do (probed with --probe 1 at 2 and 3 ranks, every sync mode
 * and window kind each component serves; Open MPI 4.1.4, MPICH 4.0.2):
 *
 *   case                          | OMPI osc/sm  | osc/pt2pt    | osc/ucx      | MPICH        | expected
 *   ------------------------------+--------------+--------------+--------------+--------------+-------------
 *   count 0 MPI_INT, also NULL    | ok           | ok           | ok           | ok           | ok, no-op
 *     buffers (all 8 calls)       |              |              |              |              |
 *   size-0 derived types: count 0,| ok           | ok           | ok           | ok           | ok, no-op
 *     count 1 origin / target /   |              |              |              |              |
 *     both; contig, vector, index |              |              |              |              |
 *   Get_accumulate NO_OP, origin  | ok           | ok           | ok           | ok           | ok, no-op
 *     (NULL,0,DATATYPE_NULL),     |              |              |              |              |
 *     result count 0 / size-0 x1  |              |              |              |              |
 *   Fetch_and_op NO_OP, NULL      | ok (result = | ok (result = | ok (result = | ok (result = | ok, target
 *     origin                      |  target)     |  target)     |  target)     |  target)     |  unchanged
 *   DATATYPE_NULL count 0 origin  | ERR_TYPE     | ERR_TYPE     | ERR_TYPE     | ERR_TYPE     | ERR_TYPE
 *     or target (all 8 calls)     |              |              |              |              |
 *   DATATYPE_NULL count 0 result  | ok           | ok           | ok           | ERR_TYPE     | ERR_TYPE
 *     of (R)Get_accumulate        |              |              |              |              |  (result_null)
 *   Fetch_and_op on a size-0 type | ok, WRITES   | ok           | ok           | ERR_TYPE     | ERR_TYPE
 *                                 |  the target! |              |              |              |  (fop_zero_type)
 *   accumulate of size-0 DOUBLE   | ERR_ARG      | ERR_ARG      | ERR_ARG      | ok           | ERR_TYPE; ok
 *     origin, size-0 INT target   |              |              |              |              |  on MPICH
 *                                 |              |              |              |              |  (zero_mixed)
 *   put/get of the same           | ok           | ok           | ok           | ok           | ok, no-op
 *   rank = size, rank = -5        | ERR_RANK     | ERR_RANK     | ERR_RANK     | ERR_RANK     | ERR_RANK
 *   MPI_PROC_NULL                 | ok           | ok           | ok           | ok           | ok
 *   disp -8 (not dynamic)         | ERR_DISP     | ERR_DISP     | ERR_DISP     | ERR_DISP     | ERR_DISP or
 *                                 |              |              |              |              |  ERR_RMA_RANGE
 *   disp -8 (dynamic: an address) | -            | ok           | ok           | ok           | ok
 *   disp = window size            | ok           | ok           | ok           | ok           | ok
 *   disp = size + 4096            | ok           | ok           | ok           | ok           | ok (*)
 *   Accumulate with MPI_NO_OP     | ERR_OP       | ERR_OP       | ERR_OP       | ERR_OP       | ERR_OP
 *   put/get/acc, no epoch         | ok           | ERR_RMA_SYNC | ERR_RMA_SYNC | ERR_RMA_SYNC | ERR_RMA_SYNC
 *   Rput, no epoch                | ok           | ok           | ERR_RMA_SYNC | ERR_RMA_SYNC | ERR_RMA_SYNC
 *   Rput in a fence epoch         | ok           | ok           | ERR_RMA_SYNC | ok           | ERR_RMA_SYNC
 *   Put outside the lock (3 ranks)| ok           | ERR_RMA_SYNC | ERR_RMA_SYNC | ok           | ERR_RMA_SYNC
 *   Rput outside the lock         | ok           | ok           | ERR_RMA_SYNC | ok           | ERR_RMA_SYNC
 *
 * (*) The hosts check no ranges at all (a count-1 MPI_Put past the end
 * succeeds there and corrupts memory), so their "ok" is no decision; no byte
 * is accessed, and a dynamic window accepts it in every implementation, so
 * the test takes it as a no-op on every window kind. */
#include "mtest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every call of an epoch has its own slot of the target window and of the
 * result buffer, so that whatever a call wrongly wrote is traced to it. */
enum { SLOT = 32, NSLOTS = 128, WIN_BYTES = SLOT * NSLOTS, RES_FILL = 0xa5, ORIGIN_FILL = 0x11 };

typedef enum { PUT, GET, ACC, GACC, FOP, RPUT, RGET, RACC, RGACC, NAPI } api;
static const char *api_ids[NAPI] = {"put", "get", "acc", "gacc", "fop", "rput", "rget", "racc", "rgacc"};
static const char *api_names[NAPI] = {"MPI_Put", "MPI_Get", "MPI_Accumulate", "MPI_Get_accumulate",
                                      "MPI_Fetch_and_op", "MPI_Rput", "MPI_Rget", "MPI_Raccumulate",
                                      "MPI_Rget_accumulate"};
#define BIT(a) (1u << (a))
enum {
  MOVE = BIT(PUT) | BIT(GET) | BIT(ACC) | BIT(GACC) | BIT(RPUT) | BIT(RGET) | BIT(RACC) | BIT(RGACC),
  ACCS = BIT(ACC) | BIT(GACC) | BIT(RACC) | BIT(RGACC),
  GACCS = BIT(GACC) | BIT(RGACC),
};
static int is_acc(api a) { return (ACCS >> a) & 1u; }
static int is_req(api a) { return a >= RPUT; }

/* Datatypes: MPI_INT, size-0 contiguous of MPI_INT, size-0 vector with an
 * extent (3 blocks of 0, stride 2), size-0 indexed (blocklengths 0),
 * size-0 contiguous of MPI_DOUBLE, MPI_DATATYPE_NULL. */
typedef enum { D_INT, D_ZERO, D_ZVEC, D_ZIDX, D_ZDBL, D_NULL, ND } dcode;
static MPI_Datatype types[ND];

typedef struct {
  const char *id, *what;
  unsigned apis;
  dcode o, t, r;     /* origin, target, result (Get_accumulate) datatypes */
  int oc, tc, rc;    /* and counts */
  int null_bufs;     /* origin and result addresses NULL */
  int noop;          /* MPI_NO_OP, origin address NULL */
  int cls, acc_cls;  /* expected class (put/get, accumulates) */
  const char *skip;  /* --host-skip id */
} variant;

/* Remora does what the host does with zero bytes of different basic types
 * in an accumulate (issue 32): MPICH takes them as a no-op, Open MPI refuses
 * them (MPI_ERR_ARG; Remora says MPI_ERR_TYPE). */
#if defined(OPEN_MPI)
#define ZERO_MIXED_ACC MPI_ERR_TYPE
#else
#define ZERO_MIXED_ACC MPI_SUCCESS
#endif

static const variant variants[] = {
  {"c0", "count 0 of MPI_INT", MOVE, D_INT, D_INT, D_INT, 0, 0, 0, 0, 0, MPI_SUCCESS, MPI_SUCCESS, NULL},
  {"c0null", "count 0 of MPI_INT, NULL buffers", MOVE, D_INT, D_INT, D_INT, 0, 0, 0, 1, 0, MPI_SUCCESS,
   MPI_SUCCESS, NULL},
  {"z0", "count 0 of a size-0 derived type", MOVE, D_ZERO, D_ZERO, D_ZERO, 0, 0, 0, 0, 0, MPI_SUCCESS,
   MPI_SUCCESS, NULL},
  {"z1", "count 1 of a size-0 contiguous type on both sides", MOVE, D_ZERO, D_ZERO, D_ZERO, 1, 1, 1, 0, 0,
   MPI_SUCCESS, MPI_SUCCESS, NULL},
  {"z1o", "count 1 of a size-0 type at the origin, count 0 of MPI_INT at the target", MOVE, D_ZERO, D_INT,
   D_ZERO, 1, 0, 1, 0, 0, MPI_SUCCESS, MPI_SUCCESS, NULL},
  {"z1t", "count 0 of MPI_INT at the origin, count 1 of a size-0 type at the target", MOVE, D_INT, D_ZERO,
   D_INT, 0, 1, 0, 0, 0, MPI_SUCCESS, MPI_SUCCESS, NULL},
  {"zv1", "count 1 of a size-0 vector (blocklength 0) on both sides", MOVE, D_ZVEC, D_ZVEC, D_ZVEC, 1, 1, 1,
   0, 0, MPI_SUCCESS, MPI_SUCCESS, NULL},
  {"zidx", "count 1 of a size-0 indexed type on both sides", MOVE, D_ZIDX, D_ZIDX, D_ZIDX, 1, 1, 1, 0, 0,
   MPI_SUCCESS, MPI_SUCCESS, NULL},
  {"zmix", "size-0 types of MPI_DOUBLE (origin) and MPI_INT (target)", MOVE, D_ZDBL, D_ZERO, D_ZDBL, 1, 1,
   1, 0, 0, MPI_SUCCESS, ZERO_MIXED_ACC, "zero_mixed"},
  {"n0o", "count 0 of MPI_DATATYPE_NULL at the origin", MOVE, D_NULL, D_INT, D_INT, 0, 0, 0, 0, 0,
   MPI_ERR_TYPE, MPI_ERR_TYPE, NULL},
  {"n0t", "count 0 of MPI_DATATYPE_NULL at the target", MOVE, D_INT, D_NULL, D_INT, 0, 0, 0, 0, 0,
   MPI_ERR_TYPE, MPI_ERR_TYPE, NULL},
  {"n0r", "count 0 of MPI_DATATYPE_NULL as the result", GACCS, D_INT, D_INT, D_NULL, 0, 0, 0, 0, 0,
   MPI_ERR_TYPE, MPI_ERR_TYPE, "result_null"},
  {"noop_n0", "MPI_NO_OP, origin (NULL, 0, MPI_DATATYPE_NULL), count 0 of MPI_INT", GACCS, D_NULL, D_INT,
   D_INT, 0, 0, 0, 0, 1, MPI_SUCCESS, MPI_SUCCESS, NULL},
  {"noop_nz1", "MPI_NO_OP, origin (NULL, 0, MPI_DATATYPE_NULL), count 1 of a size-0 type", GACCS, D_NULL,
   D_ZERO, D_ZERO, 0, 1, 1, 0, 1, MPI_SUCCESS, MPI_SUCCESS, NULL},
  {"noop_nn", "MPI_NO_OP, origin and result (NULL, 0, MPI_DATATYPE_NULL)", GACCS, D_NULL, D_INT, D_NULL, 0,
   0, 0, 0, 1, MPI_ERR_TYPE, MPI_ERR_TYPE, "result_null"},
  /* MPI_Fetch_and_op: one datatype for origin, result and target. */
  {"noop_null", "MPI_NO_OP with a NULL origin (the target element lands in the result)", BIT(FOP), D_INT,
   D_INT, D_INT, 1, 1, 1, 0, 1, MPI_SUCCESS, MPI_SUCCESS, NULL},
  {"zero_type", "on a size-0 derived type", BIT(FOP), D_ZERO, D_ZERO, D_ZERO, 1, 1, 1, 0, 0, MPI_ERR_TYPE,
   MPI_ERR_TYPE, "fop_zero_type"},
};
enum { NVAR = sizeof variants / sizeof variants[0] };

typedef enum { FENCE, LOCK, LOCK_ALL, PSCW, NSYNC } sync_mode;
static const char *sync_names[NSYNC] = {"fence", "lock", "lock_all", "pscw"};

typedef struct {
  mtest_win w;
  int next, prev;
  MPI_Group to, from;  /* PSCW: access to next, exposure to prev */
  unsigned char origin[SLOT], result[WIN_BYTES];
  int probe;
  const char *only, *skip;
} zs;

/* One call of a batch (every rank makes the same list, towards rank+1). */
typedef struct {
  char id[48], what[200];
  api api;
  const variant *v;  /* a no-op or erroneous call of the table ... */
  int target;        /* ... or an erroneous call of erroneous_calls() */
  MPI_Aint disp;     /* byte offset in the slot's window, or absolute */
  int absolute;
  MPI_Op op;
  int exp, alt;      /* expected class (or alt) */
  int rc, done;
  MPI_Request req;
} call;

static unsigned char pattern(size_t i, int rank) { return (unsigned char)(i * 7 + rank * 31 + 1); }

/* Window pattern and buffers, made public; collective. */
static void refill(zs *z) {
  for (size_t i = 0; i < z->w.size; i++)
    z->w.base[i] = (char)pattern(i, mtest.rank);
  memset(z->origin, ORIGIN_FILL, sizeof z->origin);
  memset(z->result, RES_FILL, sizeof z->result);
  MTEST_MPI(MPI_Win_lock_all(MPI_MODE_NOCHECK, z->w.win));
  MTEST_MPI(MPI_Win_sync(z->w.win));
  MTEST_MPI(MPI_Win_unlock_all(z->w.win));
  MPI_Barrier(MPI_COMM_WORLD);
}

static int issue(zs *z, call *c, int slot) {
  const variant *v = c->v;
  MPI_Datatype ot = types[v->o], tt = types[v->t], rt = types[v->r];
  void *o = v->null_bufs || v->noop ? NULL : z->origin;
  void *r = v->null_bufs ? NULL : z->result + (size_t)slot * SLOT;
  MPI_Op op = v->noop ? MPI_NO_OP : MPI_SUM;
  MPI_Aint disp = mtest_disp(&z->w, z->next, (size_t)slot * SLOT);
  int t = z->next;
  MPI_Win win = z->w.win;
  MPI_Request *req = &c->req;
  switch (c->api) {
  case PUT: return MPI_Put(o, v->oc, ot, t, disp, v->tc, tt, win);
  case GET: return MPI_Get(r, v->oc, ot, t, disp, v->tc, tt, win);
  case ACC: return MPI_Accumulate(o, v->oc, ot, t, disp, v->tc, tt, op, win);
  case GACC: return MPI_Get_accumulate(o, v->oc, ot, r, v->rc, rt, t, disp, v->tc, tt, op, win);
  case FOP: return MPI_Fetch_and_op(o, r, tt, t, disp, op, win);
  case RPUT: return MPI_Rput(o, v->oc, ot, t, disp, v->tc, tt, win, req);
  case RGET: return MPI_Rget(r, v->oc, ot, t, disp, v->tc, tt, win, req);
  case RACC: return MPI_Raccumulate(o, v->oc, ot, t, disp, v->tc, tt, op, win, req);
  case RGACC: return MPI_Rget_accumulate(o, v->oc, ot, r, v->rc, rt, t, disp, v->tc, tt, op, win, req);
  case NAPI: break;
  }
  return MPI_ERR_OTHER;
}

/* The erroneous calls: zero MPI_INTs, wherever they say. */
static int issue_bad(zs *z, call *c, int slot) {
  MPI_Aint disp = c->absolute ? c->disp : mtest_disp(&z->w, z->next, (size_t)c->disp);
  void *r = z->result + (size_t)slot * SLOT;
  MPI_Win win = z->w.win;
  switch (c->api) {
  case PUT: return MPI_Put(z->origin, 0, MPI_INT, c->target, disp, 0, MPI_INT, win);
  case GET: return MPI_Get(r, 0, MPI_INT, c->target, disp, 0, MPI_INT, win);
  case ACC: return MPI_Accumulate(z->origin, 0, MPI_INT, c->target, disp, 0, MPI_INT, c->op, win);
  case RPUT: return MPI_Rput(z->origin, 0, MPI_INT, c->target, disp, 0, MPI_INT, win, &c->req);
  default: return MPI_ERR_OTHER;
  }
}

typedef enum { E_NONE, E_FENCE, E_LOCK, E_LOCK_ALL, E_PSCW } epoch;

static void open_epoch(zs *z, epoch e) {
  switch (e) {
  case E_FENCE: MTEST_MPI(MPI_Win_fence(0, z->w.win)); break;
  case E_LOCK: MTEST_MPI(MPI_Win_lock(MPI_LOCK_SHARED, z->next, 0, z->w.win)); break;
  case E_LOCK_ALL: MTEST_MPI(MPI_Win_lock_all(0, z->w.win)); break;
  case E_PSCW:
    MTEST_MPI(MPI_Win_post(z->from, 0, z->w.win));
    MTEST_MPI(MPI_Win_start(z->to, 0, z->w.win));
    break;
  case E_NONE: break;
  }
}

static void close_epoch(zs *z, epoch e) {
  switch (e) {
  case E_FENCE: MTEST_MPI(MPI_Win_fence(MPI_MODE_NOSUCCEED, z->w.win)); break;
  case E_LOCK: MTEST_MPI(MPI_Win_unlock(z->next, z->w.win)); break;
  case E_LOCK_ALL: MTEST_MPI(MPI_Win_unlock_all(z->w.win)); break;
  case E_PSCW:
    MTEST_MPI(MPI_Win_complete(z->w.win));
    MTEST_MPI(MPI_Win_wait(z->w.win));
    break;
  case E_NONE: break;
  }
}

/* A request of a zero-byte call completes (MPI_Test, at most 10 s). */
static int complete(MPI_Request *req) {
  int flag = 0;
  for (double t0 = MPI_Wtime(); !flag && MPI_Wtime() - t0 < 10;)
    MTEST_MPI(MPI_Test(req, &flag, MPI_STATUS_IGNORE));
  return flag;
}

static int class_of(int rc) {
  int cls = MPI_SUCCESS;
  if (rc != MPI_SUCCESS)
    MPI_Error_class(rc, &cls);
  return cls;
}

/* Runs the n calls in one epoch e and checks them: classes and requests,
 * then (collectively) results and every window.  bad: erroneous_calls(). */
static void run_batch(zs *z, call *c, int n, epoch e, int bad) {
  MTEST_ASSERT(n <= NSLOTS, "%d calls in a batch, %d slots", n, NSLOTS);
  open_epoch(z, e);
  for (int i = 0; i < n; i++) {
    c[i].req = MPI_REQUEST_NULL;
    c[i].rc = bad ? issue_bad(z, &c[i], i) : issue(z, &c[i], i);
    c[i].done = 1;
    if (c[i].rc == MPI_SUCCESS && c[i].req != MPI_REQUEST_NULL && e != E_NONE)
      c[i].done = complete(&c[i].req);
  }
  close_epoch(z, e);
  if (e == E_NONE) {  /* requests a host handed out with no epoch: completed in one */
    MTEST_MPI(MPI_Win_lock_all(0, z->w.win));
    for (int i = 0; i < n; i++)
      if (c[i].rc == MPI_SUCCESS && c[i].req != MPI_REQUEST_NULL)
        complete(&c[i].req);
    MTEST_MPI(MPI_Win_unlock_all(z->w.win));
  }
  int res_changed[NSLOTS] = {0}, changed[NSLOTS] = {0}, any = 0;
  for (int i = 0; i < n; i++) {
    int cls = class_of(c[i].rc), fop_result = !bad && c[i].api == FOP && c[i].v->noop && cls == MPI_SUCCESS;
    const unsigned char *res = z->result + (size_t)i * SLOT;
    for (int b = 0; b < SLOT; b++) {
      /* MPI_Fetch_and_op with MPI_NO_OP fetched rank+1's int */
      int want = fop_result && b < (int)sizeof(int) ? pattern((size_t)i * SLOT + (size_t)b, z->next) : RES_FILL;
      if (res[b] != want) {
        res_changed[i] = 1;
        MTEST_CHECK(z->probe, "%s: result buffer byte %d is %#x, expected %#x", c[i].what, b, res[b], want);
        break;
      }
    }
    if (z->probe)
      continue;
    if (c[i].exp != MPI_SUCCESS && !(c[i].alt && cls == c[i].alt))
      MTEST_EXPECT_ERR(c[i].rc, c[i].exp, c[i].what);
    else if (c[i].exp == MPI_SUCCESS && c[i].rc != MPI_SUCCESS)
      mtest_fail_rc(__FILE__, __LINE__, c[i].what, c[i].rc);
    MTEST_CHECK(c[i].done, "%s: its request did not complete in 10 s", c[i].what);
    MTEST_CHECK(!c[i].done || c[i].req == MPI_REQUEST_NULL, "%s: a completed request was not freed", c[i].what);
  }
  /* My window, as rank-1 left it (every call of slot i came from there). */
  MPI_Barrier(MPI_COMM_WORLD);
  MTEST_MPI(MPI_Win_lock_all(MPI_MODE_NOCHECK, z->w.win));
  MTEST_MPI(MPI_Win_sync(z->w.win));
  for (size_t b = 0; b < z->w.size; b++) {
    unsigned char got = (unsigned char)z->w.base[b];
    if (got == pattern(b, mtest.rank) || changed[b / SLOT < NSLOTS ? b / SLOT : NSLOTS - 1])
      continue;
    int i = (int)(b / SLOT);
    changed[i < NSLOTS ? i : NSLOTS - 1] = 1;
    MTEST_CHECK(z->probe, "%s from rank %d changed my window at byte %zu of its slot (%#x, was %#x)",
                i < n ? c[i].what : "(no call)", z->prev, b % SLOT, got, pattern(b, mtest.rank));
  }
  MTEST_MPI(MPI_Win_unlock_all(z->w.win));
  MPI_Allreduce(MPI_IN_PLACE, changed, NSLOTS, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  for (int i = 0; i < NSLOTS; i++)
    any |= changed[i] | (i < n && res_changed[i]);
  if (z->probe && mtest.rank == 0) {
    for (int i = 0; i < n; i++)
      printf("probe %-8s %-9s %s: %s%s%s%s\n", bad ? "invalid" : sync_names[e - E_FENCE],
             mtest_win_kind_name(z->w.kind), c[i].id, mtest_class_name(class_of(c[i].rc)),
             changed[i] ? " WINDOW-CHANGED" : "", res_changed[i] ? " RESULT-CHANGED" : "",
             c[i].done ? "" : " REQUEST-NOT-COMPLETE");
    fflush(stdout);
  }
  MPI_Allreduce(MPI_IN_PLACE, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (any)
    refill(z);
}

/* A note, once per case, for the calls --host-skip leaves out. */
static int skipped(zs *z, const char *id, const char *what) {
  if (!mtest_listed(z->skip, id))
    return 0;
  static char noted[4096];
  if (mtest.rank == 0 && !strstr(noted, what) && strlen(noted) + strlen(what) + 2 < sizeof noted) {
    strcat(strcat(noted, what), "\n");
    printf("not run over the host MPI alone (it does not check): %s\n", what);
  }
  return 1;
}

static void valid_calls(zs *z, const char *syncs) {
  static call c[NSLOTS];
  for (int s = 0; s < NSYNC; s++) {
    if (!mtest_listed(syncs, sync_names[s]))
      continue;
    mtest_set_context("%s window, %s", mtest_win_kind_name(z->w.kind), sync_names[s]);
    int n = 0;
    for (int a = 0; a < NAPI; a++) {
      if (is_req((api)a) && (s == FENCE || s == PSCW))
        continue;  /* request-based calls belong to passive-target epochs */
      for (int i = 0; i < NVAR; i++) {
        const variant *v = &variants[i];
        MTEST_ASSERT(n < NSLOTS, "more calls in a batch than the %d slots", NSLOTS);
        call *k = &c[n];
        memset(k, 0, sizeof *k);
        snprintf(k->id, sizeof k->id, "%s_%s", api_ids[a], v->id);
        snprintf(k->what, sizeof k->what, "%s_%s: %s %s", api_ids[a], v->id, api_names[a], v->what);
        if (!((v->apis >> a) & 1u) || (z->only && !mtest_listed(z->only, k->id)))
          continue;
        k->api = (api)a;
        k->v = v;
        k->exp = is_acc((api)a) ? v->acc_cls : v->cls;
        /* The skip ids name erroneous calls, hence only when one is expected. */
        if (v->skip && k->exp != MPI_SUCCESS && skipped(z, v->skip, k->what + strlen(k->id) + 2))
          continue;
        n++;
      }
    }
    run_batch(z, c, n, (epoch)(E_FENCE + s), 0);
  }
}

/* Erroneous (and borderline) zero-byte calls, in batches by epoch. */
static void erroneous_calls(zs *z) {
  enum { NEXT = -100, PREV = -101 };
  int dyn = z->w.kind == MTEST_WIN_DYNAMIC, size = mtest.size;
  const struct {
    const char *id, *what;
    epoch epoch;     /* E_LOCK: a lock on rank+1 only */
    api api;
    int target;
    MPI_Aint disp;   /* byte offset into the target's window (0: the call's slot), or absolute */
    int absolute;
    MPI_Op op;
    int cls, alt;    /* expected class, or alt */
    const char *skip;
  } calls[] = {
    {"rank_size_put", "MPI_Put to rank = size", E_LOCK_ALL, PUT, size, 0, 0, MPI_SUM, MPI_ERR_RANK, 0, NULL},
    {"rank_neg_put", "MPI_Put to rank -5", E_LOCK_ALL, PUT, -5, 0, 0, MPI_SUM, MPI_ERR_RANK, 0, NULL},
    {"rank_size_get", "MPI_Get from rank = size", E_LOCK_ALL, GET, size, 0, 0, MPI_SUM, MPI_ERR_RANK, 0, NULL},
    {"rank_size_acc", "MPI_Accumulate to rank = size", E_LOCK_ALL, ACC, size, 0, 0, MPI_SUM, MPI_ERR_RANK, 0,
     NULL},
    {"procnull_put", "MPI_Put to MPI_PROC_NULL", E_LOCK_ALL, PUT, MPI_PROC_NULL, 0, 0, MPI_SUM, MPI_SUCCESS, 0,
     NULL},
    /* Negative: an invalid displacement, but in a dynamic window an address. */
    {"disp_neg_put", "MPI_Put at displacement -8", E_LOCK_ALL, PUT, NEXT, -8, 1, MPI_SUM,
     dyn ? MPI_SUCCESS : MPI_ERR_DISP, dyn ? 0 : MPI_ERR_RMA_RANGE, NULL},
    {"disp_neg_get", "MPI_Get at displacement -8", E_LOCK_ALL, GET, NEXT, -8, 1, MPI_SUM,
     dyn ? MPI_SUCCESS : MPI_ERR_DISP, dyn ? 0 : MPI_ERR_RMA_RANGE, NULL},
    {"disp_neg_acc", "MPI_Accumulate at displacement -8", E_LOCK_ALL, ACC, NEXT, -8, 1, MPI_SUM,
     dyn ? MPI_SUCCESS : MPI_ERR_DISP, dyn ? 0 : MPI_ERR_RMA_RANGE, NULL},
    {"disp_end_put", "MPI_Put at the window's end", E_LOCK_ALL, PUT, NEXT, WIN_BYTES, 0, MPI_SUM, MPI_SUCCESS,
     0, NULL},
    {"disp_past_put", "MPI_Put 4096 bytes past the window's end", E_LOCK_ALL, PUT, NEXT, WIN_BYTES + 4096, 0,
     MPI_SUM, MPI_SUCCESS, 0, NULL},
    {"disp_past_get", "MPI_Get 4096 bytes past the window's end", E_LOCK_ALL, GET, NEXT, WIN_BYTES + 4096, 0,
     MPI_SUM, MPI_SUCCESS, 0, NULL},
    {"acc_noop", "MPI_Accumulate with MPI_NO_OP", E_LOCK_ALL, ACC, NEXT, 0, 0, MPI_NO_OP, MPI_ERR_OP, 0, NULL},
    {"no_epoch_put", "MPI_Put with no epoch", E_NONE, PUT, NEXT, 0, 0, MPI_SUM, MPI_ERR_RMA_SYNC, 0, "no_epoch"},
    {"no_epoch_get", "MPI_Get with no epoch", E_NONE, GET, NEXT, 0, 0, MPI_SUM, MPI_ERR_RMA_SYNC, 0, "no_epoch"},
    {"no_epoch_acc", "MPI_Accumulate with no epoch", E_NONE, ACC, NEXT, 0, 0, MPI_SUM, MPI_ERR_RMA_SYNC, 0,
     "no_epoch"},
    {"no_epoch_rput", "MPI_Rput with no epoch", E_NONE, RPUT, NEXT, 0, 0, MPI_SUM, MPI_ERR_RMA_SYNC, 0,
     "no_epoch_req"},
    {"fence_rput", "MPI_Rput in a fence epoch", E_FENCE, RPUT, NEXT, 0, 0, MPI_SUM, MPI_ERR_RMA_SYNC, 0,
     "fence_req"},
    {"outside_lock_put", "MPI_Put to a target the lock does not cover", E_LOCK, PUT, PREV, 0, 0, MPI_SUM,
     MPI_ERR_RMA_SYNC, 0, "outside_lock"},
    {"outside_lock_rput", "MPI_Rput to a target the lock does not cover", E_LOCK, RPUT, PREV, 0, 0, MPI_SUM,
     MPI_ERR_RMA_SYNC, 0, "outside_lock_req"},
  };
  enum { NCALLS = sizeof calls / sizeof calls[0] };
  static call c[NCALLS];
  mtest_set_context("%s window, erroneous zero-byte calls", mtest_win_kind_name(z->w.kind));
  const epoch epochs[] = {E_LOCK_ALL, E_NONE, E_FENCE, E_LOCK};
  for (size_t e = 0; e < sizeof epochs / sizeof epochs[0]; e++) {
    int n = 0;
    for (int i = 0; i < NCALLS; i++) {
      if (calls[i].epoch != epochs[e] || (z->only && !mtest_listed(z->only, calls[i].id)))
        continue;
      if (calls[i].epoch == E_LOCK && mtest.size < 3)
        continue;  /* rank-1 is rank+1 (or me): the lock covers it */
      call *k = &c[n];
      memset(k, 0, sizeof *k);
      snprintf(k->id, sizeof k->id, "%s", calls[i].id);
      snprintf(k->what, sizeof k->what, "%s: zero-byte %s", calls[i].id, calls[i].what);
      /* outside_lock covers both calls, outside_lock_req the request only */
      if (calls[i].skip && (skipped(z, calls[i].skip, k->what + strlen(k->id) + 2) ||
                            (calls[i].api == RPUT && skipped(z, "outside_lock", k->what + strlen(k->id) + 2))))
        continue;
      k->api = calls[i].api;
      k->target = calls[i].target == NEXT ? z->next : calls[i].target == PREV ? z->prev : calls[i].target;
      /* relative displacements start at the call's slot */
      k->disp = calls[i].absolute || calls[i].disp ? calls[i].disp : (MPI_Aint)n * SLOT;
      k->absolute = calls[i].absolute;
      k->op = calls[i].op;
      k->exp = calls[i].cls;
      k->alt = calls[i].alt;
      n++;
    }
    if (n)
      run_batch(z, c, n, epochs[e], 1);
  }
}

int main(int argc, char **argv) {
  mtest_init(&argc, &argv, MPI_THREAD_SINGLE);
  zs z = {0};
  z.skip = mtest_host_list(argc, argv, "--host-skip");
  z.only = mtest_arg_str(argc, argv, "--only", NULL);
  z.probe = (int)mtest_arg_long(argc, argv, "--probe", 0);
  const char *syncs = mtest_arg_str(argc, argv, "--sync", "fence,lock,lock_all,pscw");
  z.next = (mtest.rank + 1) % mtest.size;
  z.prev = (mtest.rank + mtest.size - 1) % mtest.size;
  MPI_Group world;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  MPI_Group_incl(world, 1, &z.next, &z.to);
  MPI_Group_incl(world, 1, &z.prev, &z.from);
  MPI_Group_free(&world);

  types[D_INT] = MPI_INT;
  types[D_NULL] = MPI_DATATYPE_NULL;
  MPI_Type_contiguous(0, MPI_INT, &types[D_ZERO]);
  MPI_Type_vector(3, 0, 2, MPI_INT, &types[D_ZVEC]);
  int blens[2] = {0, 0}, displs[2] = {0, 3};
  MPI_Type_indexed(2, blens, displs, MPI_INT, &types[D_ZIDX]);
  MPI_Type_contiguous(0, MPI_DOUBLE, &types[D_ZDBL]);
  for (int d = D_ZERO; d <= D_ZDBL; d++)
    MPI_Type_commit(&types[d]);

  mtest_win_kind kinds[MTEST_NKINDS];
  int nk = mtest_win_kinds(argc, argv, kinds);
  for (int k = 0; k < nk; k++) {
    mtest_win_open(&z.w, kinds[k], WIN_BYTES, MPI_INFO_NULL, MPI_COMM_WORLD);
    MPI_Win_set_errhandler(z.w.win, MPI_ERRORS_RETURN);
    refill(&z);
    valid_calls(&z, syncs);
    erroneous_calls(&z);
    mtest_set_context("%s", "");
    mtest_win_close(&z.w);
  }
  for (int d = D_ZERO; d <= D_ZDBL; d++)
    MPI_Type_free(&types[d]);
  MPI_Group_free(&z.to);
  MPI_Group_free(&z.from);
  return mtest_finish();
}
