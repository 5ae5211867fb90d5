/* mtest_types: op x type table and serial reference (see mtest_types.h).
 * Every per-type function is generated from one table, MTEST_TYPE_TABLE, by
 * per-category macros: APPLY_<cat> (the reference), GEN_<cat>, EQ_<cat>,
 * SHOW_<cat>, and the allowed-op mask ALLOW_<cat>. */
#include "mtest_types.h"

#include <complex.h>
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

/* The C layouts of the MPI pair types (MPI-3.1 §5.9.4). */
typedef struct { float v; int i; } pair_float_int;
typedef struct { double v; int i; } pair_double_int;
typedef struct { long v; int i; } pair_long_int;
typedef struct { int v; int i; } pair_2int;
typedef struct { short v; int i; } pair_short_int;
typedef struct { long double v; int i; } pair_long_double_int;

/* X(tag, C type, MPI handle, category) */
#define MTEST_TYPE_TABLE(X) \
  X(signed_char, signed char, MPI_SIGNED_CHAR, CINT) \
  X(unsigned_char, unsigned char, MPI_UNSIGNED_CHAR, CINT) \
  X(short, short, MPI_SHORT, CINT) \
  X(unsigned_short, unsigned short, MPI_UNSIGNED_SHORT, CINT) \
  X(int, int, MPI_INT, CINT) \
  X(unsigned, unsigned, MPI_UNSIGNED, CINT) \
  X(long, long, MPI_LONG, CINT) \
  X(unsigned_long, unsigned long, MPI_UNSIGNED_LONG, CINT) \
  X(long_long_int, long long, MPI_LONG_LONG_INT, CINT) \
  X(long_long, long long, MPI_LONG_LONG, CINT) \
  X(unsigned_long_long, unsigned long long, MPI_UNSIGNED_LONG_LONG, CINT) \
  X(int8, int8_t, MPI_INT8_T, CINT) \
  X(int16, int16_t, MPI_INT16_T, CINT) \
  X(int32, int32_t, MPI_INT32_T, CINT) \
  X(int64, int64_t, MPI_INT64_T, CINT) \
  X(uint8, uint8_t, MPI_UINT8_T, CINT) \
  X(uint16, uint16_t, MPI_UINT16_T, CINT) \
  X(uint32, uint32_t, MPI_UINT32_T, CINT) \
  X(uint64, uint64_t, MPI_UINT64_T, CINT) \
  X(aint, MPI_Aint, MPI_AINT, MULTI) \
  X(offset, MPI_Offset, MPI_OFFSET, MULTI) \
  X(count, MPI_Count, MPI_COUNT, MULTI) \
  X(integer, int, MPI_INTEGER, FINT) \
  X(float, float, MPI_FLOAT, FLT) \
  X(double, double, MPI_DOUBLE, FLT) \
  X(long_double, long double, MPI_LONG_DOUBLE, FLT) \
  X(real, float, MPI_REAL, FLT) \
  X(double_precision, double, MPI_DOUBLE_PRECISION, FLT) \
  X(c_complex, float _Complex, MPI_C_COMPLEX, CPLX) \
  X(c_float_complex, float _Complex, MPI_C_FLOAT_COMPLEX, CPLX) \
  X(c_double_complex, double _Complex, MPI_C_DOUBLE_COMPLEX, CPLX) \
  X(c_long_double_complex, long double _Complex, MPI_C_LONG_DOUBLE_COMPLEX, CPLX) \
  X(complex, float _Complex, MPI_COMPLEX, CPLX) \
  X(double_complex, double _Complex, MPI_DOUBLE_COMPLEX, CPLX) \
  X(c_bool, bool, MPI_C_BOOL, LOGIC) \
  X(logical, int, MPI_LOGICAL, LOGIC) \
  X(byte, unsigned char, MPI_BYTE, BYTE) \
  X(float_int, pair_float_int, MPI_FLOAT_INT, PAIR) \
  X(double_int, pair_double_int, MPI_DOUBLE_INT, PAIR) \
  X(long_int, pair_long_int, MPI_LONG_INT, PAIR) \
  X(2int, pair_2int, MPI_2INT, PAIR) \
  X(short_int, pair_short_int, MPI_SHORT_INT, PAIR) \
  X(long_double_int, pair_long_double_int, MPI_LONG_DOUBLE_INT, PAIR)

#define BIT(o) (1u << MTEST_OP_##o)
#define ALWAYS (BIT(REPLACE) | BIT(NO_OP))
#define ALLOW_CINT (ALWAYS | BIT(MIN) | BIT(MAX) | BIT(SUM) | BIT(PROD) | BIT(LAND) | BIT(LOR) | \
                    BIT(LXOR) | BIT(BAND) | BIT(BOR) | BIT(BXOR))
#define ALLOW_MULTI (ALWAYS | BIT(MIN) | BIT(MAX) | BIT(SUM) | BIT(PROD) | BIT(BAND) | BIT(BOR) | BIT(BXOR))
#define ALLOW_FINT ALLOW_MULTI
#define ALLOW_FLT (ALWAYS | BIT(MIN) | BIT(MAX) | BIT(SUM) | BIT(PROD))
#define ALLOW_CPLX (ALWAYS | BIT(SUM) | BIT(PROD))
#define ALLOW_LOGIC (ALWAYS | BIT(LAND) | BIT(LOR) | BIT(LXOR))
#define ALLOW_BYTE (ALWAYS | BIT(BAND) | BIT(BOR) | BIT(BXOR))
#define ALLOW_PAIR (ALWAYS | BIT(MAXLOC) | BIT(MINLOC))
#define CAS_CINT 1
#define CAS_MULTI 1
#define CAS_FINT 1
#define CAS_FLT 0
#define CAS_CPLX 0
#define CAS_LOGIC 1
#define CAS_BYTE 1
#define CAS_PAIR 0
#define FLOATING_CINT 0
#define FLOATING_MULTI 0
#define FLOATING_FINT 0
#define FLOATING_FLT 1
#define FLOATING_CPLX 1
#define FLOATING_LOGIC 0
#define FLOATING_BYTE 0
#define FLOATING_PAIR 0

/* ---- the serial reference: one element, a = a op b ---- */
#define CASES_INTEGER(T) \
  case MTEST_OP_SUM: *a = (T)(*a + *b); break; \
  case MTEST_OP_PROD: *a = (T)(*a * *b); break; \
  case MTEST_OP_MIN: if (*b < *a) { *a = *b; } break; \
  case MTEST_OP_MAX: if (*b > *a) { *a = *b; } break; \
  case MTEST_OP_LAND: *a = (T)(*a && *b); break; \
  case MTEST_OP_LOR: *a = (T)(*a || *b); break; \
  case MTEST_OP_LXOR: *a = (T)(!*a != !*b); break; \
  case MTEST_OP_BAND: *a = (T)(*a & *b); break; \
  case MTEST_OP_BOR: *a = (T)(*a | *b); break; \
  case MTEST_OP_BXOR: *a = (T)(*a ^ *b); break;
#define CASES_CINT(T) CASES_INTEGER(T)
#define CASES_MULTI(T) CASES_INTEGER(T)
#define CASES_FINT(T) CASES_INTEGER(T)
#define CASES_FLT(T) \
  case MTEST_OP_SUM: *a = *a + *b; break; \
  case MTEST_OP_PROD: *a = *a * *b; break; \
  case MTEST_OP_MIN: if (*b < *a) { *a = *b; } break; \
  case MTEST_OP_MAX: if (*b > *a) { *a = *b; } break;
#define CASES_CPLX(T) \
  case MTEST_OP_SUM: *a = *a + *b; break; \
  case MTEST_OP_PROD: *a = *a * *b; break;
#define CASES_LOGIC(T) \
  case MTEST_OP_LAND: *a = (T)(*a && *b); break; \
  case MTEST_OP_LOR: *a = (T)(*a || *b); break; \
  case MTEST_OP_LXOR: *a = (T)(!*a != !*b); break;
#define CASES_BYTE(T) \
  case MTEST_OP_BAND: *a = (T)(*a & *b); break; \
  case MTEST_OP_BOR: *a = (T)(*a | *b); break; \
  case MTEST_OP_BXOR: *a = (T)(*a ^ *b); break;
/* MAXLOC/MINLOC: the extreme value; on a tie, the smaller index. */
#define CASES_PAIR(T) \
  case MTEST_OP_MAXLOC: \
    if (b->v > a->v || (b->v == a->v && b->i < a->i)) { *a = *b; } break; \
  case MTEST_OP_MINLOC: \
    if (b->v < a->v || (b->v == a->v && b->i < a->i)) { *a = *b; } break;

/* ---- values: small, so no reference computation overflows a signed type ---- */
/* Spelled so that -Wtype-limits does not flag the unsigned instances. */
#define IS_SIGNED(T) (!((T)-1 > (T)0))
#define GEN_INTEGER(T) \
  *v = IS_SIGNED(T) ? (T)((int)(seed % 7u) - 3) : (T)(seed % 7u);
#define GEN_CINT(T) GEN_INTEGER(T)
#define GEN_MULTI(T) GEN_INTEGER(T)
#define GEN_FINT(T) GEN_INTEGER(T)
/* Exact values are multiples of 3/8: sums and pairwise products are exact.
 * Spread values 1.0..1.6 in steps of 0.1 round when combined. */
#define FLT_VALUE(s) (spread ? 1.0L + (long double)((s) % 7u) / 10.0L \
                             : (long double)((int)((s) % 9u) - 4) * 0.375L)
#define GEN_FLT(T) *v = (T)FLT_VALUE(seed);
#define GEN_CPLX(T) *v = (T)FLT_VALUE(seed) + (T)FLT_VALUE(seed / 9u) * (T)I;
#define GEN_LOGIC(T) *v = (T)((seed % 3u) != 0);
#define GEN_BYTE(T) *v = (T)(seed * 37u + 11u);
/* Few distinct values and indices, so ties (resolved by the index) happen. */
#define GEN_PAIR(T) v->v = (int)(seed % 3u) - 1; v->i = (int)((seed / 3u) % 5u);

/* ---- comparisons ---- */
#define EPS_OF(size) ((size) == sizeof(float) ? FLT_EPSILON \
                      : (size) == sizeof(double) ? DBL_EPSILON : LDBL_EPSILON)
static int close_enough(long double got, long double exp, double ulps, long double eps) {
  if (ulps <= 0)
    return got == exp;
  long double mag = fabsl(exp) > 1 ? fabsl(exp) : 1;
  return fabsl(got - exp) <= (long double)ulps * eps * mag;
}
#define EQ_CINT(T) return *g == *e;
#define EQ_MULTI(T) return *g == *e;
#define EQ_FINT(T) return *g == *e;
#define EQ_FLT(T) return close_enough(*g, *e, ulps, EPS_OF(sizeof(T)));
#define EQ_CPLX(T) \
  return close_enough(creall(*g), creall(*e), ulps, EPS_OF(sizeof(T) / 2)) && \
         close_enough(cimagl(*g), cimagl(*e), ulps, EPS_OF(sizeof(T) / 2));
/* A logical result is compared by truth value: MPI only promises true/false. */
#define EQ_LOGIC(T) return !*g == !*e;
#define EQ_BYTE(T) return *g == *e;
#define EQ_PAIR(T) return g->v == e->v && g->i == e->i;

#define SHOW_INTEGER(T) \
  if (IS_SIGNED(T)) snprintf(buf, n, "%lld", (long long)*v); \
  else snprintf(buf, n, "%llu", (unsigned long long)*v);
#define SHOW_CINT(T) SHOW_INTEGER(T)
#define SHOW_MULTI(T) SHOW_INTEGER(T)
#define SHOW_FINT(T) SHOW_INTEGER(T)
#define SHOW_FLT(T) snprintf(buf, n, "%.21Lg", (long double)*v);
#define SHOW_CPLX(T) snprintf(buf, n, "(%.21Lg,%.21Lg)", creall(*v), cimagl(*v));
#define SHOW_LOGIC(T) snprintf(buf, n, "%d", (int)*v);
#define SHOW_BYTE(T) snprintf(buf, n, "0x%02x", (unsigned)*v);
#define SHOW_PAIR(T) snprintf(buf, n, "(%.21Lg,%d)", (long double)v->v, v->i);

#define DEFINE_FUNCS(tag, T, M, cat) \
  static void apply_##tag(mtest_op op, void *inout, const void *in) { \
    T *a = inout; \
    const T *b = in; \
    switch (op) { \
      CASES_##cat(T) \
      case MTEST_OP_REPLACE: *a = *b; break; \
      case MTEST_OP_NO_OP: break; \
      default: fprintf(stderr, "mtest: op %s not defined on %s\n", mtest_op_name(op), #M); abort(); \
    } \
  } \
  static void gen_##tag(void *out, uint32_t seed, int spread) { \
    T *v = out; \
    (void)spread; \
    GEN_##cat(T) \
  } \
  static int eq_##tag(const void *got, const void *exp, double ulps) { \
    const T *g = got, *e = exp; \
    (void)ulps; \
    EQ_##cat(T) \
  } \
  static void show_##tag(char *buf, size_t n, const void *val) { \
    const T *v = val; \
    SHOW_##cat(T) \
  }
MTEST_TYPE_TABLE(DEFINE_FUNCS)

static mtest_type table[] = {
#define ENTRY(tag, T, M, cat) \
  {#M, MPI_DATATYPE_NULL, sizeof(T), ALLOW_##cat, CAS_##cat, FLOATING_##cat, \
   apply_##tag, gen_##tag, eq_##tag, show_##tag},
  MTEST_TYPE_TABLE(ENTRY)
#undef ENTRY
};

int mtest_types(const mtest_type **out) {
  /* MPI handles are not constant expressions in every MPI: set them here. */
  int k = 0;
#define HANDLE(tag, T, M, cat) table[k++].dt = (M);
  MTEST_TYPE_TABLE(HANDLE)
#undef HANDLE
  *out = table;
  return k;
}

MPI_Op mtest_op_handle(mtest_op op) {
  switch (op) {
#define OP_HANDLE(o) case MTEST_OP_##o: return MPI_##o;
    MTEST_OPS(OP_HANDLE)
#undef OP_HANDLE
  default: return MPI_OP_NULL;
  }
}

const char *mtest_op_name(mtest_op op) {
  static const char *names[] = {
#define OP_NAME(o) "MPI_" #o,
    MTEST_OPS(OP_NAME)
#undef OP_NAME
  };
  return op < MTEST_NOPS ? names[op] : "(no op)";
}
