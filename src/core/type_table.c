/* The predefined-type table: a collision-free hash of the host's handles. */
#include "core/type_table.h"
#include "core/predefined_types.h"
#include "runtime/log.h"

#include <string.h>

struct candidate {
    MPI_Datatype handle;
    size_t c_size;
    uint8_t tclass, is_signed;
    const char *name;
};

static const struct candidate candidates[] = {
#define REMORA_CANDIDATE(id, h, ct, cl, sg) {h, sizeof(ct), cl, sg, #h},
    REMORA_PREDEFINED_TYPES(REMORA_CANDIDATE)
#undef REMORA_CANDIDATE
};

/* The types programs move most often get their own slot first; the others
 * follow in table order, and a collision sends one to the overflow list. */
static const MPI_Datatype priority[] = {MPI_BYTE,  MPI_CHAR,     MPI_INT,      MPI_LONG,     MPI_DOUBLE,
                                        MPI_FLOAT, MPI_UNSIGNED, MPI_INT64_T,  MPI_UINT64_T, MPI_LONG_LONG,
                                        MPI_UNSIGNED_LONG, MPI_INT32_T, MPI_UINT32_T, MPI_SHORT};

static void place(struct remora_type_table *t, uint16_t id)
{
    const struct candidate *c = &candidates[id];
    if (c->handle == MPI_DATATYPE_NULL || remora_type_lookup(t, c->handle))
        return; /* absent on this host, or an alias of a type placed already */
    struct remora_type_entry *e = (struct remora_type_entry *)remora_type_slot(t, c->handle);
    if (e->handle != REMORA_TYPE_NO_HANDLE) {
        if (t->noverflow == REMORA_TYPE_OVERFLOW)
            remora_fatal("too many predefined datatypes collide in the type table");
        e = &t->overflow[t->noverflow++];
    }
    int size = 0;
    MPI_Aint lb = 0, extent = 0;
    PMPI_Type_size(c->handle, &size);
    PMPI_Type_get_extent(c->handle, &lb, &extent);
    *e = (struct remora_type_entry){c->handle, (uint32_t)size, (uint32_t)extent, c->tclass, c->is_signed, id};
    if (extent != (MPI_Aint)c->c_size && c->tclass != REMORA_TC_OTHER) {
        /* e.g. a Fortran type whose size differs from the C type standing in for it */
        remora_log(REMORA_LOG_INFO, "%s spans %ld bytes, not %zu: no reductions on it", c->name, (long)extent,
                   c->c_size);
        e->tclass = REMORA_TC_OTHER;
    }
}

void remora_type_table_init(struct remora_type_table *t)
{
    memset(t, 0, sizeof *t);
    for (unsigned i = 0; i < REMORA_TYPE_SLOTS; i++)
        t->slot[i].handle = REMORA_TYPE_NO_HANDLE;
    t->no_type.handle = REMORA_TYPE_NO_HANDLE;
    for (size_t p = 0; p < sizeof priority / sizeof *priority; p++)
        for (uint16_t id = 0; id < REMORA_PREDEFINED_TYPE_COUNT; id++)
            if (candidates[id].handle == priority[p])
                place(t, id);
    for (uint16_t id = 0; id < REMORA_PREDEFINED_TYPE_COUNT; id++)
        place(t, id);
    if (t->noverflow)
        remora_log(REMORA_LOG_DEBUG, "%d predefined datatypes off the fast path (hash collisions)", t->noverflow);
}
