/* The copy of a large put into another process's memory on the node
 * (remora_mapped_put).  A put to a new destination streams: non-temporal
 * stores bypass this core's caches, so the copy neither reads the destination
 * lines in first nor leaves them dirty here for the target's core to fetch (a
 * thread that puts batches of large blocks to different places: rmamt's 1 MiB
 * bandwidth, 2.5-3.0 -> 2.9-4.5 GB/s at 1 thread).  A put to the same
 * destination as this thread's previous large put copies through the cache:
 * a buffer rewritten in place is likely still cached, and streaming it out to
 * memory would cost a program that rewrites it (rma_micro put_bw: 33 GB/s
 * through the cache, 17-20 streamed).  The streaming copy ends with a store
 * fence: once it returns, its stores are ordered like ordinary ones, and the
 * flush's fence makes them visible as for any put. */
#include "transport/mapped.h"

#if defined(__x86_64__)
#include <emmintrin.h>

static void copy_nt(void *dst, const void *src, size_t n)
{
    char *d = dst;
    const char *s = src;
    size_t head = (16 - ((uintptr_t)d & 15)) & 15; /* streaming stores need 16-byte aligned addresses */
    if (head > n)
        head = n;
    memcpy(d, s, head);
    d += head, s += head, n -= head;
    size_t body = n & ~(size_t)63;
    for (size_t i = 0; i < body; i += 64) {
        __m128i a = _mm_loadu_si128((const __m128i *)(s + i)), b = _mm_loadu_si128((const __m128i *)(s + i + 16));
        __m128i c = _mm_loadu_si128((const __m128i *)(s + i + 32)), e = _mm_loadu_si128((const __m128i *)(s + i + 48));
        _mm_stream_si128((__m128i *)(d + i), a);
        _mm_stream_si128((__m128i *)(d + i + 16), b);
        _mm_stream_si128((__m128i *)(d + i + 32), c);
        _mm_stream_si128((__m128i *)(d + i + 48), e);
    }
    memcpy(d + body, s + body, n - body);
    _mm_sfence();
}
#else
static void copy_nt(void *dst, const void *src, size_t n) { memcpy(dst, src, n); }
#endif

void remora_copy_large(void *dst, const void *src, size_t n)
{
    static _Thread_local void *last_dst;
    if (dst == last_dst) {
        memcpy(dst, src, n);
        return;
    }
    last_dst = dst;
    copy_nt(dst, src, n);
}
