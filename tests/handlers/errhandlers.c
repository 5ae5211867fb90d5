/* Error handler references: get, set, free and create in any order.
 *
 * MPI_Win_get_errhandler (and MPI_Comm_get_errhandler) gives the caller a
 * new reference to the handler in force, predefined ones included, which
 * the caller frees with MPI_Errhandler_free; a window or communicator keeps
 * its handler alive after the user frees every handle to it.  A library
 * that miscounts makes the host's MPI_Errhandler_free refuse a predefined
 * handler (MPI_ERR_ARG, Open MPI) or free it from under a communicator
 * ("free(): invalid pointer" in MPI_Comm_free): found by mpi4py's tests.
 *
 *  1. mpi4py's pattern (test_win.py, testGetSetErrhandler), several rounds
 *     with each predefined handler and a user handler, on a window of
 *     MPI_Win_allocate over MPI_COMM_SELF and over MPI_COMM_WORLD, then
 *     MPI_Win_free.
 *  2. A seeded random sequence of --steps operations on a window (over
 *     MPI_COMM_WORLD; every rank draws the same sequence, so the collective
 *     ones stay in step) and on a communicator (a dup of MPI_COMM_SELF):
 *     get, set (a held handle or a predefined one), free, create, renew the
 *     object (MPI_Win_free/allocate, MPI_Comm_free/dup while handles are
 *     held), and a check that the handler in force is the one expected and
 *     behaves: under MPI_ERRORS_RETURN an erroneous call (a lock of, a send
 *     to, a rank that does not exist) returns MPI_ERR_RANK; a user handler
 *     is called with the object and the code.  At the end every held handle
 *     is freed (ASan's leak check sees the rest).
 *
 *   errhandlers [--steps N] [--seed S] [--rounds R] */
#include <stdint.h>
#include <string.h>

#include "mtest.h"

enum { NFN = 3, MAXHELD = 48 };

/* ---- user handlers: which one was called last, with what ---- */
static int last_fn = -1, last_code;
static MPI_Win last_win = MPI_WIN_NULL;
static MPI_Comm last_comm = MPI_COMM_NULL;

#define WIN_FN(i) \
  static void win_fn##i(MPI_Win *w, int *code, ...) { last_fn = i; last_code = *code; last_win = *w; }
#define COMM_FN(i) \
  static void comm_fn##i(MPI_Comm *c, int *code, ...) { last_fn = i; last_code = *code; last_comm = *c; }
WIN_FN(0) WIN_FN(1) WIN_FN(2)
COMM_FN(0) COMM_FN(1) COMM_FN(2)
static MPI_Win_errhandler_function *const win_fns[NFN] = {win_fn0, win_fn1, win_fn2};
static MPI_Comm_errhandler_function *const comm_fns[NFN] = {comm_fn0, comm_fn1, comm_fn2};

/* ---- 1. mpi4py's pattern ---- */
static void mpi4py_pattern(MPI_Comm comm, int rounds) {
  MPI_Win win;
  void *base;
  mtest_set_context("mpi4py pattern on a window over %s", comm == MPI_COMM_SELF ? "MPI_COMM_SELF" : "MPI_COMM_WORLD");
  MTEST_MPI(MPI_Win_allocate(64, 1, MPI_INFO_NULL, comm, &base, &win));
  MPI_Errhandler user;
  MTEST_MPI(MPI_Win_create_errhandler(win_fn1, &user));
  const MPI_Errhandler which[] = {MPI_ERRORS_RETURN, MPI_ERRORS_ARE_FATAL, user};
  MPI_Errhandler cur = MPI_ERRORS_ARE_FATAL; /* a new window's */
  for (int r = 0; r < rounds; r++)
    for (int k = 0; k < 3; k++) {
      MPI_Errhandler e1 = MPI_ERRHANDLER_NULL, e2 = MPI_ERRHANDLER_NULL;
      MTEST_MPI(MPI_Win_get_errhandler(win, &e1));
      MTEST_CHECK(e1 == cur, "round %d: MPI_Win_get_errhandler gave another handler than the one in force", r);
      MTEST_MPI(MPI_Win_set_errhandler(win, which[k]));
      MTEST_MPI(MPI_Win_get_errhandler(win, &e2));
      MTEST_CHECK(e2 == which[k], "round %d handler %d: MPI_Win_get_errhandler gave another handler than the one set",
                  r, k);
      MTEST_MPI(MPI_Errhandler_free(&e2));
      MTEST_CHECK(e2 == MPI_ERRHANDLER_NULL, "MPI_Errhandler_free left the handle set");
      /* mpi4py sets back the handler it found, then frees it */
      MTEST_MPI(MPI_Win_set_errhandler(win, e1));
      MTEST_MPI(MPI_Errhandler_free(&e1));
      MTEST_CHECK(e1 == MPI_ERRHANDLER_NULL, "MPI_Errhandler_free left the handle set");
      /* and leaves the one it tested in force, for the next round to find */
      MTEST_MPI(MPI_Win_set_errhandler(win, which[k]));
      cur = which[k];
    }
  MTEST_MPI(MPI_Errhandler_free(&user));
  MTEST_MPI(MPI_Win_free(&win)); /* a user handler in force, its handle freed */
  /* the same on a communicator (host only, but MPI_Errhandler_free passes through Remora) */
  MPI_Comm c;
  MTEST_MPI(MPI_Comm_dup(MPI_COMM_SELF, &c));
  for (int r = 0; r < rounds; r++)
    for (int k = 0; k < 2; k++) {
      MPI_Errhandler e1 = MPI_ERRHANDLER_NULL, e2 = MPI_ERRHANDLER_NULL;
      MTEST_MPI(MPI_Comm_get_errhandler(c, &e1));
      MTEST_MPI(MPI_Comm_set_errhandler(c, which[k]));
      MTEST_MPI(MPI_Comm_get_errhandler(c, &e2));
      MTEST_CHECK(e2 == which[k], "MPI_Comm_get_errhandler gave another handler than the one set");
      MTEST_MPI(MPI_Errhandler_free(&e2));
      MTEST_MPI(MPI_Comm_set_errhandler(c, e1));
      MTEST_MPI(MPI_Errhandler_free(&e1));
    }
  MTEST_MPI(MPI_Comm_free(&c));
}

/* ---- 2. random sequences ---- */
static uint64_t rng;
static unsigned draw(unsigned n) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (unsigned)(rng % n);
}

/* What a handle is: a predefined handler, or user handler `fn` of either object kind. */
enum { FATAL = -1, RETURN = -2 };
struct handle {
  MPI_Errhandler h;
  int fn;      /* FATAL, RETURN, or 0..NFN-1 */
  int for_win; /* a user handler of windows (else of communicators) */
};
struct object {
  int is_win;
  MPI_Win win;
  MPI_Comm comm;
  struct handle cur;   /* the handler in force */
  struct handle held[MAXHELD];
  int nheld;
};

static const struct handle fatal_h = {MPI_ERRORS_ARE_FATAL, FATAL, 0}, return_h = {MPI_ERRORS_RETURN, RETURN, 0};

static int get_eh(struct object *o, MPI_Errhandler *e) {
  return o->is_win ? MPI_Win_get_errhandler(o->win, e) : MPI_Comm_get_errhandler(o->comm, e);
}
static int set_eh(struct object *o, MPI_Errhandler e) {
  return o->is_win ? MPI_Win_set_errhandler(o->win, e) : MPI_Comm_set_errhandler(o->comm, e);
}

static void open_object(struct object *o) {
  if (o->is_win) {
    void *base;
    MTEST_MPI(MPI_Win_allocate(64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &o->win));
  } else {
    MTEST_MPI(MPI_Comm_dup(MPI_COMM_SELF, &o->comm));
    MTEST_MPI(MPI_Comm_set_errhandler(o->comm, MPI_ERRORS_ARE_FATAL));
  }
  o->cur = fatal_h; /* a new window's handler is MPI_ERRORS_ARE_FATAL */
}
static void close_object(struct object *o) {
  if (o->is_win)
    MTEST_MPI(MPI_Win_free(&o->win));
  else
    MTEST_MPI(MPI_Comm_free(&o->comm));
}

static void push(struct object *o, struct handle h) {
  if (o->nheld < MAXHELD)
    o->held[o->nheld++] = h;
  else {
    MTEST_MPI(MPI_Errhandler_free(&h.h));
  }
}

static void free_held(struct object *o, int i, long step) {
  struct handle h = o->held[i];
  int rc = MPI_Errhandler_free(&h.h);
  MTEST_CHECK(rc == MPI_SUCCESS, "step %ld: MPI_Errhandler_free of a held handle (handler %d) returned %s", step,
              h.fn, mtest_class_name(rc));
  MTEST_CHECK(h.h == MPI_ERRHANDLER_NULL, "step %ld: MPI_Errhandler_free left the handle set", step);
  o->held[i] = o->held[--o->nheld];
}

/* The handler in force is the one expected, and behaves. */
static void check_behaviour(struct object *o, long step) {
  MPI_Errhandler e = MPI_ERRHANDLER_NULL;
  MTEST_MPI(get_eh(o, &e));
  MTEST_CHECK(e == o->cur.h, "step %ld: the handler in force is not the one set (expected handler %d)", step,
              o->cur.fn);
  MTEST_MPI(MPI_Errhandler_free(&e));
  if (o->cur.fn == FATAL)
    return;
  int big = mtest.size + 3, rc, x = 0;
  last_fn = -1;
  last_code = MPI_SUCCESS;
  if (o->is_win) {
    rc = MPI_Win_lock(MPI_LOCK_SHARED, big, 0, o->win);
    if (rc == MPI_SUCCESS) /* should not be: unlock what it locked */
      MPI_Win_unlock(big, o->win);
  } else {
    rc = MPI_Send(&x, 1, MPI_INT, big, 0, o->comm);
  }
  int cls = MPI_SUCCESS;
  if (rc != MPI_SUCCESS)
    MPI_Error_class(rc, &cls);
  const char *what = o->is_win ? "MPI_Win_lock of a rank outside the window" : "MPI_Send to a rank outside the communicator";
  if (o->cur.fn == RETURN) {
    MTEST_CHECK(cls == MPI_ERR_RANK, "step %ld: %s under MPI_ERRORS_RETURN returned %s", step, what,
                mtest_class_name(cls));
    MTEST_CHECK(last_fn == -1, "step %ld: a user handler was called under MPI_ERRORS_RETURN", step);
  } else {
    MTEST_CHECK(last_fn == o->cur.fn, "step %ld: %s called user handler %d, not %d", step, what, last_fn, o->cur.fn);
    int lcls = MPI_SUCCESS;
    if (last_fn >= 0)
      MPI_Error_class(last_code, &lcls);
    MTEST_CHECK(lcls == MPI_ERR_RANK, "step %ld: the user handler got %s", step, mtest_class_name(lcls));
    if (o->is_win)
      MTEST_CHECK(last_win == o->win, "step %ld: the user handler got another window", step);
    else
      MTEST_CHECK(last_comm == o->comm, "step %ld: the user handler got another communicator", step);
  }
  /* MPI_*_call_errhandler with a code of our own */
  last_fn = -1;
  last_code = MPI_SUCCESS;
  rc = o->is_win ? MPI_Win_call_errhandler(o->win, MPI_ERR_OTHER) : MPI_Comm_call_errhandler(o->comm, MPI_ERR_OTHER);
  MTEST_CHECK(rc == MPI_SUCCESS, "step %ld: MPI_*_call_errhandler returned %s", step, mtest_class_name(rc));
  if (o->cur.fn >= 0)
    MTEST_CHECK(last_fn == o->cur.fn && last_code == MPI_ERR_OTHER,
                "step %ld: MPI_*_call_errhandler called handler %d with %d, not %d with MPI_ERR_OTHER", step,
                last_fn, last_code, o->cur.fn);
  else
    MTEST_CHECK(last_fn == -1, "step %ld: MPI_*_call_errhandler called a user handler under MPI_ERRORS_RETURN",
                step);
}

static void step_once(struct object *o, long step) {
  unsigned op = draw(100);
  if (op < 20) { /* get */
    MPI_Errhandler e = MPI_ERRHANDLER_NULL;
    int rc = get_eh(o, &e);
    MTEST_CHECK(rc == MPI_SUCCESS, "step %ld: get_errhandler returned %s", step, mtest_class_name(rc));
    MTEST_CHECK(e == o->cur.h, "step %ld: get_errhandler gave another handler than handler %d in force", step,
                o->cur.fn);
    struct handle h = o->cur;
    h.h = e;
    push(o, h);
  } else if (op < 35) { /* set a held handle of a kind this object takes */
    if (!o->nheld)
      return;
    struct handle h = o->held[draw((unsigned)o->nheld)];
    if (h.fn >= 0 && h.for_win != o->is_win)
      return;
    int rc = set_eh(o, h.h);
    MTEST_CHECK(rc == MPI_SUCCESS, "step %ld: set_errhandler of held handler %d returned %s", step, h.fn,
                mtest_class_name(rc));
    o->cur = h;
  } else if (op < 45) { /* set a predefined one by its name */
    struct handle h = draw(2) ? return_h : fatal_h;
    MTEST_MPI(set_eh(o, h.h));
    o->cur = h;
  } else if (op < 70) { /* free a held handle */
    if (o->nheld)
      free_held(o, (int)draw((unsigned)o->nheld), step);
  } else if (op < 78) { /* create a user handler */
    int fn = (int)draw(NFN);
    struct handle h = {MPI_ERRHANDLER_NULL, fn, o->is_win};
    if (o->is_win)
      MTEST_MPI(MPI_Win_create_errhandler(win_fns[fn], &h.h));
    else
      MTEST_MPI(MPI_Comm_create_errhandler(comm_fns[fn], &h.h));
    push(o, h);
  } else if (op < 80) { /* renew the object, handles held (collective for the window) */
    close_object(o);
    open_object(o);
  } else {
    check_behaviour(o, step);
  }
}

static void random_sequence(long steps, uint64_t seed) {
  struct object objs[2] = {{.is_win = 1}, {.is_win = 0}};
  for (int i = 0; i < 2; i++)
    open_object(&objs[i]);
  rng = seed * 0x9e3779b97f4a7c15ull + 1;
  for (long s = 0; s < steps; s++) {
    struct object *o = &objs[draw(2)];
    mtest_set_context("random sequence (seed %llu) on a %s", (unsigned long long)seed,
                      o->is_win ? "window" : "communicator");
    step_once(o, s);
    if (mtest_failures() > 20)
      mtest_die(__FILE__, __LINE__, "too many failures");
  }
  for (int i = 0; i < 2; i++) {
    check_behaviour(&objs[i], steps);
    while (objs[i].nheld)
      free_held(&objs[i], objs[i].nheld - 1, steps);
    close_object(&objs[i]);
  }
}

int main(int argc, char **argv) {
  mtest_init(&argc, &argv, MPI_THREAD_SINGLE);
  long steps = mtest_arg_long(argc, argv, "--steps", 3000);
  long seed = mtest_arg_long(argc, argv, "--seed", 1);
  int rounds = (int)mtest_arg_long(argc, argv, "--rounds", 6);
  mpi4py_pattern(MPI_COMM_SELF, rounds);
  mpi4py_pattern(MPI_COMM_WORLD, rounds);
  random_sequence(steps, (uint64_t)seed);
  /* and once more: the predefined handlers still count right after all that */
  mpi4py_pattern(MPI_COMM_SELF, rounds);
  return mtest_finish();
}
