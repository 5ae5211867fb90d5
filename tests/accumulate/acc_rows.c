/* Accumulates of whole rows: every predefined type whose size divides 16,
 * with every op it allows, as one contiguous run of 64 bytes at a 16-byte
 * aligned target address (the shape ARMCI-MPI gives every row of a strided
 * transfer, which Remora does word by word on the node) and at an address
 * off that alignment (the general path), through
 * MPI_Accumulate and MPI_Get_accumulate (fetched values checked); each
 * element checked against the serial reference of mtest_types.  Every rank
 * is the only origin of its right neighbour's slots, so results are exact.
 *
 *   acc_rows [--host-bugs TYPE:OP,...]
 *
 * --host-bugs: cases a host MPI gets wrong, not run over it (refused under
 * Remora, as in acc_matrix). */
#include "mtest.h"
#include "mtest_types.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { ROW = 64, SLOT = 2 * ROW + 32 };

/* The second run of a slot: off 16-byte alignment (by an element, or 8 bytes
 * for 16-byte types). */
static size_t second(const mtest_type *t) { return ROW + 16 + (t->size < 16 ? t->size : 8); }

/* The slot of (type, op, api), api 0: MPI_Accumulate, 1: MPI_Get_accumulate. */
static size_t slot_of(int type, int op, int api) { return ((size_t)type * MTEST_NOPS + (size_t)op) * 2 * SLOT + (size_t)api * SLOT; }

/* Whether (t, op) runs: a case the host gets wrong is named in `bugs`. */
static int runs(const mtest_type *t, int op, const char *bugs)
{
  char item[160];
  snprintf(item, sizeof item, "%s:%s", t->name, mtest_op_name((mtest_op)op));
  return 16 % t->size == 0 && mtest_allows(t, (mtest_op)op) && !mtest_listed(bugs, item);
}

/* An element, made or checked in an aligned copy (runs off alignment hold
 * misaligned long doubles). */
typedef union { long double ld; char b[32]; } elem;

static void values(const mtest_type *t, int type, int op, int api, int who, char *out, int n)
{
  for (int e = 0; e < n; e++) {
    elem v;
    t->gen(&v, mtest_seed((uint32_t)type, (uint32_t)(op * 2 + api), (uint32_t)e, (uint32_t)who), 0);
    memcpy(out + (size_t)e * t->size, &v, t->size);
  }
}

/* Whether the element at got equals the one at want (either unaligned). */
static int same(const mtest_type *t, const char *got, const char *want)
{
  elem g, w;
  memcpy(&g, got, t->size);
  memcpy(&w, want, t->size);
  return t->eq(&g, &w, 0);
}

int main(int argc, char **argv)
{
  mtest_init(&argc, &argv, MPI_THREAD_SINGLE);
  const char *bugs = mtest_host_list(argc, argv, "--host-bugs");
  const mtest_type *types;
  int ntypes = mtest_types(&types);
  size_t bytes = slot_of(ntypes, 0, 0);
  char *base;
  MPI_Win win;
  MTEST_MPI(MPI_Win_allocate((MPI_Aint)bytes + 16, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
  /* the slots start at the first 16-byte aligned address of each window
   * (Open MPI's osc/sm gives ranks' windows any alignment) */
  int pad = (int)((16 - (uintptr_t)base % 16) % 16), *pads = malloc(sizeof(int) * (size_t)mtest.size);
  MPI_Allgather(&pad, 1, MPI_INT, pads, 1, MPI_INT, MPI_COMM_WORLD);
  base += pad;
  int right = (mtest.rank + 1) % mtest.size;
  /* Two runs per slot: at +0 (aligned, ROW bytes) and at second(t). */
  for (int k = 0; k < ntypes; k++) {
    const mtest_type *t = &types[k];
    int n = ROW / (int)t->size;
    for (int op = 0; op < MTEST_NOPS; op++)
      for (int api = 0; api < 2; api++) {
        values(t, k, op, api, 0, base + slot_of(k, op, api), n);
        values(t, k, op, api, 0, base + slot_of(k, op, api) + second(t), n);
      }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MTEST_MPI(MPI_Win_lock_all(0, win));
  /* the cases: (type, op, api) that run */
  struct rcase { int k, op, api; } *cases = malloc(sizeof *cases * (size_t)ntypes * MTEST_NOPS * 2);
  int ncases = 0;
  for (int k = 0; k < ntypes; k++)
    for (int op = 0; op < MTEST_NOPS; op++)
      for (int api = 0; api < 2; api++)
        if (runs(&types[k], op, bugs) && !(api == 0 && op == MTEST_OP_NO_OP)) /* Accumulate takes no NO_OP */
          cases[ncases++] = (struct rcase){k, op, api};
  _Alignas(16) char org[ROW], res[2][ROW];
  for (int c = 0; c < ncases; c++) {
    int k = cases[c].k, op = cases[c].op, api = cases[c].api;
    const mtest_type *t = &types[k];
    int n = ROW / (int)t->size;
    MPI_Op h = mtest_op_handle((mtest_op)op);
    values(t, k, op, api, 1, org, n);
    for (int at = 0; at < 2; at++) {
      MPI_Aint disp = pads[right] + (MPI_Aint)(slot_of(k, op, api) + (at ? second(t) : 0));
      if (api == 0)
        MTEST_MPI(MPI_Accumulate(org, n, t->dt, right, disp, n, t->dt, h, win));
      else
        MTEST_MPI(MPI_Get_accumulate(org, n, t->dt, res[at], n, t->dt, right, disp, n, t->dt, h, win));
    }
    MTEST_MPI(MPI_Win_flush(right, win));
    if (api == 1) {
      _Alignas(16) char old[ROW];
      values(t, k, op, api, 0, old, n);
      for (int at = 0; at < 2; at++)
        for (int e = 0; e < n; e++)
          MTEST_CHECK(same(t, res[at] + (size_t)e * t->size, old + (size_t)e * t->size),
                      "%s %s Get_accumulate %s: fetched element %d wrong", t->name, mtest_op_name((mtest_op)op),
                      at ? "off alignment" : "aligned", e);
    }
  }
  MTEST_MPI(MPI_Win_unlock_all(win));
  MPI_Barrier(MPI_COMM_WORLD);
  MTEST_MPI(MPI_Win_lock(MPI_LOCK_SHARED, mtest.rank, 0, win));
  for (int c = 0; c < ncases; c++) {
    int k = cases[c].k, op = cases[c].op, api = cases[c].api;
    const mtest_type *t = &types[k];
    int n = ROW / (int)t->size;
    _Alignas(16) char want[ROW], from[ROW];
    values(t, k, op, api, 0, want, n);
    values(t, k, op, api, 1, from, n); /* what the left neighbour sent (the same as everyone) */
    for (int e = 0; e < n; e++)
      t->apply((mtest_op)op, want + (size_t)e * t->size, from + (size_t)e * t->size);
    for (int at = 0; at < 2; at++) {
      const char *got = base + slot_of(k, op, api) + (at ? second(t) : 0);
      for (int e = 0; e < n; e++)
        MTEST_CHECK(same(t, got + (size_t)e * t->size, want + (size_t)e * t->size),
                    "%s %s %s %s: element %d wrong", t->name, mtest_op_name((mtest_op)op),
                    api ? "Get_accumulate" : "Accumulate", at ? "off alignment" : "aligned", e);
    }
  }
  MTEST_MPI(MPI_Win_unlock(mtest.rank, win));
  MTEST_CHECK(ncases > 100, "only %d cases ran", ncases);
  free(cases);
  MTEST_MPI(MPI_Win_free(&win));
  free(pads);
  return mtest_finish();
}
