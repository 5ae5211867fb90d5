/* mtest_types: the predefined operations and the predefined datatypes that
 * accumulates take, with a serial reference of every allowed (op, type) pair.
 *
 * Allowed pairs follow the reduction table of the MPI standard (MPI-3.1
 * §5.9.2, MPI-4.0 §6.9.2) plus MPI_REPLACE on every type and MPI_NO_OP on
 * every type (MPI_NO_OP only in MPI_Get_accumulate / MPI_Fetch_and_op):
 *   MIN MAX        C integer, Fortran integer, floating point, multi-language
 *   SUM PROD       C integer, Fortran integer, floating point, complex, multi-language
 *   LAND LOR LXOR  C integer, logical
 *   BAND BOR BXOR  C integer, Fortran integer, byte, multi-language
 *   MAXLOC MINLOC  the pair types
 * MPI_Compare_and_swap takes C integer, Fortran integer, logical,
 * multi-language and byte types (MPI-3.1 §11.3.4).
 * MPI_CHAR/MPI_WCHAR (text, not in any category) and the C++ types are not
 * listed: C tests cannot build C++ values portably. */
#ifndef MTEST_TYPES_H
#define MTEST_TYPES_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#define MTEST_OPS(X) \
  X(SUM) X(PROD) X(MIN) X(MAX) X(LAND) X(LOR) X(LXOR) X(BAND) X(BOR) X(BXOR) \
  X(MAXLOC) X(MINLOC) X(REPLACE) X(NO_OP)

typedef enum {
#define MTEST_OP_ENUM(o) MTEST_OP_##o,
  MTEST_OPS(MTEST_OP_ENUM)
#undef MTEST_OP_ENUM
  MTEST_NOPS
} mtest_op;

MPI_Op mtest_op_handle(mtest_op op);
const char *mtest_op_name(mtest_op op);

typedef struct mtest_type {
  const char *name;
  MPI_Datatype dt;
  size_t size;      /* sizeof the C type: the extent MPI must report */
  unsigned ops;     /* bit (1u << op) set when accumulates allow op on this type */
  int cas;          /* MPI_Compare_and_swap allows this type */
  int floating;     /* SUM/PROD round, so their result depends on the order */
  /* inout = inout op in, as one element at the target */
  void (*apply)(mtest_op op, void *inout, const void *in);
  /* A value from seed; "spread" values (many origins) round when summed. */
  void (*gen)(void *out, uint32_t seed, int spread);
  /* Equal, or within ulps units of the type's epsilon relative to the
   * expected magnitude (at least 1) when ulps > 0. */
  int (*eq)(const void *got, const void *exp, double ulps);
  void (*show)(char *buf, size_t n, const void *v);
} mtest_type;

/* The table (same order in every process); returns its length. */
int mtest_types(const mtest_type **table);
static inline int mtest_allows(const mtest_type *t, mtest_op op) { return (t->ops >> op) & 1u; }

/* A well-mixed seed from small coordinates. */
static inline uint32_t mtest_seed(uint32_t a, uint32_t b, uint32_t c, uint32_t d) {
  uint32_t h = 2166136261u;
  uint32_t v[4] = {a, b, c, d};
  for (int i = 0; i < 4; i++) {
    h = (h ^ v[i]) * 16777619u;
    h ^= h >> 13;
  }
  return h;
}

#endif
