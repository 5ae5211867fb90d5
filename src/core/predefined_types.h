/* Every predefined MPI datatype Remora knows, once, as an X-macro table:
 *   REMORA_PREDEFINED_TYPES(X)  expands X(t_le, handle, c_type, class, is_signed)
 * for each.  The type table (handle -> size/class) and the reduction kernels
 * are generated from it.  Handles the host defines as MPI_DATATYPE_NULL (an
 * optional type it lacks) and aliases of an earlier handle are skipped at
 * start-up. */
#ifndef REMORA_CORE_PREDEFINED_TYPES_H
#define REMORA_CORE_PREDEFINED_TYPES_H

#include <complex.h>
#include <mpi.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <wchar.h>

/* C layouts of the value-index pair types (MPI standard, MAXLOC/MINLOC). */
typedef struct { float v; int i; } remora_float_int;
typedef struct { double v; int i; } remora_double_int;
typedef struct { long v; int i; } remora_long_int;
typedef struct { int v; int i; } remora_2int;
typedef struct { short v; int i; } remora_short_int;
typedef struct { long double v; int i; } remora_long_double_int;
typedef struct { float v; float i; } remora_2real;
typedef struct { double v; double i; } remora_2double;

typedef float _Complex remora_cfloat;
typedef double _Complex remora_cdouble;
typedef long double _Complex remora_cldouble;
typedef signed char remora_schar;
typedef unsigned char remora_uchar;
typedef unsigned short remora_ushort;
typedef unsigned long remora_ulong;
typedef long long remora_llong;
typedef unsigned long long remora_ullong;
typedef long double remora_ldouble;
/* MPI_PACKED carries no arithmetic; a byte stands in for its element. */
typedef unsigned char remora_packed;

/* MPI_CHAR, MPI_WCHAR and MPI_CHARACTER are in none of the standard's groups
 * for reductions, and MPI_BYTE only in the bitwise one.  Both hosts compute
 * more, and programs rely on it (the OSU benchmarks accumulate MPI_SUM on
 * MPI_CHAR), so Remora computes what its host computes (tests/accumulate/
 * acc_as_host.c; probed on Open MPI 4.1.4 and MPICH 4.0.2):
 *   Open MPI: MPI_CHAR as a signed byte, MPI_CHARACTER and MPI_BYTE as
 *             unsigned bytes, every integer op (C integer group);
 *   MPICH:    MPI_CHAR and MPI_CHARACTER as signed bytes, every integer op;
 *             MPI_BYTE bitwise only.
 * MPI_WCHAR keeps MPI_REPLACE and MPI_NO_OP only: Open MPI crashes on any
 * other op, MPICH returns success and leaves the target unchanged. */
#if defined(OPEN_MPI)
#define REMORA_HOST_CHAR_ROWS(X)                                                     \
    X(t_char, MPI_CHAR, remora_schar, REMORA_TC_INT, 1)                            \
    X(t_character, MPI_CHARACTER, remora_uchar, REMORA_TC_INT, 0)                  \
    X(t_byte, MPI_BYTE, remora_uchar, REMORA_TC_INT, 0)
#else
#define REMORA_HOST_CHAR_ROWS(X)                                                     \
    X(t_char, MPI_CHAR, remora_schar, REMORA_TC_INT, 1)                            \
    X(t_character, MPI_CHARACTER, remora_schar, REMORA_TC_INT, 1)                  \
    X(t_byte, MPI_BYTE, remora_uchar, REMORA_TC_BYTE, 0)
#endif

#define REMORA_PREDEFINED_TYPES(X)                                                   \
    REMORA_HOST_CHAR_ROWS(X)                                                       \
    X(t_signed_char, MPI_SIGNED_CHAR, remora_schar, REMORA_TC_INT, 1)            \
    X(t_unsigned_char, MPI_UNSIGNED_CHAR, remora_uchar, REMORA_TC_INT, 0)        \
    X(t_wchar, MPI_WCHAR, wchar_t, REMORA_TC_OTHER, 1)                             \
    X(t_short, MPI_SHORT, short, REMORA_TC_INT, 1)                               \
    X(t_unsigned_short, MPI_UNSIGNED_SHORT, remora_ushort, REMORA_TC_INT, 0)     \
    X(t_int, MPI_INT, int, REMORA_TC_INT, 1)                                     \
    X(t_unsigned, MPI_UNSIGNED, unsigned, REMORA_TC_INT, 0)                      \
    X(t_long, MPI_LONG, long, REMORA_TC_INT, 1)                                  \
    X(t_unsigned_long, MPI_UNSIGNED_LONG, remora_ulong, REMORA_TC_INT, 0)        \
    X(t_long_long_int, MPI_LONG_LONG_INT, remora_llong, REMORA_TC_INT, 1)        \
    X(t_long_long, MPI_LONG_LONG, remora_llong, REMORA_TC_INT, 1)                \
    X(t_unsigned_long_long, MPI_UNSIGNED_LONG_LONG, remora_ullong, REMORA_TC_INT, 0) \
    X(t_int8_t, MPI_INT8_T, int8_t, REMORA_TC_INT, 1)                            \
    X(t_int16_t, MPI_INT16_T, int16_t, REMORA_TC_INT, 1)                         \
    X(t_int32_t, MPI_INT32_T, int32_t, REMORA_TC_INT, 1)                         \
    X(t_int64_t, MPI_INT64_T, int64_t, REMORA_TC_INT, 1)                         \
    X(t_uint8_t, MPI_UINT8_T, uint8_t, REMORA_TC_INT, 0)                         \
    X(t_uint16_t, MPI_UINT16_T, uint16_t, REMORA_TC_INT, 0)                      \
    X(t_uint32_t, MPI_UINT32_T, uint32_t, REMORA_TC_INT, 0)                      \
    X(t_uint64_t, MPI_UINT64_T, uint64_t, REMORA_TC_INT, 0)                      \
    X(t_aint, MPI_AINT, MPI_Aint, REMORA_TC_INT, 1)                              \
    X(t_offset, MPI_OFFSET, MPI_Offset, REMORA_TC_INT, 1)                        \
    X(t_count, MPI_COUNT, MPI_Count, REMORA_TC_INT, 1)                           \
    X(t_integer, MPI_INTEGER, int, REMORA_TC_INT, 1)                             \
    X(t_integer1, MPI_INTEGER1, int8_t, REMORA_TC_INT, 1)                        \
    X(t_integer2, MPI_INTEGER2, int16_t, REMORA_TC_INT, 1)                       \
    X(t_integer4, MPI_INTEGER4, int32_t, REMORA_TC_INT, 1)                       \
    X(t_integer8, MPI_INTEGER8, int64_t, REMORA_TC_INT, 1)                       \
    X(t_float, MPI_FLOAT, float, REMORA_TC_FLOAT, 1)                             \
    X(t_double, MPI_DOUBLE, double, REMORA_TC_FLOAT, 1)                          \
    X(t_long_double, MPI_LONG_DOUBLE, remora_ldouble, REMORA_TC_FLOAT, 1)        \
    X(t_real, MPI_REAL, float, REMORA_TC_FLOAT, 1)                               \
    X(t_double_precision, MPI_DOUBLE_PRECISION, double, REMORA_TC_FLOAT, 1)      \
    X(t_real4, MPI_REAL4, float, REMORA_TC_FLOAT, 1)                             \
    X(t_real8, MPI_REAL8, double, REMORA_TC_FLOAT, 1)                            \
    X(t_c_float_complex, MPI_C_FLOAT_COMPLEX, remora_cfloat, REMORA_TC_COMPLEX, 1) \
    X(t_c_complex, MPI_C_COMPLEX, remora_cfloat, REMORA_TC_COMPLEX, 1)           \
    X(t_c_double_complex, MPI_C_DOUBLE_COMPLEX, remora_cdouble, REMORA_TC_COMPLEX, 1) \
    X(t_c_long_double_complex, MPI_C_LONG_DOUBLE_COMPLEX, remora_cldouble, REMORA_TC_COMPLEX, 1) \
    X(t_complex, MPI_COMPLEX, remora_cfloat, REMORA_TC_COMPLEX, 1)               \
    X(t_double_complex, MPI_DOUBLE_COMPLEX, remora_cdouble, REMORA_TC_COMPLEX, 1) \
    X(t_cxx_float_complex, MPI_CXX_FLOAT_COMPLEX, remora_cfloat, REMORA_TC_COMPLEX, 1) \
    X(t_cxx_double_complex, MPI_CXX_DOUBLE_COMPLEX, remora_cdouble, REMORA_TC_COMPLEX, 1) \
    X(t_cxx_long_double_complex, MPI_CXX_LONG_DOUBLE_COMPLEX, remora_cldouble, REMORA_TC_COMPLEX, 1) \
    X(t_c_bool, MPI_C_BOOL, bool, REMORA_TC_LOGICAL, 0)                          \
    X(t_cxx_bool, MPI_CXX_BOOL, bool, REMORA_TC_LOGICAL, 0)                      \
    X(t_logical, MPI_LOGICAL, int, REMORA_TC_LOGICAL, 0)                         \
    X(t_packed, MPI_PACKED, remora_packed, REMORA_TC_OTHER, 0)                   \
    X(t_float_int, MPI_FLOAT_INT, remora_float_int, REMORA_TC_PAIR, 1)           \
    X(t_double_int, MPI_DOUBLE_INT, remora_double_int, REMORA_TC_PAIR, 1)        \
    X(t_long_int, MPI_LONG_INT, remora_long_int, REMORA_TC_PAIR, 1)              \
    X(t_2int, MPI_2INT, remora_2int, REMORA_TC_PAIR, 1)                          \
    X(t_short_int, MPI_SHORT_INT, remora_short_int, REMORA_TC_PAIR, 1)           \
    X(t_long_double_int, MPI_LONG_DOUBLE_INT, remora_long_double_int, REMORA_TC_PAIR, 1) \
    X(t_2integer, MPI_2INTEGER, remora_2int, REMORA_TC_PAIR, 1)                  \
    X(t_2real, MPI_2REAL, remora_2real, REMORA_TC_PAIR, 1)                       \
    X(t_2double_precision, MPI_2DOUBLE_PRECISION, remora_2double, REMORA_TC_PAIR, 1)

/* A type's id is its position in the table. */
enum { REMORA_PREDEFINED_TYPE_COUNT = 0
#define REMORA_COUNT_ONE(id, h, ct, cl, sg) +1
    REMORA_PREDEFINED_TYPES(REMORA_COUNT_ONE)
#undef REMORA_COUNT_ONE
};

#endif
