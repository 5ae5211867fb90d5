/* Growing an array: the runtime's tables (the MPI_Alloc_mem pool, the shared
 * window pages) double their capacity as they fill. */
#ifndef REMORA_RUNTIME_GROW_H
#define REMORA_RUNTIME_GROW_H

#include <stdlib.h>

/* Makes *v (of *cap elements of elem bytes) hold at least need: 1, or 0 when
 * out of memory (*v and *cap unchanged). */
static inline int remora_grow(void **v, int *cap, int need, size_t elem)
{
    if (need <= *cap)
        return 1;
    int c = *cap ? *cap * 2 : 16;
    while (c < need)
        c *= 2;
    void *p = realloc(*v, (size_t)c * elem);
    if (!p)
        return 0;
    *v = p;
    *cap = c;
    return 1;
}

#endif
