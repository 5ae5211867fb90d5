/* Window index table (see win_table.h). */
#include "core/win_table.h"

#include <stdlib.h>

int remora_win_table_insert(struct remora_win_table *t, struct remora_win *w, int *index)
{
    int idx;
    if (t->nfree) {
        idx = t->free_idx[--t->nfree];
    } else {
        if (t->next_unused == 0)
            t->next_unused = 1;
        if (t->next_unused >= REMORA_WIN_CHUNK * REMORA_WIN_CHUNKS)
            return MPI_ERR_NO_MEM;
        idx = t->next_unused;
        struct remora_win **c = atomic_load_explicit(&t->chunk[idx / REMORA_WIN_CHUNK], memory_order_relaxed);
        if (!c) {
            c = calloc(REMORA_WIN_CHUNK, sizeof *c);
            if (!c)
                return MPI_ERR_NO_MEM;
            atomic_store_explicit(&t->chunk[idx / REMORA_WIN_CHUNK], c, memory_order_release);
        }
        t->next_unused++;
    }
    struct remora_win **c = atomic_load_explicit(&t->chunk[idx / REMORA_WIN_CHUNK], memory_order_relaxed);
    c[idx % REMORA_WIN_CHUNK] = w;
    *index = idx;
    return MPI_SUCCESS;
}

void remora_win_table_remove(struct remora_win_table *t, int index)
{
    struct remora_win **c = atomic_load_explicit(&t->chunk[index / REMORA_WIN_CHUNK], memory_order_relaxed);
    c[index % REMORA_WIN_CHUNK] = NULL;
    if (t->nfree == t->cap_free) {
        int cap = t->cap_free ? 2 * t->cap_free : 64;
        int *p = realloc(t->free_idx, (size_t)cap * sizeof *p);
        if (!p)
            return; /* the index is just not reused */
        t->free_idx = p;
        t->cap_free = cap;
    }
    t->free_idx[t->nfree++] = index;
}

struct remora_win *remora_win_table_get(const struct remora_win_table *t, int index)
{
    if (index <= 0 || index >= REMORA_WIN_CHUNK * REMORA_WIN_CHUNKS)
        return NULL;
    struct remora_win **c = atomic_load_explicit(&t->chunk[index / REMORA_WIN_CHUNK], memory_order_acquire);
    return c ? c[index % REMORA_WIN_CHUNK] : NULL;
}

void remora_win_table_destroy(struct remora_win_table *t)
{
    for (int i = 0; i < REMORA_WIN_CHUNKS; i++) {
        free(atomic_load_explicit(&t->chunk[i], memory_order_relaxed));
        atomic_store_explicit(&t->chunk[i], NULL, memory_order_relaxed);
    }
    free(t->free_idx);
    t->free_idx = NULL;
    t->nfree = t->cap_free = t->next_unused = 0;
}
