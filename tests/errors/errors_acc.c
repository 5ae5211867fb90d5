/* Erroneous accumulates and atomics under MPI_ERRORS_RETURN, with their error
 * classes: an operation not defined on the datatype (MPI_ERR_OP), a
 * user-defined operation or MPI_NO_OP in MPI_Accumulate (MPI_ERR_OP),
 * datatypes built from different basic types (MPI_ERR_TYPE), a derived
 * datatype in MPI_Fetch_and_op (MPI_ERR_TYPE), MPI_Compare_and_swap on a type
 * it does not take (MPI_ERR_TYPE).  A call that reported its error must not
 * have touched the target; the window stays usable afterwards.
 * A host MPI alone may not detect all of these: see mtest_expect_class.
 *
 *   errors_acc [--host-skip ID,...] [--trace 1]
 *
 * --host-skip names calls a host MPI crashes or hangs on instead of returning
 * an error (see CMakeLists.txt); they are not made over that host, and each
 * is printed.  Under Remora the option is refused. */
#include "mtest.h"

#include <stdio.h>
#include <string.h>

enum { SLOT = 64 };

typedef enum { ACC, GACC, RACC, FOP, CAS } api;
static const char *api_names[] = {"MPI_Accumulate", "MPI_Get_accumulate", "MPI_Raccumulate",
                                  "MPI_Fetch_and_op", "MPI_Compare_and_swap"};

typedef struct {
  const char *id;  /* for --host-skip */
  api api;
  const char *what;
  int cls;
  MPI_Datatype origin, target;  /* filled at run time */
  MPI_Op op;
} bad_call;

static void user_fn(void *in, void *inout, int *len, MPI_Datatype *dt) {
  (void)in, (void)inout, (void)len, (void)dt;
}

/* Every erroneous call targets its own slot of rank+1, which starts as
 * 0x5a bytes; origin data are 0x11 bytes, whatever the type. */
static int issue(const bad_call *b, int slot, MPI_Win win) {
  int next = (mtest.rank + 1) % mtest.size;
  char origin[SLOT], compare[SLOT], result[SLOT];
  memset(origin, 0x11, sizeof origin);
  memset(compare, 0x5a, sizeof compare);
  MPI_Aint disp = (MPI_Aint)slot * SLOT;
  MPI_Request req = MPI_REQUEST_NULL;
  int rc = MPI_SUCCESS;
  switch (b->api) {
  case ACC:
    rc = MPI_Accumulate(origin, 1, b->origin, next, disp, 1, b->target, b->op, win);
    break;
  case GACC:
    rc = MPI_Get_accumulate(origin, 1, b->origin, result, 1, b->origin, next, disp, 1, b->target,
                            b->op, win);
    break;
  case RACC:
    rc = MPI_Raccumulate(origin, 1, b->origin, next, disp, 1, b->target, b->op, win, &req);
    if (rc == MPI_SUCCESS)
      MPI_Wait(&req, MPI_STATUS_IGNORE);
    break;
  case FOP:
    rc = MPI_Fetch_and_op(origin, result, b->origin, next, disp, b->op, win);
    break;
  case CAS:
    rc = MPI_Compare_and_swap(origin, compare, result, b->origin, next, disp, win);
    break;
  }
  /* Whatever a host did with an undetected call completes here. */
  MPI_Win_flush(next, win);
  char what[200];
  snprintf(what, sizeof what, "%s %s", api_names[b->api], b->what);
  return mtest_expect_class(__FILE__, __LINE__, rc, b->cls, what);
}

int main(int argc, char **argv) {
  mtest_init(&argc, &argv, MPI_THREAD_SINGLE);
  const char *skip = mtest_host_list(argc, argv, "--host-skip");
  int trace = (int)mtest_arg_long(argc, argv, "--trace", 0);
  MPI_Op user_op;
  MPI_Op_create(user_fn, 1, &user_op);
  MPI_Datatype int2, int_double;
  MPI_Type_contiguous(2, MPI_INT, &int2);
  MPI_Type_commit(&int2);
  int blen[2] = {1, 1};
  MPI_Aint disp[2] = {0, 8};
  MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE};
  MPI_Type_create_struct(2, blen, disp, types, &int_double);
  MPI_Type_commit(&int_double);

  const bad_call calls[] = {
    {"band_double", ACC, "MPI_BAND on MPI_DOUBLE", MPI_ERR_OP, MPI_DOUBLE, MPI_DOUBLE, MPI_BAND},
    {"land_float", GACC, "MPI_LAND on MPI_FLOAT", MPI_ERR_OP, MPI_FLOAT, MPI_FLOAT, MPI_LAND},
    {"bxor_ldouble", FOP, "MPI_BXOR on MPI_LONG_DOUBLE", MPI_ERR_OP, MPI_LONG_DOUBLE, MPI_LONG_DOUBLE, MPI_BXOR},
    {"sum_bool", ACC, "MPI_SUM on MPI_C_BOOL", MPI_ERR_OP, MPI_C_BOOL, MPI_C_BOOL, MPI_SUM},
    {"prod_bool", RACC, "MPI_PROD on MPI_C_BOOL", MPI_ERR_OP, MPI_C_BOOL, MPI_C_BOOL, MPI_PROD},
    {"min_complex", GACC, "MPI_MIN on MPI_C_DOUBLE_COMPLEX", MPI_ERR_OP, MPI_C_DOUBLE_COMPLEX, MPI_C_DOUBLE_COMPLEX, MPI_MIN},
    {"max_2int", ACC, "MPI_MAX on MPI_2INT", MPI_ERR_OP, MPI_2INT, MPI_2INT, MPI_MAX},
    {"bor_float", FOP, "MPI_BOR on MPI_FLOAT", MPI_ERR_OP, MPI_FLOAT, MPI_FLOAT, MPI_BOR},
    {"user_op", ACC, "with a user-defined operation", MPI_ERR_OP, MPI_INT, MPI_INT, user_op},
    {"acc_no_op", ACC, "with MPI_NO_OP", MPI_ERR_OP, MPI_INT, MPI_INT, MPI_NO_OP},
    {"racc_no_op", RACC, "with MPI_NO_OP", MPI_ERR_OP, MPI_INT, MPI_INT, MPI_NO_OP},
    {"int_float", ACC, "MPI_INT origin, MPI_FLOAT target", MPI_ERR_TYPE, MPI_INT, MPI_FLOAT, MPI_SUM},
    {"long_int64", GACC, "MPI_LONG origin, MPI_INT64_T target", MPI_ERR_TYPE, MPI_LONG, MPI_INT64_T, MPI_SUM},
    {"int2_double", ACC, "contiguous MPI_INT origin, MPI_DOUBLE target", MPI_ERR_TYPE, int2, MPI_DOUBLE, MPI_REPLACE},
    {"struct_mixed", ACC, "struct of MPI_INT and MPI_DOUBLE", MPI_ERR_TYPE, int_double, int_double, MPI_REPLACE},
    {"fop_derived", FOP, "on a derived datatype", MPI_ERR_TYPE, int2, int2, MPI_SUM},
#if !defined(OPEN_MPI) /* Open MPI compares and swaps every predefined type bitwise; so does Remora over it */
    {"cas_double", CAS, "on MPI_DOUBLE", MPI_ERR_TYPE, MPI_DOUBLE, MPI_DOUBLE, MPI_OP_NULL},
    {"cas_float", CAS, "on MPI_FLOAT", MPI_ERR_TYPE, MPI_FLOAT, MPI_FLOAT, MPI_OP_NULL},
    {"cas_ldouble", CAS, "on MPI_LONG_DOUBLE", MPI_ERR_TYPE, MPI_LONG_DOUBLE, MPI_LONG_DOUBLE, MPI_OP_NULL},
    {"cas_complex", CAS, "on MPI_C_DOUBLE_COMPLEX", MPI_ERR_TYPE, MPI_C_DOUBLE_COMPLEX, MPI_C_DOUBLE_COMPLEX, MPI_OP_NULL},
    {"cas_float_int", CAS, "on MPI_FLOAT_INT", MPI_ERR_TYPE, MPI_FLOAT_INT, MPI_FLOAT_INT, MPI_OP_NULL},
#endif
    {"cas_double_int", CAS, "on MPI_DOUBLE_INT (a hole in each element)", MPI_ERR_TYPE, MPI_DOUBLE_INT, MPI_DOUBLE_INT,
     MPI_OP_NULL},
    {"cas_derived", CAS, "on a derived datatype", MPI_ERR_TYPE, int2, int2, MPI_OP_NULL},
  };
  enum { NCALLS = sizeof calls / sizeof calls[0] };

  char *base;
  MPI_Win win;
  /* One slot per call, then a word for the check that the window still works. */
  MTEST_MPI(MPI_Win_allocate((NCALLS + 1) * SLOT, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
  MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
  memset(base, 0x5a, (NCALLS + 1) * SLOT);
  MTEST_MPI(MPI_Win_lock_all(0, win));
  MTEST_MPI(MPI_Win_sync(win));
  MPI_Barrier(MPI_COMM_WORLD);

  int detected[NCALLS], everywhere[NCALLS];
  for (int i = 0; i < NCALLS; i++) {
    if (mtest_listed(skip, calls[i].id)) {
      if (mtest.rank == 0)
        printf("not run over the host MPI alone (it crashes): %s %s\n", api_names[calls[i].api],
               calls[i].what);
      detected[i] = 0;
      continue;
    }
    if (trace)
      fprintf(stderr, "rank %d: %s\n", mtest.rank, calls[i].id);
    detected[i] = issue(&calls[i], i, win);
  }

  int next = (mtest.rank + 1) % mtest.size;
  int64_t one = 1;
  MPI_Aint last = (MPI_Aint)NCALLS * SLOT;
  MTEST_MPI(MPI_Accumulate(&one, 1, MPI_INT64_T, next, last, 1, MPI_INT64_T, MPI_SUM, win));
  MTEST_MPI(MPI_Win_flush_all(win));
  MPI_Allreduce(detected, everywhere, NCALLS, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MTEST_MPI(MPI_Win_sync(win));
  for (int i = 0; i < NCALLS; i++) {
    if (!everywhere[i])
      continue;  /* an undetected call may have done anything to its slot */
    for (int b = 0; b < SLOT; b++)
      if ((unsigned char)base[i * SLOT + b] != 0x5a) {
        mtest_fail(__FILE__, __LINE__, "%s %s reported an error but changed byte %d of its target",
                 api_names[calls[i].api], calls[i].what, b);
        break;
      }
  }
  int64_t counted;
  memcpy(&counted, base + last, 8);
  MTEST_EQ(counted, 0x5a5a5a5a5a5a5a5aLL + 1, "a valid MPI_Accumulate after the errors");
  MTEST_MPI(MPI_Win_unlock_all(win));

  MTEST_MPI(MPI_Win_free(&win));
  MPI_Type_free(&int2);
  MPI_Type_free(&int_double);
  MPI_Op_free(&user_op);
  return mtest_finish();
}
