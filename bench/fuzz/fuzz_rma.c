/* fuzz_rma: a bounded fuzzer of erroneous MPI-3 RMA calls (issue 32, item 6).
 *
 *   fuzz_rma --seed S [--first N] [--count K] [--case-timeout SEC] [--skip M1,M2,...]
 *            [--out PREFIX] [--trace] | --list
 *
 * Case n (of a run with seed S) is a short random sequence drawn from a
 * generator seeded by (S, n) alone, the same on every rank and over every
 * MPI: make a window (create, allocate, allocate_shared or dynamic; one
 * random disp_unit), open an epoch (none, fence, lock, lock_all or PSCW),
 * make 0-2 valid RMA calls, then ONE call with one thing made invalid (the
 * case's "mutation": a rank, displacement, count, datatype, op, epoch,
 * assert, lock type, window handle or creation argument), 0-1 further valid
 * calls, close the epoch, free the window and meet in MPI_Barrier.  Every
 * call prints, on every rank,
 *
 *   case <n> step <k> rank <r> <call> <mutation> -> <error class | SUCCESS>
 *
 * where <mutation> is "-" for a valid call before the mutated one and
 * "after:<mutation>" for the calls that follow it (their class may depend on
 * what the mutated call did).  Everything runs under MPI_ERRORS_RETURN
 * (MPI_COMM_WORLD, MPI_COMM_SELF, every window).
 *
 * A case that does not finish within --case-timeout seconds (default 5) is a
 * hang: the rank prints "HANG case <n> step <k> rank <r> <call> <mutation>"
 * and exits 3.  A crash (SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL) prints
 * "CRASH case ... signal <s>" and exits 4.  Either ends the job; the driver
 * (scripts/fuzz-rma) resumes at the next case.  Before each case rank 0
 * prints "begin case <n> <mutation>" (for a job killed from outside).
 *
 * --out PREFIX: each rank writes its lines to PREFIX.rank<r> instead of
 * standard output (the launcher can cut lines of two ranks into each other).
 * --trace adds the arguments of every RMA call ("trace case ..." lines).
 *
 * --skip drops the listed mutations (their cases become "skipped"), e.g. for
 * a host that hangs on them every time.  "Stale" handles (a copy of a freed
 * window or datatype handle) are never used: that is undefined behaviour,
 * not an error MPI has to report; the freed-handle cases use the value
 * MPI_Win_free/MPI_Type_free leave in the variable (MPI_WIN_NULL,
 * MPI_DATATYPE_NULL), which the standard makes MPI_ERR_WIN / MPI_ERR_TYPE. */
#include <mpi.h>

#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---------------------------------------------------------------- rng --- */
static uint64_t rng_state;
static uint64_t splitmix(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
static unsigned rnd(unsigned n) { return n ? (unsigned)(splitmix(&rng_state) % n) : 0; }

/* ------------------------------------------------------------ reporting --- */
static int rank, size;
static long cur_case = -1;
static int cur_step;
static const char *cur_call = "-";
static char cur_mut[64] = "-";

static const struct { int cls; const char *name; } classes[] = {
#define C(x) {x, #x}
    C(MPI_SUCCESS), C(MPI_ERR_BUFFER), C(MPI_ERR_COUNT), C(MPI_ERR_TYPE), C(MPI_ERR_TAG),
    C(MPI_ERR_COMM), C(MPI_ERR_RANK), C(MPI_ERR_REQUEST), C(MPI_ERR_ROOT), C(MPI_ERR_GROUP),
    C(MPI_ERR_OP), C(MPI_ERR_TOPOLOGY), C(MPI_ERR_DIMS), C(MPI_ERR_ARG), C(MPI_ERR_UNKNOWN),
    C(MPI_ERR_TRUNCATE), C(MPI_ERR_OTHER), C(MPI_ERR_INTERN), C(MPI_ERR_IN_STATUS),
    C(MPI_ERR_PENDING), C(MPI_ERR_KEYVAL), C(MPI_ERR_NO_MEM), C(MPI_ERR_BASE), C(MPI_ERR_INFO_KEY),
    C(MPI_ERR_INFO_VALUE), C(MPI_ERR_INFO_NOKEY), C(MPI_ERR_SPAWN), C(MPI_ERR_PORT),
    C(MPI_ERR_SERVICE), C(MPI_ERR_NAME), C(MPI_ERR_WIN), C(MPI_ERR_SIZE), C(MPI_ERR_DISP),
    C(MPI_ERR_INFO), C(MPI_ERR_LOCKTYPE), C(MPI_ERR_ASSERT), C(MPI_ERR_RMA_CONFLICT),
    C(MPI_ERR_RMA_SYNC), C(MPI_ERR_RMA_RANGE), C(MPI_ERR_RMA_ATTACH), C(MPI_ERR_RMA_SHARED),
    C(MPI_ERR_RMA_FLAVOR), C(MPI_ERR_UNSUPPORTED_OPERATION), C(MPI_ERR_UNSUPPORTED_DATAREP),
#undef C
};

static const char *class_name(int rc, char *buf) {
  int cls = rc;
  if (rc != MPI_SUCCESS && MPI_Error_class(rc, &cls) != MPI_SUCCESS) cls = rc;
  for (size_t i = 0; i < sizeof classes / sizeof classes[0]; i++)
    if (classes[i].cls == cls) return classes[i].name;
  sprintf(buf, "class%d", cls);
  return buf;
}

/* The mutated step's index in this case (-1 before it). */
static int mut_step = -1;
static const char *mutation = "-";

static void begin(const char *call, int mutated) {
  cur_step++;
  cur_call = call;
  if (mutated) {
    mut_step = cur_step;
    snprintf(cur_mut, sizeof cur_mut, "%s", mutation);
  } else if (mut_step >= 0) {
    snprintf(cur_mut, sizeof cur_mut, "after:%s", mutation);
  } else {
    snprintf(cur_mut, sizeof cur_mut, "-");
  }
}
static int report(int rc) {
  char buf[32];
  printf("case %ld step %d rank %d %s %s -> %s\n", cur_case, cur_step, rank, cur_call, cur_mut,
         class_name(rc, buf));
  return rc;
}
#define STEP(call, mutated, expr) (begin(call, mutated), report(expr))

static void say(const char *what, int sig) {
  char line[256];
  int n = snprintf(line, sizeof line, "%s case %ld step %d rank %d %s %s", what, cur_case, cur_step, rank,
                   cur_call, cur_mut);
  if (sig) n += snprintf(line + n, sizeof line - n, " signal %d", sig);
  line[n++] = '\n';
  fflush(stdout);
  if (write(1, line, n) < 0) _exit(5);
}
static void on_alarm(int sig) { (void)sig; say("HANG", 0); _exit(3); }
static void on_crash(int sig) { say("CRASH", sig); _exit(4); }

/* ------------------------------------------------------------ the window --- */
enum { WBYTES = 128 };
enum { F_CREATE, F_ALLOCATE, F_SHARED, F_DYNAMIC, NFLAV };
static const char *flav_names[] = {"MPI_Win_create", "MPI_Win_allocate", "MPI_Win_allocate_shared",
                                   "MPI_Win_create_dynamic"};
enum { E_NONE, E_FENCE, E_LOCK, E_LOCKALL, E_PSCW, NEPOCH };

typedef struct {
  MPI_Win win;
  int flavor, du;       /* disp_unit (1 for dynamic) */
  char *mem;            /* create: ours; dynamic: attached */
  MPI_Aint *addr;       /* dynamic: each rank's attached address */
  int epoch, target, lock_type;
  int live;
} window;

static MPI_Group world_group;
static MPI_Datatype vec_uncommitted, contig2_long;
static MPI_Op user_op;
static void user_fn(void *in, void *inout, int *len, MPI_Datatype *dt) {
  (void)in, (void)inout, (void)len, (void)dt;
}

static int make_window(window *w, int flavor, int du) {
  memset(w, 0, sizeof *w);
  w->flavor = flavor;
  w->du = flavor == F_DYNAMIC ? 1 : du;
  w->win = MPI_WIN_NULL;
  int rc = MPI_SUCCESS;
  void *base = NULL;
  switch (flavor) {
  case F_CREATE:
    w->mem = calloc(1, WBYTES);
    rc = MPI_Win_create(w->mem, WBYTES, w->du, MPI_INFO_NULL, MPI_COMM_WORLD, &w->win);
    break;
  case F_ALLOCATE:
    rc = MPI_Win_allocate(WBYTES, w->du, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &w->win);
    break;
  case F_SHARED:
    rc = MPI_Win_allocate_shared(WBYTES, w->du, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &w->win);
    break;
  case F_DYNAMIC:
    rc = MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &w->win);
    break;
  }
  report(rc);
  if (rc != MPI_SUCCESS) return rc;
  w->live = 1;
  MPI_Win_set_errhandler(w->win, MPI_ERRORS_RETURN);
  if (flavor == F_DYNAMIC) {
    w->mem = calloc(1, WBYTES);
    w->addr = calloc(size, sizeof(MPI_Aint));
    begin("MPI_Win_attach", 0);
    rc = report(MPI_Win_attach(w->win, w->mem, WBYTES));
    MPI_Aint mine;
    MPI_Get_address(w->mem, &mine);
    MPI_Allgather(&mine, 1, MPI_AINT, w->addr, 1, MPI_AINT, MPI_COMM_WORLD);
  }
  return rc;
}

static void free_window(window *w) {
  if (w->live) {
    if (w->flavor == F_DYNAMIC) {
      /* the others may still access our memory in a lock epoch of theirs:
       * detaching before they are done would be our program's error */
      MPI_Barrier(MPI_COMM_WORLD);
      STEP("MPI_Win_detach", 0, MPI_Win_detach(w->win, w->mem));
    }
    int rc = STEP("MPI_Win_free", 0, MPI_Win_free(&w->win));
    if (rc == MPI_SUCCESS) w->live = 0;
    /* a window the MPI refused to free stays allocated (leaked) */
  }
  if (!w->live) free(w->mem);
  free(w->addr);
}

/* ------------------------------------------------------------ RMA calls --- */
enum { OP_PUT, OP_GET, OP_ACC, OP_GACC, OP_FOP, OP_CAS, OP_RPUT, OP_RGET, OP_RACC, OP_RGACC, NOPS };
static const char *op_names[] = {"MPI_Put", "MPI_Get", "MPI_Accumulate", "MPI_Get_accumulate",
                                 "MPI_Fetch_and_op", "MPI_Compare_and_swap", "MPI_Rput", "MPI_Rget",
                                 "MPI_Raccumulate", "MPI_Rget_accumulate"};

typedef struct {
  int kind;
  int ocount, tcount, target;
  MPI_Datatype otype, ttype;
  MPI_Aint disp;
  MPI_Op op;
  MPI_Win win;
} rma;

static long obuf[64], rbuf[64], cbuf[8];

static int trace; /* --trace: the arguments of every RMA call */

static const char *type_name(MPI_Datatype t, char *buf) {
  int l = 0;
  if (t == MPI_DATATYPE_NULL) return "MPI_DATATYPE_NULL";
  if (t == vec_uncommitted) return "vector(2,1,2,MPI_LONG)-uncommitted";
  if (t == contig2_long) return "contiguous(2,MPI_LONG)";
  MPI_Type_get_name(t, buf, &l);
  return l ? buf : "?";
}

static int issue(const rma *a) {
  MPI_Request req = MPI_REQUEST_NULL;
  if (trace) {
    char b1[MPI_MAX_OBJECT_NAME], b2[MPI_MAX_OBJECT_NAME];
    printf("trace case %ld step %d rank %d %s origin %d x %s target %d disp %#lx (%ld) %d x %s op %s win %s\n",
           cur_case, cur_step, rank, cur_call, a->ocount, type_name(a->otype, b1), a->target, (unsigned long)a->disp,
           (long)a->disp, a->tcount, type_name(a->ttype, b2),
           a->op == MPI_SUM ? "SUM" : a->op == MPI_REPLACE ? "REPLACE" : a->op == MPI_MAX ? "MAX"
           : a->op == MPI_MIN ? "MIN" : a->op == MPI_PROD ? "PROD" : a->op == MPI_NO_OP ? "NO_OP"
           : a->op == MPI_BAND ? "BAND" : a->op == MPI_OP_NULL ? "OP_NULL" : "user",
           a->win == MPI_WIN_NULL ? "NULL" : "ok");
  }
  int rc = MPI_SUCCESS;
  switch (a->kind) {
  case OP_PUT: rc = MPI_Put(obuf, a->ocount, a->otype, a->target, a->disp, a->tcount, a->ttype, a->win); break;
  case OP_GET: rc = MPI_Get(rbuf, a->ocount, a->otype, a->target, a->disp, a->tcount, a->ttype, a->win); break;
  case OP_ACC:
    rc = MPI_Accumulate(obuf, a->ocount, a->otype, a->target, a->disp, a->tcount, a->ttype, a->op, a->win);
    break;
  case OP_GACC:
    rc = MPI_Get_accumulate(obuf, a->ocount, a->otype, rbuf, a->ocount, a->otype, a->target, a->disp,
                            a->tcount, a->ttype, a->op, a->win);
    break;
  case OP_FOP: rc = MPI_Fetch_and_op(obuf, rbuf, a->otype, a->target, a->disp, a->op, a->win); break;
  case OP_CAS: rc = MPI_Compare_and_swap(obuf, cbuf, rbuf, a->otype, a->target, a->disp, a->win); break;
  case OP_RPUT:
    rc = MPI_Rput(obuf, a->ocount, a->otype, a->target, a->disp, a->tcount, a->ttype, a->win, &req);
    break;
  case OP_RGET:
    rc = MPI_Rget(rbuf, a->ocount, a->otype, a->target, a->disp, a->tcount, a->ttype, a->win, &req);
    break;
  case OP_RACC:
    rc = MPI_Raccumulate(obuf, a->ocount, a->otype, a->target, a->disp, a->tcount, a->ttype, a->op, a->win,
                         &req);
    break;
  case OP_RGACC:
    rc = MPI_Rget_accumulate(obuf, a->ocount, a->otype, rbuf, a->ocount, a->otype, a->target, a->disp,
                             a->tcount, a->ttype, a->op, a->win, &req);
    break;
  }
  report(rc);
  if (rc == MPI_SUCCESS && req != MPI_REQUEST_NULL) {
    int wrc = MPI_Wait(&req, MPI_STATUS_IGNORE);
    if (wrc != MPI_SUCCESS) {
      /* an error reported at completion: its own line */
      char buf[32];
      printf("case %ld step %d rank %d MPI_Wait(%s) %s -> %s\n", cur_case, cur_step, rank, cur_call, cur_mut,
             class_name(wrc, buf));
    }
  }
  return rc;
}

/* A valid call of kind `kind` in epoch `w->epoch`, to w->target. */
static void valid_rma(const window *w, int kind, rma *a) {
  static const MPI_Datatype types[] = {MPI_LONG, MPI_INT, MPI_DOUBLE};
  static const int tsize[] = {8, 4, 8};
  int t = rnd(3);
  if (kind == OP_FOP || kind == OP_CAS) t = 0;
  a->kind = kind;
  a->otype = a->ttype = types[t];
  a->ocount = a->tcount = (kind == OP_FOP || kind == OP_CAS) ? 1 : 1 + (int)rnd(4);
  int esz = tsize[t];
  int align = esz > w->du ? esz : w->du; /* offsets that are multiples of both */
  if (align % esz) align *= esz;
  int room = WBYTES - a->ocount * esz;
  int off = (int)rnd(room / align + 1) * align;
  a->target = w->target;
  a->disp = w->flavor == F_DYNAMIC ? w->addr[a->target] + off : off / w->du;
  static const MPI_Op acc_ops[] = {MPI_SUM, MPI_REPLACE, MPI_MAX, MPI_MIN, MPI_PROD};
  a->op = acc_ops[rnd(5)];
  if (kind == OP_GACC || kind == OP_RGACC || kind == OP_FOP)
    if (rnd(4) == 0) a->op = MPI_NO_OP;
  a->win = w->win;
}

static int pick_kind(const window *w) {
  int passive = w->epoch == E_LOCK || w->epoch == E_LOCKALL;
  return (int)rnd(passive ? NOPS : OP_RPUT);
}

/* ------------------------------------------------------------ mutations --- */
enum { M_DATA, M_SYNC, M_CREATE };
#define EP(x) (1u << (x))
#define ACTIVE (EP(E_FENCE) | EP(E_LOCK) | EP(E_LOCKALL) | EP(E_PSCW))
#define PASSIVE (EP(E_LOCK) | EP(E_LOCKALL))
typedef struct {
  const char *name;
  int kind;
  unsigned epochs; /* epochs the case may open before it */
  unsigned ops;    /* data mutations: the calls it applies to (bit per OP_*), 0 = all */
  int skip;
} mut;
#define OPS(x) (1u << (x))
#define ACCOPS (OPS(OP_ACC) | OPS(OP_GACC) | OPS(OP_RACC) | OPS(OP_RGACC))
static mut muts[] = {
    /* data calls */
    {"rank_size", M_DATA, ACTIVE, 0, 0},
    {"rank_negative", M_DATA, ACTIVE, 0, 0},
    {"rank_proc_null(valid)", M_DATA, ACTIVE, 0, 0},
    {"disp_negative", M_DATA, ACTIVE, 0, 0},
    {"disp_at_end", M_DATA, ACTIVE, 0, 0},
    {"disp_straddles_end", M_DATA, ACTIVE, ~(OPS(OP_FOP) | OPS(OP_CAS)), 0},
    {"disp_huge_wraps", M_DATA, ACTIVE, 0, 0},
    {"count_negative", M_DATA, ACTIVE, ~(OPS(OP_FOP) | OPS(OP_CAS)), 0},
    {"target_count_negative", M_DATA, ACTIVE, ~(OPS(OP_FOP) | OPS(OP_CAS)), 0},
    {"origin_type_null", M_DATA, ACTIVE, 0, 0},
    {"target_type_null", M_DATA, ACTIVE, ~(OPS(OP_FOP) | OPS(OP_CAS)), 0},
    {"origin_type_uncommitted", M_DATA, ACTIVE, ~(OPS(OP_FOP) | OPS(OP_CAS)), 0},
    {"target_type_uncommitted", M_DATA, ACTIVE, ~(OPS(OP_FOP) | OPS(OP_CAS)), 0},
    {"acc_types_differ", M_DATA, ACTIVE, ACCOPS, 0},
    {"op_null", M_DATA, ACTIVE, ACCOPS | OPS(OP_FOP), 0},
    {"op_band_on_double", M_DATA, ACTIVE, ACCOPS, 0},
    {"op_user_defined", M_DATA, ACTIVE, ACCOPS | OPS(OP_FOP), 0},
    {"op_no_op_in_accumulate", M_DATA, ACTIVE, OPS(OP_ACC) | OPS(OP_RACC), 0},
    {"fop_derived_type", M_DATA, ACTIVE, OPS(OP_FOP), 0},
    {"cas_double", M_DATA, ACTIVE, OPS(OP_CAS), 0},
    {"win_null", M_DATA, ACTIVE, 0, 0},
    {"no_epoch", M_DATA, EP(E_NONE), 0, 0},
    {"request_op_in_active_epoch", M_DATA, EP(E_FENCE) | EP(E_PSCW), 0, 0},
    {"target_not_locked", M_DATA, EP(E_LOCK), 0, 0},
    /* synchronisation calls */
    {"lock_bad_type", M_SYNC, EP(E_NONE), 0, 0},
    {"lock_bad_assert", M_SYNC, EP(E_NONE), 0, 0},
    {"lock_rank_size", M_SYNC, EP(E_NONE), 0, 0},
    {"lock_proc_null", M_SYNC, EP(E_NONE), 0, 0},
    {"lock_nested", M_SYNC, EP(E_LOCK), 0, 0},
    {"lock_in_lock_all", M_SYNC, EP(E_LOCKALL), 0, 0},
    {"lock_all_in_lock", M_SYNC, EP(E_LOCK), 0, 0},
    {"lock_all_nested", M_SYNC, EP(E_LOCKALL), 0, 0},
    {"lock_all_bad_assert", M_SYNC, EP(E_NONE), 0, 0},
    {"lock_in_pscw", M_SYNC, EP(E_PSCW), 0, 0},
    {"unlock_without_lock", M_SYNC, EP(E_NONE), 0, 0},
    {"unlock_other_rank", M_SYNC, EP(E_LOCK), 0, 0},
    {"unlock_rank_size", M_SYNC, EP(E_LOCK), 0, 0},
    {"unlock_all_without_lock_all", M_SYNC, EP(E_NONE) | EP(E_LOCK), 0, 0},
    {"flush_without_epoch", M_SYNC, EP(E_NONE) | EP(E_FENCE), 0, 0},
    {"flush_rank_size", M_SYNC, PASSIVE, 0, 0},
    {"flush_local_rank_negative", M_SYNC, PASSIVE, 0, 0},
    {"flush_all_without_epoch", M_SYNC, EP(E_NONE), 0, 0},
    {"fence_in_lock", M_SYNC, PASSIVE, 0, 0},
    {"fence_bad_assert", M_SYNC, EP(E_NONE), 0, 0},
    {"post_bad_assert", M_SYNC, EP(E_NONE), 0, 0},
    {"start_bad_assert", M_SYNC, EP(E_NONE), 0, 0},
    {"post_twice", M_SYNC, EP(E_PSCW), 0, 0},
    {"start_twice", M_SYNC, EP(E_PSCW), 0, 0},
    {"complete_without_start", M_SYNC, EP(E_NONE), 0, 0},
    {"wait_without_post", M_SYNC, EP(E_NONE), 0, 0},
    {"test_without_post", M_SYNC, EP(E_NONE), 0, 0},
    {"free_in_epoch", M_SYNC, PASSIVE, 0, 0},
    {"sync_win_null", M_SYNC, EP(E_NONE), 0, 0},
    {"free_win_null", M_SYNC, EP(E_NONE), 0, 0},
    {"shared_query_not_shared", M_SYNC, EP(E_NONE), 0, 0},
    {"shared_query_dynamic", M_SYNC, EP(E_NONE), 0, 0},
    {"attach_not_dynamic", M_SYNC, EP(E_NONE), 0, 0},
    {"attach_overlapping", M_SYNC, EP(E_NONE), 0, 0},
    {"detach_not_attached", M_SYNC, EP(E_NONE), 0, 0},
    {"dynamic_unattached_memory", M_DATA, PASSIVE, 0, 0},
    /* window creation */
    {"create_size_negative", M_CREATE, 0, 0, 0},
    {"create_disp_unit_zero", M_CREATE, 0, 0, 0},
    {"allocate_size_negative", M_CREATE, 0, 0, 0},
    {"allocate_disp_unit_negative", M_CREATE, 0, 0, 0},
    {"allocate_shared_size_negative", M_CREATE, 0, 0, 0},
    {"create_comm_null", M_CREATE, 0, 0, 0},
    {"create_dynamic_comm_null", M_CREATE, 0, 0, 0},
};
enum { NMUTS = sizeof muts / sizeof muts[0] };

static int is(const char *name) { return strcmp(mutation, name) == 0; }

/* -------------------------------------------------------------- epochs --- */
static void open_epoch(window *w, int epoch) {
  w->epoch = epoch;
  switch (epoch) {
  case E_NONE: break;
  case E_FENCE: STEP("MPI_Win_fence", 0, MPI_Win_fence(0, w->win)); break;
  case E_LOCK:
    w->lock_type = rnd(2) ? MPI_LOCK_SHARED : MPI_LOCK_EXCLUSIVE;
    STEP(w->lock_type == MPI_LOCK_SHARED ? "MPI_Win_lock(shared)" : "MPI_Win_lock(exclusive)", 0,
         MPI_Win_lock(w->lock_type, w->target, 0, w->win));
    break;
  case E_LOCKALL: STEP("MPI_Win_lock_all", 0, MPI_Win_lock_all(0, w->win)); break;
  case E_PSCW:
    STEP("MPI_Win_post", 0, MPI_Win_post(world_group, 0, w->win));
    STEP("MPI_Win_start", 0, MPI_Win_start(world_group, 0, w->win));
    break;
  }
}

/* Extra closings owed because a mutated call that opens an epoch succeeded. */
static int extra_unlock = -1, extra_unlock_all, extra_complete, extra_wait;

static void close_epoch(window *w) {
  if (!w->live) return;
  if (extra_unlock >= 0) STEP("MPI_Win_unlock", 0, MPI_Win_unlock(extra_unlock, w->win));
  if (extra_unlock_all) STEP("MPI_Win_unlock_all", 0, MPI_Win_unlock_all(w->win));
  for (; extra_complete > 0; extra_complete--) STEP("MPI_Win_complete", 0, MPI_Win_complete(w->win));
  switch (w->epoch) {
  case E_NONE: break;
  case E_FENCE: STEP("MPI_Win_fence", 0, MPI_Win_fence(MPI_MODE_NOSUCCEED, w->win)); break;
  case E_LOCK: STEP("MPI_Win_unlock", 0, MPI_Win_unlock(w->target, w->win)); break;
  case E_LOCKALL: STEP("MPI_Win_unlock_all", 0, MPI_Win_unlock_all(w->win)); break;
  case E_PSCW:
    STEP("MPI_Win_complete", 0, MPI_Win_complete(w->win));
    STEP("MPI_Win_wait", 0, MPI_Win_wait(w->win));
    break;
  }
  for (; extra_wait > 0; extra_wait--) STEP("MPI_Win_wait", 0, MPI_Win_wait(w->win));
}

/* ------------------------------------------------------- mutated calls --- */
static void mutated_data(window *w) {
  const mut *m = NULL;
  for (int i = 0; i < NMUTS; i++)
    if (is(muts[i].name)) m = &muts[i];
  int kind;
  do {
    kind = pick_kind(w);
    if (is("request_op_in_active_epoch")) kind = OP_RPUT + (int)rnd(4);
    if (is("no_epoch")) kind = (int)rnd(NOPS);
  } while (m->ops && !(m->ops & OPS(kind)));
  rma a;
  valid_rma(w, kind, &a);
  if (is("rank_size")) a.target = size;
  else if (is("rank_negative")) a.target = -5; /* neither MPI_PROC_NULL (-1 MPICH, -2 Open MPI) nor ANY_SOURCE */
  else if (is("rank_proc_null(valid)")) a.target = MPI_PROC_NULL;
  else if (is("disp_negative")) a.disp = w->flavor == F_DYNAMIC ? w->addr[a.target] - 8 : -1;
  else if (is("disp_at_end"))
    a.disp = w->flavor == F_DYNAMIC ? w->addr[a.target] + WBYTES : WBYTES / w->du;
  else if (is("disp_straddles_end")) {
    /* starts at the last displacement unit of the window (byte 127, 124 or
     * 120), ends at least 12 bytes further */
    a.disp = w->flavor == F_DYNAMIC ? w->addr[a.target] + WBYTES - 4 : (WBYTES - 1) / w->du;
    if (a.ocount < 3) a.ocount = a.tcount = 3;
  }
  else if (is("disp_huge_wraps")) a.disp = (MPI_Aint)1 << 61;
  else if (is("count_negative")) a.ocount = -1;
  else if (is("target_count_negative")) a.tcount = -1;
  else if (is("origin_type_null")) a.otype = MPI_DATATYPE_NULL;
  else if (is("target_type_null")) a.ttype = MPI_DATATYPE_NULL;
  else if (is("origin_type_uncommitted")) a.otype = vec_uncommitted, a.ttype = MPI_LONG, a.tcount = a.ocount * 2;
  else if (is("target_type_uncommitted")) a.ttype = vec_uncommitted, a.otype = MPI_LONG, a.ocount = a.tcount * 2;
  else if (is("acc_types_differ")) a.otype = MPI_INT, a.ttype = MPI_DOUBLE;
  else if (is("op_null")) a.op = MPI_OP_NULL;
  else if (is("op_band_on_double")) a.op = MPI_BAND, a.otype = a.ttype = MPI_DOUBLE;
  else if (is("op_user_defined")) a.op = user_op;
  else if (is("op_no_op_in_accumulate")) a.op = MPI_NO_OP;
  else if (is("fop_derived_type")) a.otype = contig2_long;
  else if (is("cas_double")) a.otype = MPI_DOUBLE;
  else if (is("win_null")) a.win = MPI_WIN_NULL;
  else if (is("target_not_locked")) {
    if (size == 1) a.target = MPI_PROC_NULL; /* no other rank: degenerates to a valid call */
    else a.target = (w->target + 1) % size;
    if (w->flavor == F_DYNAMIC && a.target >= 0) a.disp = w->addr[a.target];
  } else if (is("dynamic_unattached_memory")) {
    if (w->flavor == F_DYNAMIC) a.disp = w->addr[a.target] + 4096 * 1024; /* far from what is attached */
    else a.disp = WBYTES * 4 / w->du;
  }
  begin(op_names[kind], 1);
  issue(&a);
}

static void mutated_sync(window *w) {
  int t = w->target, other = (w->target + 1) % size;
  int rc;
  if (is("lock_bad_type")) STEP("MPI_Win_lock", 1, MPI_Win_lock(12345, t, 0, w->win));
  else if (is("lock_bad_assert")) {
    rc = STEP("MPI_Win_lock", 1, MPI_Win_lock(MPI_LOCK_SHARED, t, 1 << 20, w->win));
    if (rc == MPI_SUCCESS) extra_unlock = t;
  } else if (is("lock_rank_size")) STEP("MPI_Win_lock", 1, MPI_Win_lock(MPI_LOCK_SHARED, size, 0, w->win));
  else if (is("lock_proc_null")) {
    rc = STEP("MPI_Win_lock", 1, MPI_Win_lock(MPI_LOCK_SHARED, MPI_PROC_NULL, 0, w->win));
    if (rc == MPI_SUCCESS) STEP("MPI_Win_unlock", 0, MPI_Win_unlock(MPI_PROC_NULL, w->win));
  } else if (is("lock_nested")) {
    rc = STEP("MPI_Win_lock", 1, MPI_Win_lock(MPI_LOCK_SHARED, t, 0, w->win));
    if (rc == MPI_SUCCESS) extra_unlock = t;
  } else if (is("lock_in_lock_all")) {
    rc = STEP("MPI_Win_lock", 1, MPI_Win_lock(MPI_LOCK_SHARED, t, 0, w->win));
    if (rc == MPI_SUCCESS) extra_unlock = t;
  } else if (is("lock_all_in_lock") || is("lock_all_nested")) {
    rc = STEP("MPI_Win_lock_all", 1, MPI_Win_lock_all(0, w->win));
    if (rc == MPI_SUCCESS) extra_unlock_all = 1;
  } else if (is("lock_all_bad_assert")) {
    rc = STEP("MPI_Win_lock_all", 1, MPI_Win_lock_all(1 << 20, w->win));
    if (rc == MPI_SUCCESS) extra_unlock_all = 1;
  } else if (is("lock_in_pscw")) {
    rc = STEP("MPI_Win_lock", 1, MPI_Win_lock(MPI_LOCK_SHARED, t, 0, w->win));
    if (rc == MPI_SUCCESS) extra_unlock = t;
  } else if (is("unlock_without_lock")) STEP("MPI_Win_unlock", 1, MPI_Win_unlock(t, w->win));
  else if (is("unlock_other_rank"))
    STEP("MPI_Win_unlock", 1, MPI_Win_unlock(size == 1 ? MPI_PROC_NULL : other, w->win));
  else if (is("unlock_rank_size")) STEP("MPI_Win_unlock", 1, MPI_Win_unlock(size, w->win));
  else if (is("unlock_all_without_lock_all")) STEP("MPI_Win_unlock_all", 1, MPI_Win_unlock_all(w->win));
  else if (is("flush_without_epoch")) {
    switch (rnd(3)) {
    case 0: STEP("MPI_Win_flush", 1, MPI_Win_flush(t, w->win)); break;
    case 1: STEP("MPI_Win_flush_local", 1, MPI_Win_flush_local(t, w->win)); break;
    default: STEP("MPI_Win_sync", 1, MPI_Win_sync(w->win)); break; /* only in passive-target epochs (MPI-4.1, 12.5.4) */
    }
  } else if (is("flush_rank_size")) STEP("MPI_Win_flush", 1, MPI_Win_flush(size, w->win));
  else if (is("flush_local_rank_negative")) STEP("MPI_Win_flush_local", 1, MPI_Win_flush_local(-5, w->win));
  else if (is("flush_all_without_epoch")) {
    if (rnd(2)) STEP("MPI_Win_flush_all", 1, MPI_Win_flush_all(w->win));
    else STEP("MPI_Win_flush_local_all", 1, MPI_Win_flush_local_all(w->win));
  } else if (is("fence_in_lock")) STEP("MPI_Win_fence", 1, MPI_Win_fence(0, w->win));
  else if (is("fence_bad_assert")) {
    rc = STEP("MPI_Win_fence", 1, MPI_Win_fence(1 << 20, w->win));
    if (rc == MPI_SUCCESS) w->epoch = E_FENCE; /* closed by a fence */
  } else if (is("post_bad_assert")) {
    rc = STEP("MPI_Win_post", 1, MPI_Win_post(world_group, 1 << 20, w->win));
    if (rc == MPI_SUCCESS) extra_wait++;
  } else if (is("start_bad_assert")) {
    rc = STEP("MPI_Win_start", 1, MPI_Win_start(world_group, 1 << 20, w->win));
    if (rc == MPI_SUCCESS) extra_complete++;
  } else if (is("post_twice")) {
    rc = STEP("MPI_Win_post", 1, MPI_Win_post(world_group, 0, w->win));
    if (rc == MPI_SUCCESS) extra_wait++;
  } else if (is("start_twice")) {
    rc = STEP("MPI_Win_start", 1, MPI_Win_start(world_group, 0, w->win));
    if (rc == MPI_SUCCESS) extra_complete++;
  } else if (is("complete_without_start")) STEP("MPI_Win_complete", 1, MPI_Win_complete(w->win));
  else if (is("wait_without_post")) STEP("MPI_Win_wait", 1, MPI_Win_wait(w->win));
  else if (is("test_without_post")) {
    int flag = 0;
    STEP("MPI_Win_test", 1, MPI_Win_test(w->win, &flag));
  } else if (is("free_in_epoch")) {
    rc = STEP("MPI_Win_free", 1, MPI_Win_free(&w->win));
    if (rc == MPI_SUCCESS) w->live = 0; /* the host freed it: nothing left to close */
  } else if (is("sync_win_null")) {
    int flag;
    switch (rnd(8)) {
    case 0: STEP("MPI_Win_fence", 1, MPI_Win_fence(0, MPI_WIN_NULL)); break;
    case 1: STEP("MPI_Win_lock", 1, MPI_Win_lock(MPI_LOCK_SHARED, t, 0, MPI_WIN_NULL)); break;
    case 2: STEP("MPI_Win_unlock", 1, MPI_Win_unlock(t, MPI_WIN_NULL)); break;
    case 3: STEP("MPI_Win_lock_all", 1, MPI_Win_lock_all(0, MPI_WIN_NULL)); break;
    case 4: STEP("MPI_Win_flush", 1, MPI_Win_flush(t, MPI_WIN_NULL)); break;
    case 5: STEP("MPI_Win_post", 1, MPI_Win_post(world_group, 0, MPI_WIN_NULL)); break;
    case 6: STEP("MPI_Win_test", 1, MPI_Win_test(MPI_WIN_NULL, &flag)); break;
    default: STEP("MPI_Win_sync", 1, MPI_Win_sync(MPI_WIN_NULL)); break;
    }
  } else if (is("free_win_null")) {
    MPI_Win nul = MPI_WIN_NULL;
    STEP("MPI_Win_free", 1, MPI_Win_free(&nul));
  } else if (is("shared_query_not_shared") || is("shared_query_dynamic")) {
    MPI_Aint qsize;
    int qdu;
    void *qbase;
    STEP("MPI_Win_shared_query", 1, MPI_Win_shared_query(w->win, t, &qsize, &qdu, &qbase));
  } else if (is("attach_not_dynamic")) {
    static char extra[64];
    rc = STEP("MPI_Win_attach", 1, MPI_Win_attach(w->win, extra, sizeof extra));
    if (rc == MPI_SUCCESS) STEP("MPI_Win_detach", 0, MPI_Win_detach(w->win, extra));
  } else if (is("attach_overlapping")) {
    rc = STEP("MPI_Win_attach", 1, MPI_Win_attach(w->win, w->mem + 8, 16));
    if (rc == MPI_SUCCESS) STEP("MPI_Win_detach", 0, MPI_Win_detach(w->win, w->mem + 8));
  } else if (is("detach_not_attached")) {
    static char other_mem[64];
    STEP("MPI_Win_detach", 1, MPI_Win_detach(w->win, other_mem));
  }
}

static void mutated_create(void) {
  MPI_Win win = MPI_WIN_NULL;
  void *base;
  static char mem[WBYTES];
  int rc = MPI_SUCCESS;
  if (is("create_size_negative"))
    rc = STEP("MPI_Win_create", 1, MPI_Win_create(mem, -1, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  else if (is("create_disp_unit_zero"))
    rc = STEP("MPI_Win_create", 1, MPI_Win_create(mem, WBYTES, 0, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  else if (is("allocate_size_negative"))
    rc = STEP("MPI_Win_allocate", 1, MPI_Win_allocate(-8, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
  else if (is("allocate_disp_unit_negative"))
    rc = STEP("MPI_Win_allocate", 1, MPI_Win_allocate(WBYTES, -2, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
  else if (is("allocate_shared_size_negative"))
    rc = STEP("MPI_Win_allocate_shared", 1,
              MPI_Win_allocate_shared(-8, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
  else if (is("create_comm_null"))
    rc = STEP("MPI_Win_create", 1, MPI_Win_create(mem, WBYTES, 1, MPI_INFO_NULL, MPI_COMM_NULL, &win));
  else if (is("create_dynamic_comm_null"))
    rc = STEP("MPI_Win_create_dynamic", 1, MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_NULL, &win));
  if (rc == MPI_SUCCESS && win != MPI_WIN_NULL) STEP("MPI_Win_free", 0, MPI_Win_free(&win));
}

/* ---------------------------------------------------------------- cases --- */
static void run_case(uint64_t seed, long n) {
  rng_state = seed * 0x100000001b3ull ^ (uint64_t)n * 0x9e3779b97f4a7c15ull;
  splitmix(&rng_state);
  cur_case = n;
  cur_step = 0;
  mut_step = -1;
  extra_unlock = -1, extra_unlock_all = extra_complete = extra_wait = 0;
  const mut *m = &muts[rnd(NMUTS)];
  mutation = m->name;
  if (rank == 0) printf("begin case %ld %s\n", n, m->name);
  snprintf(cur_mut, sizeof cur_mut, "-");
  if (m->skip) {
    if (rank == 0) printf("case %ld skipped %s\n", n, m->name);
    return;
  }
  if (m->kind == M_CREATE) {
    mutated_create();
    return;
  }
  /* the window the case runs on */
  int flavor = (int)rnd(NFLAV);
  if (is("shared_query_not_shared")) flavor = rnd(2) ? F_CREATE : F_ALLOCATE;
  if (is("shared_query_dynamic")) flavor = F_DYNAMIC;
  if (is("attach_not_dynamic")) flavor = (int)rnd(3);
  if (is("attach_overlapping") || is("detach_not_attached") || is("dynamic_unattached_memory"))
    flavor = F_DYNAMIC;
  static const int dus[] = {1, 4, 8};
  window w;
  begin(flav_names[flavor], 0);
  if (make_window(&w, flavor, dus[rnd(3)]) != MPI_SUCCESS) {
    if (w.live) free_window(&w);
    return;
  }
  w.target = (rank + (int)rnd(size)) % size;
  /* the epoch */
  unsigned allowed = m->epochs;
  int epoch;
  do epoch = (int)rnd(NEPOCH);
  while (!(allowed & EP(epoch)));
  open_epoch(&w, epoch);
  int pre = w.epoch == E_NONE ? 0 : (int)rnd(3);
  for (int i = 0; i < pre; i++) {
    rma a;
    int kind = pick_kind(&w);
    valid_rma(&w, kind, &a);
    begin(op_names[kind], 0);
    issue(&a);
  }
  if (m->kind == M_DATA) mutated_data(&w);
  else mutated_sync(&w);
  if (w.live && w.epoch != E_NONE && rnd(2)) {
    rma a;
    int kind = pick_kind(&w);
    valid_rma(&w, kind, &a);
    begin(op_names[kind], 0);
    issue(&a);
  }
  close_epoch(&w);
  free_window(&w);
}

int main(int argc, char **argv) {
  uint64_t seed = 1;
  long first = 0, count = 100;
  int case_timeout = 5;
  const char *skip = "", *out = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--seed") && i + 1 < argc) seed = strtoull(argv[++i], NULL, 0);
    else if (!strcmp(argv[i], "--first") && i + 1 < argc) first = atol(argv[++i]);
    else if (!strcmp(argv[i], "--count") && i + 1 < argc) count = atol(argv[++i]);
    else if (!strcmp(argv[i], "--case-timeout") && i + 1 < argc) case_timeout = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--skip") && i + 1 < argc) skip = argv[++i];
    else if (!strcmp(argv[i], "--trace")) trace = 1;
    else if (!strcmp(argv[i], "--out") && i + 1 < argc) out = argv[++i];
    else if (!strcmp(argv[i], "--list")) {
      for (int k = 0; k < NMUTS; k++) printf("%s\n", muts[k].name);
      return 0;
    } else {
      fprintf(stderr, "usage: fuzz_rma --seed S [--first N] [--count K] [--case-timeout SEC] [--skip M,...] [--out PREFIX] [--trace] | --list\n");
      return 2;
    }
  }
  for (int k = 0; k < NMUTS; k++) {
    size_t l = strlen(muts[k].name);
    for (const char *p = skip; (p = strstr(p, muts[k].name)); p += l)
      if ((p == skip || p[-1] == ',') && (p[l] == 0 || p[l] == ',')) muts[k].skip = 1;
  }
  setvbuf(stdout, NULL, _IOLBF, 0);
  signal(SIGALRM, on_alarm);
  signal(SIGSEGV, on_crash);
  signal(SIGBUS, on_crash);
  signal(SIGABRT, on_crash);
  signal(SIGFPE, on_crash);
  signal(SIGILL, on_crash);
  alarm(60); /* MPI_Init */
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (out) {
    /* each rank's lines in a file of its own: through the launcher, lines of
     * two ranks can be cut into each other */
    char path[4096];
    snprintf(path, sizeof path, "%s.rank%d", out, rank);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || dup2(fd, 1) < 0) {
      perror(path);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
    close(fd);
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  MPI_Comm_group(MPI_COMM_WORLD, &world_group);
  MPI_Type_vector(2, 1, 2, MPI_LONG, &vec_uncommitted); /* never committed */
  MPI_Type_contiguous(2, MPI_LONG, &contig2_long);
  MPI_Type_commit(&contig2_long);
  MPI_Op_create(user_fn, 1, &user_op);
  for (int i = 0; i < 64; i++) obuf[i] = i + 1;
  for (long n = first; n < first + count; n++) {
    alarm(case_timeout);
    run_case(seed, n);
    cur_call = "MPI_Barrier";
    snprintf(cur_mut, sizeof cur_mut, "end");
    MPI_Barrier(MPI_COMM_WORLD);
  }
  cur_case = -1;
  cur_call = "MPI_Finalize";
  alarm(30);
  MPI_Op_free(&user_op);
  MPI_Type_free(&contig2_long);
  MPI_Type_free(&vec_uncommitted);
  MPI_Group_free(&world_group);
  MPI_Finalize();
  alarm(0);
  printf("finished %ld cases\n", count); /* every rank: the driver counts them */
  return 0;
}
