/* A distributed linked list built with MPI_Compare_and_swap (the idea of
 * MPICH's linked_list test, written here): every rank appends elements it
 * allocated with MPI_Alloc_mem and attached to a dynamic window; the list is
 * then traversed and every element must be on it exactly once, each rank's
 * elements in the order it appended them.
 *
 * A list pointer is one int64: (rank + 1) << 48 | address (0 = end of list),
 * the address being the element's MPI_Get_address, its displacement in the
 * dynamic window.  Appending: walk from the last known element with
 * MPI_Fetch_and_op(NO_OP) reads of "next"; at the end, MPI_Compare_and_swap
 * "next" from 0 to my element; if another rank won, go on from its element.
 * Only CAS and NO_OP touch a "next" word (same_op_no_op).
 *
 *   linked_list [--elements N] */
#include "mtest.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
  int64_t next;
  int64_t value;  /* rank << 32 | sequence number */
} element;

enum { ADDR_BITS = 48 };

typedef struct {
  MPI_Win win;
  element **mine;  /* my elements, each its own MPI_Alloc_mem region */
  int n;
  int64_t head;    /* pointer to the sentinel at rank 0 */
} list;

static int64_t pointer(int rank, MPI_Aint addr) {
  MTEST_ASSERT(addr > 0 && (uint64_t)addr >> ADDR_BITS == 0, "address %#lx does not fit %d bits",
             (unsigned long)addr, ADDR_BITS);
  return (int64_t)(rank + 1) << ADDR_BITS | (int64_t)addr;
}
static int ptr_rank(int64_t p) { return (int)(p >> ADDR_BITS) - 1; }
static MPI_Aint ptr_addr(int64_t p) { return (MPI_Aint)(p & (((int64_t)1 << ADDR_BITS) - 1)); }
static MPI_Aint next_disp(int64_t p) { return ptr_addr(p) + (MPI_Aint)offsetof(element, next); }

static element *new_element(list *l, int64_t value) {
  element *e;
  MTEST_MPI(MPI_Alloc_mem(sizeof *e, MPI_INFO_NULL, &e));
  e->next = 0;
  e->value = value;
  MTEST_MPI(MPI_Win_attach(l->win, e, sizeof *e));
  return e;
}

static int64_t read_next(list *l, int64_t at) {
  int64_t zero = 0, res = -1;
  MTEST_MPI(MPI_Fetch_and_op(&zero, &res, MPI_INT64_T, ptr_rank(at), next_disp(at), MPI_NO_OP, l->win));
  MTEST_MPI(MPI_Win_flush(ptr_rank(at), l->win));
  return res;
}

/* Appends my element e; `tail` is where the walk starts and ends. */
static void append(list *l, element *e, int64_t *tail) {
  MPI_Aint addr;
  MPI_Get_address(e, &addr);
  int64_t me = pointer(mtest.rank, addr), nil = 0;
  /* The element's fields must be public before anyone can reach it. */
  MTEST_MPI(MPI_Win_sync(l->win));
  for (int64_t at = *tail;;) {
    int64_t next = read_next(l, at);
    if (next == 0) {
      int64_t old = -1;
      MTEST_MPI(MPI_Compare_and_swap(&me, &nil, &old, MPI_INT64_T, ptr_rank(at), next_disp(at), l->win));
      MTEST_MPI(MPI_Win_flush(ptr_rank(at), l->win));
      if (old == 0) {
        *tail = me;
        return;
      }
      next = old;
    }
    MTEST_ASSERT(ptr_rank(next) >= 0 && ptr_rank(next) < mtest.size, "corrupt pointer %#llx",
               (unsigned long long)next);
    at = next;
  }
}

/* Walks the whole list (nobody writes any more) and checks it. */
static void traverse(list *l) {
  int64_t *last_seq = malloc(sizeof(int64_t) * (size_t)mtest.size);
  for (int r = 0; r < mtest.size; r++)
    last_seq[r] = -1;
  long count = 0, limit = (long)mtest.size * l->n;
  for (int64_t at = read_next(l, l->head); at != 0 && count <= limit; count++) {
    element e;
    MTEST_MPI(MPI_Get(&e, sizeof e, MPI_BYTE, ptr_rank(at), ptr_addr(at), sizeof e, MPI_BYTE, l->win));
    MTEST_MPI(MPI_Win_flush(ptr_rank(at), l->win));
    int owner = (int)(e.value >> 32);
    int64_t seq = e.value & 0xffffffff;
    MTEST_CHECK(owner == ptr_rank(at), "element at rank %d says it is rank %d's", ptr_rank(at), owner);
    if (owner >= 0 && owner < mtest.size) {
      MTEST_CHECK(seq == last_seq[owner] + 1, "rank %d's element %lld follows its element %lld",
                owner, (long long)seq, (long long)last_seq[owner]);
      last_seq[owner] = seq;
    }
    at = e.next;
  }
  MTEST_EQ(count, limit, "elements on the list");
  for (int r = 0; r < mtest.size; r++)
    MTEST_EQ(last_seq[r], l->n - 1, "last sequence number of a rank on the list");
  free(last_seq);
}

int main(int argc, char **argv) {
  mtest_init(&argc, &argv, MPI_THREAD_SINGLE);
  list l = {0};
  l.n = (int)mtest_arg_long(argc, argv, "--elements", 20);
  l.mine = calloc((size_t)l.n + 1, sizeof *l.mine);
  MTEST_MPI(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &l.win));

  /* The sentinel: rank 0's element -1, never on the counted list. */
  element *sentinel = mtest.rank == 0 ? new_element(&l, -1) : NULL;
  MPI_Aint head_addr = 0;
  if (sentinel)
    MPI_Get_address(sentinel, &head_addr);
  MPI_Bcast(&head_addr, 1, MPI_AINT, 0, MPI_COMM_WORLD);
  l.head = pointer(0, head_addr);

  MTEST_MPI(MPI_Win_lock_all(0, l.win));
  int64_t tail = l.head;
  for (int i = 0; i < l.n; i++) {
    l.mine[i] = new_element(&l, (int64_t)mtest.rank << 32 | i);
    append(&l, l.mine[i], &tail);
  }
  MTEST_MPI(MPI_Win_flush_all(l.win));
  MPI_Barrier(MPI_COMM_WORLD);
  traverse(&l);
  MTEST_MPI(MPI_Win_unlock_all(l.win));
  MPI_Barrier(MPI_COMM_WORLD);

  for (int i = 0; i < l.n; i++) {
    MTEST_MPI(MPI_Win_detach(l.win, l.mine[i]));
    MTEST_MPI(MPI_Free_mem(l.mine[i]));
  }
  if (sentinel) {
    MTEST_MPI(MPI_Win_detach(l.win, sentinel));
    MTEST_MPI(MPI_Free_mem(sentinel));
  }
  MTEST_MPI(MPI_Win_free(&l.win));
  free(l.mine);
  return mtest_finish();
}
