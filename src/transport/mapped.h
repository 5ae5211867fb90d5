/* Operations on memory mapped in this process (remora_mapped() returned its
 * address): what the shm transport does, inline, for the fast paths of core
 * and of the front ends.  A store is remotely complete once a fence orders it;
 * the atomics are sequentially consistent. */
#ifndef REMORA_TRANSPORT_MAPPED_H
#define REMORA_TRANSPORT_MAPPED_H

#include <stdint.h>
#include <string.h>

#include "runtime/context.h"
#include "transport/transport.h"

/* memcpy with the word-sized cases inline: an 8-byte put must not pay a call
 * into libc.  memmove otherwise: a window may be the origin of a put to itself. */
static inline void remora_mapped_copy(void *dst, const void *src, size_t n)
{
    if (__builtin_expect(n == 8, 1)) {
        uint64_t v;
        memcpy(&v, src, 8);
        memcpy(dst, &v, 8);
    } else if (n == 4) {
        uint32_t v;
        memcpy(&v, src, 4);
        memcpy(dst, &v, 4);
    } else if (n) { /* n == 0: src may be NULL */
        memmove(dst, src, n);
    }
}

void remora_copy_large(void *dst, const void *src, size_t n); /* nt_copy.c */

/* A put's copy into another process's memory mapped here: remora_mapped_copy,
 * or from REMORA_NT_COPY_MIN bytes on, where source and destination do not
 * overlap, nt_copy.c's (non-temporal stores to a new destination). */
static inline void remora_mapped_put(void *dst, const void *src, size_t n)
{
    if (__builtin_expect(n == 8, 1))
        remora_mapped_copy(dst, src, 8);
    else if (n >= remora_ctx.config.nt_copy_min &&
             ((char *)dst + n <= (const char *)src || (const char *)src + n <= (char *)dst))
        remora_copy_large(dst, src, n);
    else
        remora_mapped_copy(dst, src, n);
}

/* count blocks of len bytes, dst_step and src_step bytes apart (a packed side
 * steps by len): the size dispatched once, not per block, so that 4- and
 * 8-byte blocks of strided datatypes cost a load and a store each. */
#define REMORA_STRIDED_WORDS(T, dst, dst_step, src, src_step, count)                         \
    for (size_t i_ = 0; i_ < (count); i_++, dst += (dst_step), src += (src_step)) {          \
        T v_;                                                                               \
        memcpy(&v_, src, sizeof v_);                                                        \
        memcpy(dst, &v_, sizeof v_);                                                        \
    }

static inline void remora_strided_copy(char *dst, int64_t dst_step, const char *src, int64_t src_step, size_t len,
                                       size_t count)
{
    if (len == 8) {
        REMORA_STRIDED_WORDS(uint64_t, dst, dst_step, src, src_step, count)
    } else if (len == 4) {
        REMORA_STRIDED_WORDS(uint32_t, dst, dst_step, src, src_step, count)
    } else {
        for (size_t i = 0; i < count; i++, dst += dst_step, src += src_step)
            remora_mapped_copy(dst, src, len);
    }
}
#undef REMORA_STRIDED_WORDS

/* Element values as the transport's atomics take them: the low `size` bytes
 * of a 64-bit word (sized loads keep that right on either byte order). */
static inline uint64_t remora_elem_load(const void *p, size_t size)
{
    uint8_t u8;
    uint16_t u16;
    uint32_t u32;
    uint64_t u64;
    switch (size) {
    case 1: memcpy(&u8, p, 1); return u8;
    case 2: memcpy(&u16, p, 2); return u16;
    case 4: memcpy(&u32, p, 4); return u32;
    default: memcpy(&u64, p, 8); return u64;
    }
}

static inline void remora_elem_store(void *p, size_t size, uint64_t v)
{
    uint8_t u8 = (uint8_t)v;
    uint16_t u16 = (uint16_t)v;
    uint32_t u32 = (uint32_t)v;
    switch (size) {
    case 1: memcpy(p, &u8, 1); break;
    case 2: memcpy(p, &u16, 2); break;
    case 4: memcpy(p, &u32, 4); break;
    default: memcpy(p, &v, 8); break;
    }
}

#define REMORA_MAPPED_AMO(bits)                                                                            \
    static inline uint64_t remora_mapped_amo##bits(void *addr, enum remora_amo_op op, uint64_t x, uint64_t cmp) \
    {                                                                                                      \
        uint##bits##_t *w = addr, v = (uint##bits##_t)x, c = (uint##bits##_t)cmp;                          \
        switch (op) {                                                                                      \
        case REMORA_AMO_ADD: return __atomic_fetch_add(w, v, __ATOMIC_SEQ_CST);                            \
        case REMORA_AMO_AND: return __atomic_fetch_and(w, v, __ATOMIC_SEQ_CST);                            \
        case REMORA_AMO_OR: return __atomic_fetch_or(w, v, __ATOMIC_SEQ_CST);                              \
        case REMORA_AMO_XOR: return __atomic_fetch_xor(w, v, __ATOMIC_SEQ_CST);                            \
        case REMORA_AMO_SWAP: return __atomic_exchange_n(w, v, __ATOMIC_SEQ_CST);                          \
        case REMORA_AMO_CSWAP:                                                                             \
            __atomic_compare_exchange_n(w, &c, v, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);                  \
            return c; /* the old value, whether or not it matched */                                       \
        }                                                                                                  \
        return 0;                                                                                          \
    }
REMORA_MAPPED_AMO(8)
REMORA_MAPPED_AMO(16)
REMORA_MAPPED_AMO(32)
REMORA_MAPPED_AMO(64)
#undef REMORA_MAPPED_AMO

/* An atomic on the size-byte word at addr (1, 2, 4 or 8, aligned); the old value. */
static inline __attribute__((always_inline)) uint64_t remora_mapped_amo(void *addr, size_t size, enum remora_amo_op op,
                                                                       uint64_t x, uint64_t cmp)
{
    switch (size) {
    case 1: return remora_mapped_amo8(addr, op, x, cmp);
    case 2: return remora_mapped_amo16(addr, op, x, cmp);
    case 4: return remora_mapped_amo32(addr, op, x, cmp);
    default: return remora_mapped_amo64(addr, op, x, cmp);
    }
}

/* 16-byte compare-and-swap (x86-64's cmpxchg16b): whether this CPU has it. */
#if defined(__x86_64__)
#include <cpuid.h>
/* ECX of CPUID leaf 1 (the feature bits), read once: racing first calls
 * read the same value. */
static inline unsigned remora_cpuid1_ecx(void)
{
    static long known = -1;
    long k = __atomic_load_n(&known, __ATOMIC_RELAXED);
    if (k < 0) {
        unsigned a, b, c = 0, d;
        k = __get_cpuid(1, &a, &b, &c, &d) ? c : 0;
        __atomic_store_n(&known, k, __ATOMIC_RELAXED);
    }
    return (unsigned)k;
}

static inline int remora_mapped_cas16_ok(void) { return (remora_cpuid1_ecx() & bit_CMPXCHG16B) != 0; }

/* The 16 bytes at addr (16-aligned) become want if they equal *expect; *expect
 * gets the old bytes.  1 when they matched. */
static inline int remora_mapped_cas16(void *addr, uint64_t expect[2], const uint64_t want[2])
{
    unsigned char ok;
    __asm__ __volatile__("lock cmpxchg16b %1\n\tsetz %0"
                         : "=q"(ok), "+m"(*(volatile unsigned __int128 *)addr), "+a"(expect[0]), "+d"(expect[1])
                         : "b"(want[0]), "c"(want[1])
                         : "memory", "cc");
    return ok;
}

/* Whether an aligned 16-byte SSE load or store (movdqa) is one atomic access here: the
 * Intel SDM (vol. 3A, 9.1.1) and AMD's APM guarantee it on processors that
 * enumerate AVX, as GCC's libatomic relies on. */
static inline int remora_mapped_load16_ok(void) { return (remora_cpuid1_ecx() & bit_AVX) != 0; }

/* The 16 bytes at addr (16-aligned) in one read, where remora_mapped_load16_ok():
 * a relaxed atomic load (no compiler barrier; order it with fences). */
static inline void remora_mapped_load16(const void *addr, uint64_t out[2])
{
    typedef long long v2di __attribute__((vector_size(16)));
    v2di v;
    __asm__ __volatile__("movdqa %1, %0" : "=x"(v) : "m"(*(const volatile v2di *)addr));
    memcpy(out, &v, 16);
}

/* The 16 bytes at addr (16-aligned) written in one store, where
 * remora_mapped_load16_ok(): a relaxed atomic store. */
static inline void remora_mapped_store16(void *addr, const uint64_t in[2])
{
    typedef long long v2di __attribute__((vector_size(16)));
    v2di v;
    memcpy(&v, in, 16);
    __asm__ __volatile__("movdqa %1, %0" : "=m"(*(volatile v2di *)addr) : "x"(v));
}
#else
static inline int remora_mapped_load16_ok(void) { return 0; }
static inline void remora_mapped_load16(const void *addr, uint64_t out[2])
{
    (void)addr, (void)out;
}
static inline void remora_mapped_store16(void *addr, const uint64_t in[2])
{
    (void)addr, (void)in;
}
static inline int remora_mapped_cas16_ok(void) { return 0; }
static inline int remora_mapped_cas16(void *addr, uint64_t expect[2], const uint64_t want[2])
{
    (void)addr, (void)expect, (void)want;
    return 0;
}
#endif

/* An atomic load of the size-byte word at addr (1, 2, 4 or 8, aligned),
 * zero-extended; order is an __ATOMIC_* memory order. */
static inline uint64_t remora_mapped_load(const void *addr, size_t size, int order)
{
    switch (size) {
    case 1: return __atomic_load_n((const uint8_t *)addr, order);
    case 2: return __atomic_load_n((const uint16_t *)addr, order);
    case 4: return __atomic_load_n((const uint32_t *)addr, order);
    default: return __atomic_load_n((const uint64_t *)addr, order);
    }
}

/* Completion of every store this thread made to mapped memory. */
static inline void remora_mapped_fence(void) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }

#endif
