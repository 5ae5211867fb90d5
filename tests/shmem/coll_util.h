/* What the team and collective tests share: the type lists (X-macros over
 * the spec's tables), the team shapes every collective runs on, and error
 * reporting. */
#ifndef COLL_UTIL_H
#define COLL_UTIL_H

#include <complex.h>
#include <shmem.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* the standard RMA types (broadcast, collect, fcollect, alltoall(s), max, min) */
#define RMA_TYPES(X)                                                                                               \
    X(float, float) X(double, double) X(longdouble, long double) X(char, char) X(schar, signed char)             \
    X(short, short) X(int, int) X(long, long) X(longlong, long long) X(uchar, unsigned char)                     \
    X(ushort, unsigned short) X(uint, unsigned int) X(ulong, unsigned long) X(ulonglong, unsigned long long)     \
    X(int8, int8_t) X(int16, int16_t) X(int32, int32_t) X(int64, int64_t) X(uint8, uint8_t) X(uint16, uint16_t) \
    X(uint32, uint32_t) X(uint64, uint64_t) X(size, size_t) X(ptrdiff, ptrdiff_t)
/* the integer types of the table */
#define INT_TYPES(X)                                                                                               \
    X(char, char) X(schar, signed char) X(short, short) X(int, int) X(long, long) X(longlong, long long)         \
    X(uchar, unsigned char) X(ushort, unsigned short) X(uint, unsigned int) X(ulong, unsigned long)              \
    X(ulonglong, unsigned long long) X(int8, int8_t) X(int16, int16_t) X(int32, int32_t) X(int64, int64_t)       \
    X(uint8, uint8_t) X(uint16, uint16_t) X(uint32, uint32_t) X(uint64, uint64_t) X(size, size_t)                \
    X(ptrdiff, ptrdiff_t)
/* and/or/xor */
#define BITWISE_TYPES(X)                                                                                           \
    X(uchar, unsigned char) X(ushort, unsigned short) X(uint, unsigned int) X(ulong, unsigned long)              \
    X(ulonglong, unsigned long long) X(int8, int8_t) X(int16, int16_t) X(int32, int32_t) X(int64, int64_t)       \
    X(uint8, uint8_t) X(uint16, uint16_t) X(uint32, uint32_t) X(uint64, uint64_t) X(size, size_t)
#define COMPLEX_TYPES(X) X(complexd, double _Complex) X(complexf, float _Complex)
/* sum, prod, sum_inscan, sum_exscan */
#define ARITH_TYPES(X) RMA_TYPES(X) COMPLEX_TYPES(X)

static int errors;
#define FAIL(...)                                                                                                  \
    do {                                                                                                           \
        if (errors++ < 20) {                                                                                       \
            fprintf(stderr, "PE %d: ", shmem_my_pe());                                                             \
            fprintf(stderr, __VA_ARGS__);                                                                          \
            fputc('\n', stderr);                                                                                   \
        }                                                                                                          \
    } while (0)
#define EXPECT(cond, ...)                                                                                          \
    do {                                                                                                           \
        if (!(cond))                                                                                               \
            FAIL(__VA_ARGS__);                                                                                     \
    } while (0)

/* The world number of PE i of team t. */
static inline int wpe(shmem_team_t t, int i) { return shmem_team_translate_pe(t, i, SHMEM_TEAM_WORLD); }

/* The shapes: every PE of the world makes every split (each split is
 * collective over its parent), so shape k is SHMEM_TEAM_INVALID on the PEs
 * outside it and the PEs run the shapes' collectives in the same order. */
#define MAX_SHAPES 24
struct shape {
    char name[48];
    shmem_team_t team;
    int made; /* by a split (destroy it) */
};

static inline void shape_add(struct shape *s, int *k, const char *name, shmem_team_t team, int made)
{
    snprintf(s[*k].name, sizeof s[*k].name, "%s", name);
    s[*k].team = team;
    s[*k].made = made;
    (*k)++;
}

static inline void shape_strided(struct shape *s, int *k, int start, int stride, int size)
{
    char name[48];
    shmem_team_t t;
    snprintf(name, sizeof name, "strided(%d,%d,%d)", start, stride, size);
    if (shmem_team_split_strided(SHMEM_TEAM_WORLD, start, stride, size, NULL, 0, &t) != 0)
        FAIL("%s: the split failed", name);
    shape_add(s, k, name, t, 1);
}

static inline void shape_2d(struct shape *s, int *k, shmem_team_t parent, const char *pname, int xrange)
{
    char name[48];
    shmem_team_t x, y;
    if (shmem_team_split_2d(parent, xrange, NULL, 0, &x, NULL, 0, &y) != 0)
        FAIL("2d(%s, %d): the split failed", pname, xrange);
    snprintf(name, sizeof name, "2d(%s,%d).x", pname, xrange);
    shape_add(s, k, name, x, 1);
    snprintf(name, sizeof name, "2d(%s,%d).y", pname, xrange);
    shape_add(s, k, name, y, 1);
}

/* The world, the node, strided by 2 and 3, reversed, by -2, the 2D splits
 * with xrange 2 and 3, a single PE (stride 0), a split of a split. */
static inline int make_shapes(struct shape *s)
{
    int n = shmem_n_pes(), k = 0;
    shape_add(s, &k, "WORLD", SHMEM_TEAM_WORLD, 0);
    shape_add(s, &k, "SHARED", SHMEM_TEAM_SHARED, 0);
    shape_strided(s, &k, 0, 2, (n + 1) / 2);
    if (n >= 2)
        shape_strided(s, &k, 1, 2, n / 2);
    shape_strided(s, &k, 0, 3, (n + 2) / 3);
    if (n >= 3)
        shape_strided(s, &k, 2, 3, n / 3);
    int reversed = k;
    shape_strided(s, &k, n - 1, -1, n);
    shape_strided(s, &k, n - 1, -2, (n + 1) / 2);
    shape_strided(s, &k, n / 2, 0, 1);
    shape_2d(s, &k, SHMEM_TEAM_WORLD, "WORLD", 2);
    shape_2d(s, &k, SHMEM_TEAM_WORLD, "WORLD", 3);
    /* 2D on the reversed team (every PE is in it): a split of a split */
    shape_2d(s, &k, s[reversed].team, "reversed", 3);
    return k;
}

static inline void free_shapes(struct shape *s, int k)
{
    /* destroy the splits of splits first (their parent may be destroyed after) */
    for (int i = k - 1; i >= 0; i--)
        if (s[i].made && s[i].team != SHMEM_TEAM_INVALID)
            shmem_team_destroy(s[i].team);
}

static inline int finish(const char *what)
{
    int me = shmem_my_pe();
    printf("PE %d/%d: %s %s (%d errors)\n", me, shmem_n_pes(), what, errors ? "FAILED" : "ok", errors);
    shmem_finalize();
    return errors != 0;
}

/* PE w's element j, per operation: small enough that no sum or product
 * overflows the narrowest type over 8 PEs (at most 3 factors of 2 or 1+i) */
#define V_and(T, w, j) ((T)~((T)1 << (((w) + (j)) % 8)))
#define V_or(T, w, j) ((T)((T)1 << (((w) + (j)) % 8)))
#define V_xor(T, w, j) ((T)((((w) + 1) * ((j) + 3)) & 0x7f))
#define V_max(T, w, j) ((T)((((w) * 5 + (j) * 3) % 11) - 5))
#define V_min V_max
#define V_sum(T, w, j) ((T)(((w) * 3 + (j)) % 7))
#define V_prod(T, w, j) ((T)((((w) + (j)) % 3 == 1) ? 2 : 1))
#define VC_sum(T, w, j) ((T)(((w) * 3 + (j)) % 7) + (T)(((w) + (j)) % 3) * (T)I)
#define VC_prod(T, w, j) ((((w) + (j)) % 3 == 1) ? (T)(1 + 1 * I) : (T)1)

#define C_and(a, b) ((a) & (b))
#define C_or(a, b) ((a) | (b))
#define C_xor(a, b) ((a) ^ (b))
#define C_max(a, b) ((b) > (a) ? (b) : (a))
#define C_min(a, b) ((b) < (a) ? (b) : (a))
#define C_sum(a, b) ((a) + (b))
#define C_prod(a, b) ((a) * (b))

#endif
