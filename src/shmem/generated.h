/* What the generated typed routines (gen/shmem_gen.py) are written with. */
#ifndef REMORA_SHMEM_GENERATED_H
#define REMORA_SHMEM_GENERATED_H

#include <shmem.h>
#include <string.h>

#include "shmem/api.h"
#include "shmem/ops.h"

/* The type tables' fixed-width types are these basic types (the C11 generic
 * interfaces in shmem.h rely on it). */
_Static_assert(_Generic((int32_t)0, int: 1, default: 0) && _Generic((int64_t)0, long: 1, default: 0) &&
                   _Generic((uint64_t)0, unsigned long: 1, default: 0) &&
                   _Generic((size_t)0, unsigned long: 1, default: 0) &&
                   _Generic((ptrdiff_t)0, long: 1, default: 0),
               "the C11 generic interfaces assume LP64 fixed-width types");

/* A value's bytes as the low bytes of a word (x86-64 and AArch64 are little-endian). */
static inline uint64_t remora_shmem_bits(const void *x, size_t size)
{
    uint64_t b = 0;
    memcpy(&b, x, size);
    return b;
}
/* The value of type T whose bytes are the low bytes of b. */
#define R(T, b) ({ uint64_t b_ = (b); T x_; memcpy(&x_, &b_, sizeof x_); x_; })

#endif
