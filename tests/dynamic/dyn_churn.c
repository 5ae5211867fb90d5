/* A dynamic window whose regions come and go for the whole run, inside one
 * lock_all epoch (as a code that reallocates its arrays does): each round
 * every rank attaches a fresh heap region, the ranks trade its address, each
 * puts into its right neighbour's region and checks what its left one put,
 * and the region is detached and freed.  What an origin keeps of the regions
 * it reached (a mapping of the owner's pages on a node, a network key across
 * nodes) must not grow with the rounds: after them, this process maps no more
 * of its peers' window memory than a few regions' worth.
 *
 *   dyn_churn [--rounds N] */
#include "mtest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How many mappings of Remora's window memory this process has. */
static int window_mappings(void) {
  FILE *f = fopen("/proc/self/maps", "r");
  MTEST_ASSERT(f != NULL, "cannot read /proc/self/maps");
  char line[512];
  int n = 0;
  while (fgets(line, sizeof line, f))
    n += strstr(line, "remora-window") != NULL;
  fclose(f);
  return n;
}

int main(int argc, char **argv) {
  mtest_init(&argc, &argv, MPI_THREAD_SINGLE);
  int rounds = (int)mtest_arg_long(argc, argv, "--rounds", 600);
  MTEST_ASSERT(mtest.remora, "this test checks what Remora keeps of detached regions: run it through remora-run");
  int to = (mtest.rank + 1) % mtest.size, from = (mtest.rank + mtest.size - 1) % mtest.size;
  MPI_Aint *addr = malloc(sizeof(MPI_Aint) * (size_t)mtest.size);
  MPI_Win win;
  MTEST_MPI(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  MTEST_MPI(MPI_Win_lock_all(0, win));
  int wrong = 0;
  for (int k = 0; k < rounds; k++) {
    size_t len = 64 + (size_t)(k % 7) * 1000; /* heap memory of changing sizes: new addresses */
    long *mem = calloc(1, len);
    MTEST_ASSERT(mem != NULL, "calloc");
    MTEST_MPI(MPI_Win_attach(win, mem, (MPI_Aint)len));
    MPI_Aint mine;
    MPI_Get_address(mem, &mine);
    MPI_Allgather(&mine, 1, MPI_AINT, addr, 1, MPI_AINT, MPI_COMM_WORLD);
    long v = 1000L * k + mtest.rank;
    MTEST_MPI(MPI_Put(&v, 1, MPI_LONG, to, addr[to] + (MPI_Aint)(len - sizeof v), 1, MPI_LONG, win));
    MTEST_MPI(MPI_Win_flush(to, win));
    MPI_Barrier(MPI_COMM_WORLD);
    MTEST_MPI(MPI_Win_sync(win));
    wrong += mem[len / sizeof v - 1] != 1000L * k + from;
    MPI_Barrier(MPI_COMM_WORLD); /* nobody reaches the region any more */
    MTEST_MPI(MPI_Win_detach(win, mem));
    free(mem);
  }
  MTEST_CHECK(wrong == 0, "%d rounds whose put from rank %d did not land", wrong, from);
  int kept = window_mappings();
  MTEST_CHECK(kept <= 4, "after %d rounds this process still maps %d pieces of its peers' window memory", rounds, kept);
  MTEST_MPI(MPI_Win_unlock_all(win));
  MTEST_MPI(MPI_Win_free(&win));
  MTEST_EQ(window_mappings(), 0, "window memory mapped after MPI_Win_free");
  free(addr);
  return mtest_finish();
}
