/* MPI_Win_shared_query on windows of every flavour (MPI-4.0).
 *
 * MPI-4.0 lets MPI_Win_shared_query ask windows of MPI_Win_allocate and
 * MPI_Win_create too: a rank whose memory this process can load and store
 * gives its base, size and displacement unit; another gives size 0 and a NULL
 * base; a dynamic window is MPI_ERR_RMA_FLAVOR.  Both hosts here still follow
 * MPI-3.1 and refuse every window but MPI_Win_allocate_shared's: over a host
 * alone that refusal (MPI_ERR_RMA_FLAVOR) is what the test expects of them.
 *
 * Each rank's window has its own size and displacement unit.  Every rank
 * queries every rank and MPI_PROC_NULL, reads each reachable rank's pattern
 * through the pointer, and stores its mark into a byte of each; the owners
 * check the marks of exactly the ranks that said they reach them.  Through
 * Remora the own memory is always reachable, and on MPI_Win_allocate windows
 * and windows on MPI_Alloc_mem memory so is every rank of the node
 * (MPI_Comm_split_type MPI_COMM_TYPE_SHARED): that is where Remora maps it.
 *
 *   shared_query */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

enum { MAXRANKS = 64 };
enum kind { ALLOCATE, CREATE_MALLOC, CREATE_ALLOC_MEM, SHARED, DYNAMIC, NKINDS };
static const char *kind_name[] = {"MPI_Win_allocate", "MPI_Win_create (malloc)", "MPI_Win_create (MPI_Alloc_mem)",
                                  "MPI_Win_allocate_shared", "MPI_Win_create_dynamic"};

static MPI_Aint size_of(int rank) { return 64 + 8 * (MPI_Aint)rank; }
static int unit_of(int rank) { return 1 + rank % 4; }
static unsigned char pattern(int rank, MPI_Aint i) { return (unsigned char)(rank * 29 + i * 7 + 3); }
/* byte MAXRANKS + r of a window holds r's mark: beyond every pattern byte read */
static unsigned char mark(int rank) { return (unsigned char)(0xa0 + rank); }

static int node_peer(MPI_Comm node, int rank) {
  MPI_Group world_g, node_g;
  MPI_Comm_group(MPI_COMM_WORLD, &world_g);
  MPI_Comm_group(node, &node_g);
  int r;
  MPI_Group_translate_ranks(world_g, 1, &rank, node_g, &r);
  MPI_Group_free(&world_g);
  MPI_Group_free(&node_g);
  return r != MPI_UNDEFINED;
}

static void one_kind(enum kind k, MPI_Comm node) {
  /* the shared window spans the node, the others every rank */
  MPI_Comm wcomm = k == SHARED ? node : MPI_COMM_WORLD;
  int me, wn;
  MPI_Comm_rank(wcomm, &me);
  MPI_Comm_size(wcomm, &wn);
  MPI_Aint mysize = size_of(me) + MAXRANKS + MAXRANKS; /* pattern, then the marks */
  unsigned char *mem = NULL;
  MPI_Win win;
  mtest_set_context("%s", kind_name[k]);
  if (k == ALLOCATE)
    MTEST_MPI(MPI_Win_allocate(mysize, unit_of(me), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
  else if (k == SHARED)
    MTEST_MPI(MPI_Win_allocate_shared(mysize, unit_of(me), MPI_INFO_NULL, node, &mem, &win));
  else if (k == CREATE_ALLOC_MEM) {
    MTEST_MPI(MPI_Alloc_mem(mysize, MPI_INFO_NULL, &mem));
    MTEST_MPI(MPI_Win_create(mem, mysize, unit_of(me), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  } else if (k == CREATE_MALLOC) {
    mem = malloc((size_t)mysize);
    MTEST_MPI(MPI_Win_create(mem, mysize, unit_of(me), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  } else {
    MTEST_MPI(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  }
  MTEST_MPI(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
  if (mem) {
    for (MPI_Aint i = 0; i < mysize; i++)
      mem[i] = i < size_of(me) ? pattern(me, i) : 0;
  }
  MTEST_MPI(MPI_Win_lock_all(MPI_MODE_NOCHECK, win));
  MTEST_MPI(MPI_Win_sync(win));
  MPI_Barrier(wcomm);
  MTEST_MPI(MPI_Win_sync(win));

  MPI_Aint qsize;
  int qunit;
  unsigned char *q;
  if (k == DYNAMIC) {
    int rc = MPI_Win_shared_query(win, 0, &qsize, &qunit, &q);
    MTEST_EXPECT_ERR(rc, MPI_ERR_RMA_FLAVOR, "MPI_Win_shared_query on a dynamic window");
    goto done;
  }
  uint64_t reach = 0; /* bit r: I can load and store rank r's memory */
  int refused = 0;
  for (int r = 0; r < wn; r++) {
    int rc = MPI_Win_shared_query(win, r, &qsize, &qunit, &q);
    if (rc != MPI_SUCCESS && k != SHARED && !mtest.remora) {
      /* MPI-3.1 hosts */
      MTEST_EXPECT_ERR(rc, MPI_ERR_RMA_FLAVOR, "MPI_Win_shared_query on a window that is not shared (MPI-3.1)");
      refused = 1;
      break;
    }
    if (rc != MPI_SUCCESS) {
      mtest_fail_rc(__FILE__, __LINE__, "MPI_Win_shared_query", rc);
      continue;
    }
    MTEST_EQ(qunit, unit_of(r), "the displacement unit of a queried rank");
    if (q == NULL) {
      MTEST_EQ(qsize, 0, "the size of a rank whose memory is not here");
      continue;
    }
    reach |= 1ull << r;
    MTEST_EQ(qsize, size_of(r) + 2 * MAXRANKS, "the size of a queried rank");
    MPI_Aint bad = -1;
    for (MPI_Aint i = 0; i < size_of(r) && bad < 0; i++)
      if (q[i] != pattern(r, i))
        bad = i;
    MTEST_CHECK(bad < 0, "rank %d's memory through the queried pointer differs at byte %ld", r, (long)bad);
    q[size_of(r) + MAXRANKS + me] = mark(me);
  }
  if (!refused) {
    int accessible_self = (reach >> me) & 1;
    if (mtest.remora || k == SHARED)
      MTEST_CHECK(accessible_self, "my own memory is not reachable through MPI_Win_shared_query");
    if (mtest.remora && (k == ALLOCATE || k == CREATE_ALLOC_MEM || k == SHARED))
      for (int r = 0; r < wn; r++)
        if (k == SHARED || node_peer(node, r))
          MTEST_CHECK((reach >> r) & 1, "rank %d shares my node, but its memory is not reachable", r);
    /* MPI_PROC_NULL: the lowest rank reachable with memory */
    int lowest = -1;
    for (int r = 0; r < wn && lowest < 0; r++)
      if ((reach >> r) & 1)
        lowest = r;
    unsigned char *q0 = NULL;
    MTEST_MPI(MPI_Win_shared_query(win, MPI_PROC_NULL, &qsize, &qunit, &q));
    if (lowest >= 0) {
      MPI_Aint s0;
      int u0;
      MTEST_MPI(MPI_Win_shared_query(win, lowest, &s0, &u0, &q0));
      MTEST_CHECK(q == q0 && qsize == s0 && qunit == u0, "MPI_PROC_NULL is not the lowest reachable rank %d", lowest);
    } else {
      MTEST_CHECK(q == NULL && qsize == 0, "MPI_PROC_NULL found memory where no rank has any");
    }
  }
  {
    /* each owner: the marks of exactly the ranks that reach it */
    uint64_t all[MAXRANKS];
    MPI_Allgather(&reach, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, wcomm);
    MTEST_MPI(MPI_Win_sync(win));
    MPI_Barrier(wcomm);
    MTEST_MPI(MPI_Win_sync(win));
    for (int r = 0; r < wn; r++) {
      unsigned char want = (all[r] >> me) & 1 ? mark(r) : 0;
      MTEST_EQ(mem[size_of(me) + MAXRANKS + r], want, "a mark stored through a queried pointer");
    }
  }
done:
  MTEST_MPI(MPI_Win_unlock_all(win));
  MTEST_MPI(MPI_Win_free(&win));
  if (k == CREATE_ALLOC_MEM)
    MPI_Free_mem(mem);
  else if (k == CREATE_MALLOC)
    free(mem);
}

int main(int argc, char **argv) {
  mtest_init(&argc, &argv, MPI_THREAD_SINGLE);
  MTEST_ASSERT(mtest.size <= MAXRANKS, "at most %d ranks", MAXRANKS);
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, mtest.rank, MPI_INFO_NULL, &node);
  for (int k = 0; k < NKINDS; k++)
    one_kind((enum kind)k, node);
  MPI_Comm_free(&node);
  return mtest_finish();
}
