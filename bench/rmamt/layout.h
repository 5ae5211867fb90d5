/* Where the one-sided benchmarks' operations land (onesided.c).
 *
 * Slot s is element s % batch of stream group s / batch: a thread's
 * operations toward one target, or a halo neighbour's.  Each group starts on
 * a cache line of its own, in the target's window and in the origin's
 * buffers (origin data, results, expected sums), so the streams of two
 * threads never share a line.  Sharing one would time the cores passing the
 * line back and forth between independent streams (the same for every
 * library), not the MPI. */
#ifndef RMAMT_LAYOUT_H
#define RMAMT_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#define RMAMT_LINE 64

struct layout {
    int batch;         /* slots per group                                  */
    size_t size;       /* bytes per slot                                   */
    size_t nelem;      /* 8-byte elements per slot (its expected sums)      */
    size_t stride;     /* bytes from one group to the next: whole lines    */
    size_t sum_stride; /* sums (uint64_t) from one group to the next: whole lines */
};

static inline size_t whole_lines(size_t bytes) { return (bytes + RMAMT_LINE - 1) / RMAMT_LINE * RMAMT_LINE; }

static inline struct layout layout_make(int batch, size_t size)
{
    size_t nelem = size < 8 ? 1 : size / 8;
    return (struct layout){batch, size, nelem, whole_lines((size_t)batch * size),
                           whole_lines((size_t)batch * nelem * sizeof(uint64_t)) / sizeof(uint64_t)};
}

/* Byte offset of slot s in a window or buffer laid out for `groups` groups
 * (layout_bytes: its length). */
static inline size_t slot_offset(const struct layout *l, int s)
{
    return (size_t)(s / l->batch) * l->stride + (size_t)(s % l->batch) * l->size;
}

static inline size_t layout_bytes(const struct layout *l, int groups) { return (size_t)groups * l->stride; }

/* Index of element k of slot s's expected sum. */
static inline size_t sum_index(const struct layout *l, int s, size_t k)
{
    return (size_t)(s / l->batch) * l->sum_stride + (size_t)(s % l->batch) * l->nelem + k;
}

static inline size_t sums_count(const struct layout *l, int groups) { return (size_t)groups * l->sum_stride; }

#endif
