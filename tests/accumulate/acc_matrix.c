/* Every predefined op on every predefined type it is allowed on, through
 * MPI_Accumulate, MPI_Get_accumulate (fetched values checked), MPI_Fetch_and_op
 * and MPI_Compare_and_swap, on predefined types and on derived types built from
 * one predefined type (contiguous, vector, hvector, indexed) on either side,
 * each checked against the serial reference of mtest_types.
 *
 * Every (type, op) case owns NSLOTS slots of SLOT_BYTES in every window.  Each
 * rank is the single origin of the slots 0-5 of rank+1, so their results are
 * exact; every rank accumulates into the slots 6-7 of rank 0, whose floating
 * SUM/PROD results depend on the order and are compared within
 * 16 * (nprocs + 1) units of the type's epsilon (times the magnitude if above 1).
 *
 *   acc_matrix [--win all|allocate,create,alloc_mem,dynamic] [--host-bugs TYPE:OP[:derived],...]
 *              [--trace 1]
 *
 * --host-bugs names cases a host MPI gets wrong or crashes on (see
 * CMakeLists.txt): they are not run, and each is printed.  Under Remora the
 * option is refused, so it can never hide an engine bug. */
#include "mtest.h"
#include "mtest_types.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { K = 3, SLOT_ELEMS = 8, SLOT_BYTES = 256 };

/* How K elements are laid out in a slot: datatype, count, element positions. */
typedef struct { MPI_Datatype dt; int count; int at[K]; } layout;
enum { L_PLAIN, L_CONTIG, L_VEC, L_HVEC, L_IDX, NLAYOUTS };

typedef enum { ACC, GACC, FOP } api;
/* target = -1: rank + 1 (one origin per slot); 0: rank 0 (every rank) */
static const struct slot {
  const char *name;
  api api;
  int origin, result, target;
  int many;
} slots[] = {
  {"MPI_Accumulate", ACC, L_PLAIN, L_PLAIN, L_PLAIN, 0},
  {"MPI_Get_accumulate", GACC, L_PLAIN, L_PLAIN, L_PLAIN, 0},
  {"MPI_Accumulate contiguous->vector", ACC, L_CONTIG, L_PLAIN, L_VEC, 0},
  {"MPI_Get_accumulate vector->hvector, result indexed", GACC, L_VEC, L_IDX, L_HVEC, 0},
  {"MPI_Accumulate indexed->contiguous", ACC, L_IDX, L_PLAIN, L_CONTIG, 0},
  {"MPI_Fetch_and_op", FOP, L_PLAIN, L_PLAIN, L_PLAIN, 0},
  {"MPI_Accumulate from every rank, ->vector", ACC, L_PLAIN, L_PLAIN, L_VEC, 1},
  {"MPI_Get_accumulate from every rank, ->indexed", GACC, L_PLAIN, L_PLAIN, L_IDX, 1},
  /* rank 0's own call included: a strided call carried out where it is made */
  {"MPI_Get_accumulate from every rank, ->hvector", GACC, L_PLAIN, L_PLAIN, L_HVEC, 1},
};
enum { NSLOTS = sizeof slots / sizeof slots[0] };
enum { ROLE_ORIGIN, ROLE_TARGET, ROLE_RESULT, ROLE_COMPARE };

typedef struct { int type; mtest_op op; int skip_plain, skip_derived; } acase;

typedef struct {
  const mtest_type *types;
  int ntypes;
  layout (*lay)[NLAYOUTS];  /* per type */
  int *usable;              /* per type: extent checked, layouts built */
  acase *cases;
  int ncases;
  mtest_win w;
  char *origin, *result, *compare;  /* same shape as the window */
  size_t bytes;
} matrix;

static void make_layouts(const mtest_type *t, layout lay[NLAYOUTS]) {
  MPI_Datatype dt = t->dt;
  int len[2] = {1, 2}, disp[2] = {0, 3};
  lay[L_PLAIN] = (layout){dt, K, {0, 1, 2}};
  lay[L_CONTIG] = (layout){MPI_DATATYPE_NULL, 1, {0, 1, 2}};
  lay[L_VEC] = (layout){MPI_DATATYPE_NULL, 1, {0, 2, 4}};
  lay[L_HVEC] = (layout){MPI_DATATYPE_NULL, 1, {0, 3, 6}};
  lay[L_IDX] = (layout){MPI_DATATYPE_NULL, 1, {0, 3, 4}};
  MTEST_MPI(MPI_Type_contiguous(K, dt, &lay[L_CONTIG].dt));
  MTEST_MPI(MPI_Type_vector(K, 1, 2, dt, &lay[L_VEC].dt));
  MTEST_MPI(MPI_Type_create_hvector(K, 1, (MPI_Aint)(3 * t->size), dt, &lay[L_HVEC].dt));
  MTEST_MPI(MPI_Type_indexed(2, len, disp, dt, &lay[L_IDX].dt));
  for (int l = L_CONTIG; l < NLAYOUTS; l++)
    MTEST_MPI(MPI_Type_commit(&lay[l].dt));
}

/* A pair type whose extent is not its C struct size cannot be laid out here. */
static int type_usable(const mtest_type *t) {
  MPI_Aint lb = 0, extent = 0;
  if (t->dt == MPI_DATATYPE_NULL) {
    mtest_fail(__FILE__, __LINE__, "%s is MPI_DATATYPE_NULL in this MPI", t->name);
    return 0;
  }
  MPI_Type_get_extent(t->dt, &lb, &extent);
  if (extent != (MPI_Aint)t->size || t->size * SLOT_ELEMS > SLOT_BYTES) {
    mtest_fail(__FILE__, __LINE__, "%s: extent %ld, C size %zu", t->name, (long)extent, t->size);
    return 0;
  }
  return 1;
}

static int is_derived_slot(int s) {
  return slots[s].origin != L_PLAIN || slots[s].result != L_PLAIN || slots[s].target != L_PLAIN;
}

static void mark_host_bugs(matrix *m, const char *list) {
  for (int c = 0; c < m->ncases; c++) {
    acase *k = &m->cases[c];
    const char *type = m->types[k->type].name, *op = mtest_op_name(k->op);
    char item[160];
    snprintf(item, sizeof item, "%s:%s", type, op);
    k->skip_plain = mtest_listed(list, item);
    snprintf(item, sizeof item, "%s:%s:derived", type, op);
    k->skip_derived = k->skip_plain || mtest_listed(list, item);
    if (mtest.rank == 0 && k->skip_derived)
      printf("not run over the host MPI alone (host bug): %s on %s%s\n", op, type,
             k->skip_plain ? "" : " in derived datatypes");
  }
}

/* Over a host MPI, cases named by --host-bugs are neither issued nor checked. */
static int skipped(const acase *k, int s) {
  return is_derived_slot(s) ? k->skip_derived : k->skip_plain;
}

static void build_cases(matrix *m) {
  m->ntypes = mtest_types(&m->types);
  m->lay = calloc((size_t)m->ntypes, sizeof *m->lay);
  m->cases = calloc((size_t)m->ntypes * MTEST_NOPS, sizeof *m->cases);
  m->usable = calloc((size_t)m->ntypes, sizeof *m->usable);
  MTEST_ASSERT(m->lay && m->cases && m->usable, "calloc");
  m->ncases = 0;
  for (int t = 0; t < m->ntypes; t++) {
    if (!type_usable(&m->types[t]))
      continue;
    make_layouts(&m->types[t], m->lay[t]);
    m->usable[t] = 1;
    for (int op = 0; op < MTEST_NOPS; op++)
      if (mtest_allows(&m->types[t], (mtest_op)op))
        m->cases[m->ncases++] = (acase){t, (mtest_op)op, 0, 0};
  }
}

/* Case slots first, then one CAS slot per type. */
static size_t slot_off(int c, int s) { return ((size_t)c * NSLOTS + (size_t)s) * SLOT_BYTES; }
static size_t cas_off(const matrix *m, int t) {
  return ((size_t)m->ncases * NSLOTS + (size_t)t) * SLOT_BYTES;
}

static void fill(const mtest_type *t, char *slot, uint32_t id, int role, int rank, int spread) {
  for (int e = 0; e < SLOT_ELEMS; e++)
    t->gen(slot + (size_t)e * t->size, mtest_seed(id, (uint32_t)e, (uint32_t)role, (uint32_t)rank),
           spread);
}

/* The slot as process `rank` filled it in `role`, regenerated anywhere. */
static void regen(const matrix *m, int c, int s, int role, int rank, char *out) {
  const mtest_type *t = &m->types[m->cases[c].type];
  int spread = slots[s].many && t->floating;
  fill(t, out, (uint32_t)(c * NSLOTS + s), role, rank, spread);
}

static void fill_all(matrix *m, int rank) {
  for (int c = 0; c < m->ncases; c++)
    for (int s = 0; s < NSLOTS; s++) {
      regen(m, c, s, ROLE_TARGET, rank, m->w.base + slot_off(c, s));
      regen(m, c, s, ROLE_ORIGIN, rank, m->origin + slot_off(c, s));
      regen(m, c, s, ROLE_RESULT, rank, m->result + slot_off(c, s));
    }
  for (int t = 0; t < m->ntypes; t++) {
    const mtest_type *ty = &m->types[t];
    size_t off = cas_off(m, t);
    uint32_t id = (uint32_t)(1000000 + t);
    fill(ty, m->w.base + off, id, ROLE_TARGET, rank, 0);
    fill(ty, m->origin + off, id, ROLE_ORIGIN, rank, 0);
    fill(ty, m->result + off, id, ROLE_RESULT, rank, 0);
  }
}

static void report_rc(int rc, const matrix *m, int c, int s) {
  if (rc == MPI_SUCCESS)
    return;
  char msg[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, msg, &len);
  mtest_fail(__FILE__, __LINE__, "%s %s on %s returned an error: %s", slots[s].name,
           mtest_op_name(m->cases[c].op), m->types[m->cases[c].type].name, msg);
}

static void issue_case(matrix *m, int c, int trace) {
  const acase *k = &m->cases[c];
  if (trace)
    fprintf(stderr, "rank %d: %s on %s\n", mtest.rank, mtest_op_name(k->op), m->types[k->type].name);
  const layout *lay = m->lay[k->type];
  MPI_Op op = mtest_op_handle(k->op);
  int next = (mtest.rank + 1) % mtest.size;
  for (int s = 0; s < NSLOTS; s++) {
    const struct slot *sl = &slots[s];
    if ((sl->api == ACC && k->op == MTEST_OP_NO_OP) || skipped(k, s))
      continue;  /* MPI_NO_OP is not an MPI_Accumulate operation */
    int target = sl->many ? 0 : next;
    MPI_Aint disp = mtest_disp(&m->w, target, slot_off(c, s));
    const layout *o = &lay[sl->origin], *r = &lay[sl->result], *t = &lay[sl->target];
    char *org = m->origin + slot_off(c, s), *res = m->result + slot_off(c, s);
    int rc = MPI_SUCCESS;
    if (sl->api == ACC)
      rc = MPI_Accumulate(org, o->count, o->dt, target, disp, t->count, t->dt, op, m->w.win);
    else if (sl->api == GACC)
      rc = MPI_Get_accumulate(org, o->count, o->dt, res, r->count, r->dt, target, disp, t->count,
                              t->dt, op, m->w.win);
    else
      rc = MPI_Fetch_and_op(org, res, lay[L_PLAIN].dt, target, disp, op, m->w.win);
    report_rc(rc, m, c, s);
  }
}

/* Element 0 swaps (compare = target value), element 1 does not (compare has
 * its lowest bit flipped, a different value of every CAS type). */
static void issue_cas(matrix *m, int t) {
  const mtest_type *ty = &m->types[t];
  int next = (mtest.rank + 1) % mtest.size;
  size_t off = cas_off(m, t);
  char target_init[SLOT_BYTES];
  fill(ty, target_init, (uint32_t)(1000000 + t), ROLE_TARGET, next, 0);
  memcpy(m->compare + off, target_init, 2 * ty->size);
  m->compare[off + ty->size] ^= 1;
  for (int e = 0; e < 2; e++) {
    size_t eo = off + (size_t)e * ty->size;
    int rc = MPI_Compare_and_swap(m->origin + eo, m->compare + eo, m->result + eo, ty->dt, next,
                                  mtest_disp(&m->w, next, eo), m->w.win);
    if (rc != MPI_SUCCESS)
      mtest_fail(__FILE__, __LINE__, "MPI_Compare_and_swap on %s returned error %d", ty->name, rc);
  }
}

static void show_mismatch(const mtest_type *t, const char *what, mtest_op op, int e,
                          const void *exp, const void *got) {
  char se[96], sg[96];
  t->show(se, sizeof se, exp);
  t->show(sg, sizeof sg, got);
  mtest_fail(__FILE__, __LINE__, "%s %s on %s, element %d: expected %s, got %s", what,
           mtest_op_name(op), t->name, e, se, sg);
}

static void compare_slot(const mtest_type *t, const char *what, mtest_op op, const char *exp,
                         const char *got, double ulps) {
  for (int e = 0; e < SLOT_ELEMS; e++) {
    const char *x = exp + (size_t)e * t->size, *g = got + (size_t)e * t->size;
    if (!t->eq(g, x, ulps))
      show_mismatch(t, what, op, e, x, g);
  }
}

/* Target slot s of case c after the accumulates of the origins [lo, hi). */
static void expect_target(const matrix *m, int c, int s, int lo, int hi, char *exp) {
  const acase *k = &m->cases[c];
  const mtest_type *t = &m->types[k->type];
  const layout *o = &m->lay[k->type][slots[s].origin], *tl = &m->lay[k->type][slots[s].target];
  char org[SLOT_BYTES];
  regen(m, c, s, ROLE_TARGET, mtest.rank, exp);
  for (int p = lo; p < hi; p++) {
    regen(m, c, s, ROLE_ORIGIN, p, org);
    int n = slots[s].api == FOP ? 1 : K;
    for (int i = 0; i < n; i++)
      t->apply(k->op, exp + (size_t)tl->at[i] * t->size, org + (size_t)o->at[i] * t->size);
  }
}

/* MPI_REPLACE from many origins: each element holds some origin's value. */
static void check_replaced(const matrix *m, int c, int s, const char *got) {
  const acase *k = &m->cases[c];
  const mtest_type *t = &m->types[k->type];
  const layout *o = &m->lay[k->type][slots[s].origin], *tl = &m->lay[k->type][slots[s].target];
  char org[SLOT_BYTES];
  for (int i = 0; i < K; i++) {
    int found = 0;
    for (int p = 0; p < mtest.size && !found; p++) {
      regen(m, c, s, ROLE_ORIGIN, p, org);
      found = t->eq(got + (size_t)tl->at[i] * t->size, org + (size_t)o->at[i] * t->size, 0);
    }
    MTEST_CHECK(found, "%s MPI_REPLACE on %s, element %d: no origin wrote this value",
              slots[s].name, t->name, tl->at[i]);
  }
}

static void check_targets(const matrix *m) {
  int prev = (mtest.rank + mtest.size - 1) % mtest.size;
  char exp[SLOT_BYTES];
  for (int c = 0; c < m->ncases; c++) {
    const acase *k = &m->cases[c];
    const mtest_type *t = &m->types[k->type];
    for (int s = 0; s < NSLOTS; s++) {
      const char *got = m->w.base + slot_off(c, s);
      int acc_skipped = slots[s].api == ACC && k->op == MTEST_OP_NO_OP;
      if ((slots[s].many && mtest.rank != 0) || skipped(k, s))
        continue;
      int lo = slots[s].many ? 0 : prev, hi = slots[s].many ? mtest.size : prev + 1;
      if (acc_skipped)
        hi = lo;
      expect_target(m, c, s, lo, hi, exp);
      double ulps = 0;
      if (slots[s].many && t->floating && (k->op == MTEST_OP_SUM || k->op == MTEST_OP_PROD))
        ulps = 16.0 * (mtest.size + 1);
      if (slots[s].many && k->op == MTEST_OP_REPLACE) {
        check_replaced(m, c, s, got);
        for (int i = 0; i < K; i++)  /* the checked elements; the rest must be untouched */
          memcpy(exp + (size_t)m->lay[k->type][slots[s].target].at[i] * t->size,
                 got + (size_t)m->lay[k->type][slots[s].target].at[i] * t->size, t->size);
      }
      compare_slot(t, slots[s].name, k->op, exp, got, ulps);
    }
  }
}

/* Fetched values: the target's initial values, where a single origin wrote. */
static void check_results(const matrix *m) {
  int next = (mtest.rank + 1) % mtest.size;
  char exp[SLOT_BYTES], init[SLOT_BYTES];
  for (int c = 0; c < m->ncases; c++) {
    const acase *k = &m->cases[c];
    const mtest_type *t = &m->types[k->type];
    for (int s = 0; s < NSLOTS; s++) {
      if (slots[s].api == ACC || skipped(k, s))
        continue;
      const layout *r = &m->lay[k->type][slots[s].result], *tl = &m->lay[k->type][slots[s].target];
      int target = slots[s].many ? 0 : next;
      regen(m, c, s, ROLE_RESULT, mtest.rank, exp);
      regen(m, c, s, ROLE_TARGET, target, init);
      /* Many origins: only MPI_NO_OP fetches a value known here. */
      int known = !slots[s].many || k->op == MTEST_OP_NO_OP;
      int n = slots[s].api == FOP ? 1 : K;
      const char *got = m->result + slot_off(c, s);
      for (int i = 0; i < n; i++) {
        char *x = exp + (size_t)r->at[i] * t->size;
        memcpy(x, known ? init + (size_t)tl->at[i] * t->size : got + (size_t)r->at[i] * t->size,
               t->size);
      }
      compare_slot(t, slots[s].api == FOP ? "MPI_Fetch_and_op result" : "MPI_Get_accumulate result",
                   k->op, exp, got, 0);
    }
  }
}

static void check_cas(const matrix *m) {
  int prev = (mtest.rank + mtest.size - 1) % mtest.size, next = (mtest.rank + 1) % mtest.size;
  char exp[SLOT_BYTES], org[SLOT_BYTES];
  for (int t = 0; t < m->ntypes; t++) {
    const mtest_type *ty = &m->types[t];
    if (!ty->cas || !m->usable[t])
      continue;
    uint32_t id = (uint32_t)(1000000 + t);
    size_t off = cas_off(m, t);
    fill(ty, exp, id, ROLE_TARGET, mtest.rank, 0);
    fill(ty, org, id, ROLE_ORIGIN, prev, 0);
    memcpy(exp, org, ty->size);  /* element 0 swapped, element 1 kept */
    compare_slot(ty, "MPI_Compare_and_swap target", MTEST_OP_REPLACE, exp, m->w.base + off, 0);
    fill(ty, exp, id, ROLE_RESULT, mtest.rank, 0);
    fill(ty, org, id, ROLE_TARGET, next, 0);
    memcpy(exp, org, 2 * ty->size);  /* both fetch the old value */
    compare_slot(ty, "MPI_Compare_and_swap result", MTEST_OP_REPLACE, exp, m->result + off, 0);
  }
}

static char *alloc_zero(size_t n) {
  char *p = aligned_alloc(64, (n + 63) / 64 * 64);
  MTEST_ASSERT(p != NULL, "aligned_alloc");
  memset(p, 0, n);
  return p;
}

static void run(matrix *m, mtest_win_kind kind, int trace) {
  mtest_set_context("%s window", mtest_win_kind_name(kind));
  mtest_win_open(&m->w, kind, m->bytes, MPI_INFO_NULL, MPI_COMM_WORLD);
  MPI_Win_set_errhandler(m->w.win, MPI_ERRORS_RETURN);
  memset(m->origin, 0, m->bytes);
  memset(m->result, 0, m->bytes);
  memset(m->compare, 0, m->bytes);
  MTEST_MPI(MPI_Win_lock_all(0, m->w.win));
  fill_all(m, mtest.rank);
  MTEST_MPI(MPI_Win_sync(m->w.win));
  MPI_Barrier(MPI_COMM_WORLD);
  for (int c = 0; c < m->ncases; c++)
    issue_case(m, c, trace);
  for (int t = 0; t < m->ntypes; t++)
    if (m->types[t].cas && m->usable[t])
      issue_cas(m, t);
  MTEST_MPI(MPI_Win_flush_all(m->w.win));
  MPI_Barrier(MPI_COMM_WORLD);
  MTEST_MPI(MPI_Win_sync(m->w.win));
  check_targets(m);
  check_results(m);
  check_cas(m);
  MTEST_MPI(MPI_Win_unlock_all(m->w.win));
  if (mtest.rank == 0)
    printf("%d (op, type) cases x %d slots, %s window, %d ranks\n", m->ncases, NSLOTS,
           mtest_win_kind_name(kind), mtest.size);
  mtest_win_close(&m->w);
}

int main(int argc, char **argv) {
  mtest_init(&argc, &argv, MPI_THREAD_SINGLE);
  const char *host_bugs = mtest_host_list(argc, argv, "--host-bugs");
  int trace = (int)mtest_arg_long(argc, argv, "--trace", 0);  /* name each case as it is issued */
  matrix m = {0};
  build_cases(&m);
  mark_host_bugs(&m, host_bugs);
  m.bytes = cas_off(&m, m.ntypes);
  m.origin = alloc_zero(m.bytes);
  m.result = alloc_zero(m.bytes);
  m.compare = alloc_zero(m.bytes);
  mtest_win_kind kinds[MTEST_NKINDS];
  int nk = mtest_win_kinds(argc, argv, kinds);
  for (int k = 0; k < nk; k++)
    run(&m, kinds[k], trace);
  for (int t = 0; t < m.ntypes; t++)
    for (int l = L_CONTIG; l < NLAYOUTS && m.usable[t]; l++)
      MPI_Type_free(&m.lay[t][l].dt);
  free(m.origin);
  free(m.result);
  free(m.compare);
  free(m.lay);
  free(m.cases);
  free(m.usable);
  return mtest_finish();
}
