/* Dynamic windows with many regions: every rank attaches NREG regions (sizes
 * 8 B to 8 KiB, from malloc and from MPI_Alloc_mem), publishes their
 * MPI_Get_address displacements (MPI_BOTTOM-relative), and every rank puts
 * into, gets from and accumulates into the regions of others, also at
 * displacements inside a region and through a derived datatype.  Then half
 * the regions are detached and replaced by new ones at other addresses and
 * everything is done again (GENERATIONS times): an origin that cached a
 * target's regions must see the new ones.
 *
 *   dyn_win [--regions N] [--generations G] */
#include "mtest.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
  char *base;
  MPI_Aint addr;  /* MPI_Get_address(base) */
  int size;       /* bytes, a multiple of 8 */
  int from_mpi;   /* MPI_Alloc_mem, else malloc */
} region;

typedef struct {
  MPI_Win win;
  int nreg, gen;
  region *mine;
  MPI_Aint *addr;  /* [rank * nreg + i] */
  int *size;
} dyn_test;

static int region_size(int i, int gen) { return 8 << ((i + gen) % 11); }  /* 8 B .. 8 KiB */
static int64_t pattern(int owner, int writer, int i, int gen, int w) {
  return ((int64_t)owner << 40) + ((int64_t)writer << 32) + ((int64_t)gen << 24) + i * 256 + w;
}

static void attach(dyn_test *t, int i) {
  region *r = &t->mine[i];
  r->size = region_size(i, t->gen);
  r->from_mpi = (i + t->gen) % 2;
  if (r->from_mpi)
    MTEST_MPI(MPI_Alloc_mem(r->size, MPI_INFO_NULL, &r->base));
  else
    r->base = malloc((size_t)r->size);
  MTEST_ASSERT(r->base != NULL, "region allocation");
  /* Word 0 takes SUMs from every rank; the rest is my pattern for readers. */
  int64_t *w = (int64_t *)r->base;
  w[0] = 0;
  for (int k = 1; k < r->size / 8; k++)
    w[k] = pattern(mtest.rank, mtest.rank, i, t->gen, k);
  MTEST_MPI(MPI_Win_attach(t->win, r->base, r->size));
  MPI_Get_address(r->base, &r->addr);
}

static void detach(dyn_test *t, int i) {
  region *r = &t->mine[i];
  MTEST_MPI(MPI_Win_detach(t->win, r->base));
  if (r->from_mpi)
    MTEST_MPI(MPI_Free_mem(r->base));
  else
    free(r->base);
  r->base = NULL;
}

static void publish(dyn_test *t) {
  MPI_Aint a[t->nreg];
  int s[t->nreg];
  for (int i = 0; i < t->nreg; i++) {
    a[i] = t->mine[i].addr;
    s[i] = t->mine[i].size;
  }
  MPI_Allgather(a, t->nreg, MPI_AINT, t->addr, t->nreg, MPI_AINT, MPI_COMM_WORLD);
  MPI_Allgather(s, t->nreg, MPI_INT, t->size, t->nreg, MPI_INT, MPI_COMM_WORLD);
}

/* Per region of rank+1: put my pattern into its last word (if it has more
 * than two words), strided every third word through a vector type in
 * regions of 64+ bytes; get its second word; SUM into word 0 of every rank's
 * regions.  Every location has a single writer or only SUMs. */
static void access_round(dyn_test *t, int64_t *got, int64_t *puts) {
  int next = (mtest.rank + 1) % mtest.size, prev = (mtest.rank + mtest.size - 1) % mtest.size;
  MPI_Datatype every3;
  MPI_Type_vector(2, 1, 3, MPI_INT64_T, &every3);
  MPI_Type_commit(&every3);
  static const int64_t one = 1;
  MTEST_MPI(MPI_Win_lock_all(0, t->win));
  /* My regions' fresh contents are public before anyone accesses them. */
  MTEST_MPI(MPI_Win_sync(t->win));
  MPI_Barrier(MPI_COMM_WORLD);
  for (int i = 0; i < t->nreg; i++) {
    MPI_Aint a = t->addr[next * t->nreg + i];
    int words = t->size[next * t->nreg + i] / 8;
    for (int p = 0; p < mtest.size; p++)
      MTEST_MPI(MPI_Accumulate(&one, 1, MPI_INT64_T, p, t->addr[p * t->nreg + i], 1, MPI_INT64_T,
                             MPI_SUM, t->win));
    if (words > 2) {
      puts[3 * i] = pattern(next, mtest.rank, i, t->gen, words - 1);
      MTEST_MPI(MPI_Put(&puts[3 * i], 1, MPI_INT64_T, next, a + 8 * (words - 1), 1, MPI_INT64_T, t->win));
    }
    if (words >= 8) {  /* words 2 and 5 */
      puts[3 * i + 1] = pattern(next, mtest.rank, i, t->gen, 2);
      puts[3 * i + 2] = pattern(next, mtest.rank, i, t->gen, 5);
      MTEST_MPI(MPI_Put(&puts[3 * i + 1], 2, MPI_INT64_T, next, a + 16, 1, every3, t->win));
    }
    MPI_Aint pa = t->addr[prev * t->nreg + i];
    if (t->size[prev * t->nreg + i] >= 16)
      MTEST_MPI(MPI_Get(&got[i], 1, MPI_INT64_T, prev, pa + 8, 1, MPI_INT64_T, t->win));
  }
  MTEST_MPI(MPI_Win_flush_all(t->win));
  MPI_Barrier(MPI_COMM_WORLD);
  MTEST_MPI(MPI_Win_sync(t->win));
  MTEST_MPI(MPI_Win_unlock_all(t->win));
  MPI_Type_free(&every3);
}

static void check_round(dyn_test *t, const int64_t *got) {
  int prev = (mtest.rank + mtest.size - 1) % mtest.size;
  for (int i = 0; i < t->nreg; i++) {
    const int64_t *w = (const int64_t *)t->mine[i].base;
    int words = t->mine[i].size / 8;
    MTEST_EQ(w[0], mtest.size, "SUMs into word 0 of a region");
    if (words > 2)
      MTEST_EQ(w[words - 1], pattern(mtest.rank, prev, i, t->gen, words - 1), "put into a region's last word");
    if (words >= 8) {
      MTEST_EQ(w[2], pattern(mtest.rank, prev, i, t->gen, 2), "vector put, word 2");
      MTEST_EQ(w[5], pattern(mtest.rank, prev, i, t->gen, 5), "vector put, word 5");
      MTEST_EQ(w[3], pattern(mtest.rank, mtest.rank, i, t->gen, 3), "word 3 between the vector's words");
    }
    if (t->size[prev * t->nreg + i] >= 16)
      MTEST_EQ(got[i], pattern(prev, prev, i, t->gen, 1), "get from a region's word 1");
  }
}

int main(int argc, char **argv) {
  mtest_init(&argc, &argv, MPI_THREAD_SINGLE);
  dyn_test t = {0};
  t.nreg = (int)mtest_arg_long(argc, argv, "--regions", 128);
  int generations = (int)mtest_arg_long(argc, argv, "--generations", 3);
  t.mine = calloc((size_t)t.nreg, sizeof *t.mine);
  t.addr = calloc((size_t)t.nreg * (size_t)mtest.size, sizeof *t.addr);
  t.size = calloc((size_t)t.nreg * (size_t)mtest.size, sizeof *t.size);
  int64_t *got = calloc((size_t)t.nreg, sizeof *got), *puts = calloc(3 * (size_t)t.nreg, sizeof *puts);
  MTEST_ASSERT(t.mine && t.addr && t.size && got && puts, "calloc");
  MTEST_MPI(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &t.win));
  for (int i = 0; i < t.nreg; i++)
    attach(&t, i);

  for (t.gen = 0; t.gen < generations; t.gen++) {
    if (t.gen > 0)  /* replace every other region; allocate first so addresses change */
      for (int i = t.gen % 2; i < t.nreg; i += 2) {
        region old = t.mine[i];
        attach(&t, i);
        region fresh = t.mine[i];
        t.mine[i] = old;
        detach(&t, i);
        t.mine[i] = fresh;
      }
    /* Regions kept from the last generation restart from a clean state. */
    for (int i = 0; i < t.nreg; i++) {
      int64_t *w = (int64_t *)t.mine[i].base;
      for (int k = 0; k < t.mine[i].size / 8; k++)
        w[k] = k ? pattern(mtest.rank, mtest.rank, i, t.gen, k) : 0;
    }
    publish(&t);
    access_round(&t, got, puts);
    check_round(&t, got);
    MPI_Barrier(MPI_COMM_WORLD);
  }

  for (int i = 0; i < t.nreg; i++)
    detach(&t, i);
  MTEST_MPI(MPI_Win_free(&t.win));
  free(t.mine);
  free(t.addr);
  free(t.size);
  free(got);
  free(puts);
  return mtest_finish();
}
