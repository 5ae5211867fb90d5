/* Accumulates on the (op, type) pairs the MPI standard leaves undefined but
 * the host MPI computes anyway, computed as the host computes them.
 *
 * The standard gives MPI_CHAR, MPI_WCHAR and MPI_CHARACTER no reductions, MPI_BYTE
 * only the bitwise ones, and MPI_Compare_and_swap only integer, logical and
 * byte types.  Programs use more: the OSU one-sided benchmarks accumulate
 * MPI_SUM on MPI_CHAR.  Probed on the hosts (Open MPI 4.1.4 with osc/sm,
 * osc/pt2pt and osc/ucx, MPICH 4.0.2 ch4:ucx; MPI_Reduce_local agrees):
 *   - both: every arithmetic, logical and bitwise op on MPI_CHAR (a signed
 *     byte) and MPI_CHARACTER (unsigned in Open MPI, signed in MPICH);
 *   - Open MPI: SUM, PROD, MIN, MAX, LAND, LOR, LXOR on MPI_BYTE (unsigned);
 *     MPI_Compare_and_swap on every predefined type (a bitwise compare);
 *   - MPICH: LAND, LOR, LXOR on MPI_INTEGER; MPI_Compare_and_swap on
 *     MPI_CHAR and MPI_CHARACTER.
 * What the hosts do not compute is not here: MAXLOC/MINLOC on non-pair types
 * and arithmetic on MPI_WCHAR crash Open MPI; MPICH returns success for
 * arithmetic on MPI_WCHAR but leaves the target unchanged (Remora refuses
 * those with MPI_ERR_OP rather than drop the data).
 *
 * Each pair goes through MPI_Accumulate and MPI_Get_accumulate (4 elements)
 * and MPI_Fetch_and_op, each rank on its right neighbour under an exclusive
 * lock, on bytes with and without the high bit (signedness shows in MIN,
 * MAX and PROD).  The expected target is the host's own MPI_Reduce_local on
 * the same data, which Remora never takes over: over the host alone the test
 * checks that its one-sided and local reductions agree, through Remora that
 * Remora computes what the host does.  Compare-and-swap: swapped when equal,
 * untouched when one byte differs, the old value returned either way.
 *
 *   acc_as_host [--win all|allocate,create,alloc_mem,dynamic] */
#include "mtest.h"

#include <stdio.h>
#include <string.h>

enum { NELEM = 4, MAXSIZE = 16, SLOT = NELEM * MAXSIZE };

typedef struct { const char *name; MPI_Datatype type; const char *ops; } pair_row;

#define ALL_OPS "SUM,PROD,MIN,MAX,LAND,LOR,LXOR,BAND,BOR,BXOR"
static const pair_row acc_rows[] = {
    {"MPI_CHAR", MPI_CHAR, ALL_OPS},
    {"MPI_CHARACTER", MPI_CHARACTER, ALL_OPS},
#if defined(OPEN_MPI)
    {"MPI_BYTE", MPI_BYTE, "SUM,PROD,MIN,MAX,LAND,LOR,LXOR"},
#else
    {"MPI_INTEGER", MPI_INTEGER, "LAND,LOR,LXOR"},
#endif
};

typedef struct { const char *name; MPI_Datatype type; } type_row;
static const type_row cas_rows[] = {
    {"MPI_CHAR", MPI_CHAR}, {"MPI_CHARACTER", MPI_CHARACTER},
#if defined(OPEN_MPI)
    {"MPI_WCHAR", MPI_WCHAR}, {"MPI_PACKED", MPI_PACKED}, {"MPI_FLOAT", MPI_FLOAT}, {"MPI_DOUBLE", MPI_DOUBLE},
    {"MPI_REAL", MPI_REAL}, {"MPI_C_FLOAT_COMPLEX", MPI_C_FLOAT_COMPLEX},
    {"MPI_C_DOUBLE_COMPLEX", MPI_C_DOUBLE_COMPLEX}, {"MPI_COMPLEX", MPI_COMPLEX}, {"MPI_2INT", MPI_2INT},
    {"MPI_FLOAT_INT", MPI_FLOAT_INT}, {"MPI_2REAL", MPI_2REAL},
#endif
};

static const struct { const char *name; MPI_Op op; } op_names[] = {
    {"SUM", MPI_SUM},   {"PROD", MPI_PROD}, {"MIN", MPI_MIN}, {"MAX", MPI_MAX},   {"LAND", MPI_LAND},
    {"LOR", MPI_LOR},   {"LXOR", MPI_LXOR}, {"BAND", MPI_BAND}, {"BOR", MPI_BOR}, {"BXOR", MPI_BXOR},
};

/* Bytes with and without the high bit, zero and one (logical ops). */
static unsigned char pattern(int who, int i) {
  static const unsigned char v[] = {0x90, 0x10, 0x7f, 0x80, 0x01, 0xff, 0x00, 0x55, 0xc3, 0x3c, 0x02};
  return v[(unsigned)(who * 5 + i * 3) % sizeof v];
}
static void fill(unsigned char *p, size_t n, int who) {
  for (size_t i = 0; i < n; i++)
    p[i] = pattern(who, (int)i);
}

static void hexdump(char *out, const unsigned char *p, size_t n) {
  for (size_t i = 0; i < n; i++)
    sprintf(out + 2 * i, "%02x", p[i]);
}

static void check_bytes(const unsigned char *got, const unsigned char *exp, size_t n, const char *what) {
  if (memcmp(got, exp, n) != 0) {
    char g[2 * SLOT + 1], e[2 * SLOT + 1];
    hexdump(g, got, n);
    hexdump(e, exp, n);
    mtest_fail(__FILE__, __LINE__, "%s: expected %s, got %s", what, e, g);
  }
}

enum call { ACC, GACC, FOP };
static const char *call_name[] = {"MPI_Accumulate", "MPI_Get_accumulate", "MPI_Fetch_and_op"};

/* One (type, op, call) on every rank's right neighbour; the owner checks. */
static void one_reduction(mtest_win *w, const pair_row *row, MPI_Op op, const char *opname, enum call c) {
  int next = (mtest.rank + 1) % mtest.size, prev = (mtest.rank + mtest.size - 1) % mtest.size;
  int tsize;
  MPI_Type_size(row->type, &tsize);
  int n = c == FOP ? 1 : NELEM;
  size_t bytes = (size_t)n * (size_t)tsize;
  mtest_set_context("%s %s %s on %s", call_name[c], opname, row->name, mtest_win_kind_name(w->kind));

  fill((unsigned char *)w->base, SLOT, 100 + mtest.rank); /* the target's old value */
  MPI_Barrier(MPI_COMM_WORLD);
  unsigned char origin[SLOT], result[SLOT];
  fill(origin, SLOT, mtest.rank);
  memset(result, 0xee, sizeof result);
  MPI_Win_lock(MPI_LOCK_EXCLUSIVE, next, 0, w->win);
  int rc;
  if (c == ACC)
    rc = MPI_Accumulate(origin, n, row->type, next, mtest_disp(w, next, 0), n, row->type, op, w->win);
  else if (c == GACC)
    rc = MPI_Get_accumulate(origin, n, row->type, result, n, row->type, next, mtest_disp(w, next, 0), n, row->type,
                            op, w->win);
  else
    rc = MPI_Fetch_and_op(origin, result, row->type, next, mtest_disp(w, next, 0), op, w->win);
  MPI_Win_unlock(next, w->win);
  if (rc != MPI_SUCCESS)
    mtest_fail_rc(__FILE__, __LINE__, call_name[c], rc);
  MPI_Barrier(MPI_COMM_WORLD);

  unsigned char old[SLOT], exp[SLOT];
  fill(old, SLOT, 100 + next);
  if (rc == MPI_SUCCESS && c != ACC)
    check_bytes(result, old, bytes, "the old target value returned");
  /* my memory: my left neighbour's origin reduced into my old value, by the host */
  unsigned char from[SLOT];
  fill(from, SLOT, prev);
  fill(exp, SLOT, 100 + mtest.rank);
  rc = MPI_Reduce_local(from, exp, n, row->type, op);
  MTEST_CHECK(rc == MPI_SUCCESS, "the host's MPI_Reduce_local refuses %s on %s", opname, row->name);
  check_bytes((unsigned char *)w->base, exp, SLOT, "the target after the call");
  MPI_Barrier(MPI_COMM_WORLD);
}

static void one_cas(mtest_win *w, const type_row *row, int equal) {
  int next = (mtest.rank + 1) % mtest.size, prev = (mtest.rank + mtest.size - 1) % mtest.size;
  int tsize;
  MPI_Type_size(row->type, &tsize);
  mtest_set_context("MPI_Compare_and_swap %s on %s, %s", row->name, mtest_win_kind_name(w->kind),
                    equal ? "equal" : "one byte differs");
  fill((unsigned char *)w->base, SLOT, 100 + mtest.rank);
  MPI_Barrier(MPI_COMM_WORLD);
  unsigned char origin[SLOT], compare[SLOT], result[SLOT];
  fill(origin, SLOT, mtest.rank);
  fill(compare, SLOT, 100 + next);
  if (!equal)
    compare[tsize - 1] ^= 0x01;
  memset(result, 0xee, sizeof result);
  MPI_Win_lock(MPI_LOCK_EXCLUSIVE, next, 0, w->win);
  MTEST_MPI(MPI_Compare_and_swap(origin, compare, result, row->type, next, mtest_disp(w, next, 0), w->win));
  MPI_Win_unlock(next, w->win);
  MPI_Barrier(MPI_COMM_WORLD);
  unsigned char old[SLOT], exp[SLOT];
  fill(old, SLOT, 100 + next);
  check_bytes(result, old, (size_t)tsize, "the old target value returned");
  fill(exp, SLOT, 100 + mtest.rank);
  if (equal)
    fill(exp, (size_t)tsize, prev);
  check_bytes((unsigned char *)w->base, exp, SLOT, "the target after the call");
  MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv) {
  mtest_init(&argc, &argv, MPI_THREAD_SINGLE);
  mtest_win_kind kinds[MTEST_NKINDS];
  int nk = mtest_win_kinds(argc, argv, kinds);
  for (int k = 0; k < nk; k++) {
    mtest_win w;
    mtest_win_open(&w, kinds[k], SLOT, MPI_INFO_NULL, MPI_COMM_WORLD);
    MPI_Win_set_errhandler(w.win, MPI_ERRORS_RETURN);
    for (size_t r = 0; r < sizeof acc_rows / sizeof *acc_rows; r++)
      for (size_t o = 0; o < sizeof op_names / sizeof *op_names; o++)
        if (mtest_listed(acc_rows[r].ops, op_names[o].name))
          for (int c = ACC; c <= FOP; c++)
            one_reduction(&w, &acc_rows[r], op_names[o].op, op_names[o].name, (enum call)c);
    for (size_t r = 0; r < sizeof cas_rows / sizeof *cas_rows; r++)
      for (int equal = 1; equal >= 0; equal--)
        one_cas(&w, &cas_rows[r], equal);
    mtest_set_context("%s", "");
    mtest_win_close(&w);
  }
  return mtest_finish();
}
