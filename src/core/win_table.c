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
        if (t->next_unused >= REMORA_WIN_MAX)
            return MPI_ERR_NO_MEM;
        idx = t->next_unused++;
    }
    atomic_store_explicit(&t->slot[idx], w, memory_order_release);
    *index = idx;
    return MPI_SUCCESS;
}

void remora_win_table_remove(struct remora_win_table *t, int index)
{
    atomic_store_explicit(&t->slot[index], NULL, memory_order_relaxed);
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
    return index > 0 ? remora_win_table_at(t, (uintptr_t)index) : NULL;
}

void remora_win_table_destroy(struct remora_win_table *t)
{
    for (int i = 0; i < t->next_unused; i++)
        atomic_store_explicit(&t->slot[i], NULL, memory_order_relaxed);
    free(t->free_idx);
    t->free_idx = NULL;
    t->nfree = t->cap_free = t->next_unused = 0;
}
