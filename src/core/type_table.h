/* Predefined datatypes recognised by handle, for the fast path: one multiply,
 * one shift, one load, one compare.  Built at MPI_Init, read-only afterwards. */
#ifndef REMORA_CORE_TYPE_TABLE_H
#define REMORA_CORE_TYPE_TABLE_H

#include <mpi.h>
#include <stdint.h>

#include "runtime/host_abi.h"

/* What accumulate needs to know of a predefined type. */
enum remora_type_class {
    REMORA_TC_NONE = 0,     /* not a predefined type this table knows          */
    REMORA_TC_INT,          /* C integer (signed or unsigned)                    */
    REMORA_TC_FLOAT,        /* floating point                                    */
    REMORA_TC_COMPLEX,      /* complex                                           */
    REMORA_TC_LOGICAL,      /* C bool, Fortran logical                           */
    REMORA_TC_BYTE,         /* MPI_BYTE                                          */
    REMORA_TC_PAIR,         /* value-index pairs for MAXLOC/MINLOC               */
    REMORA_TC_OTHER,        /* predefined, but no reduction applies (MPI_PACKED) */
};

struct remora_type_entry {
    MPI_Datatype handle;
    uint32_t size;          /* bytes of data; 0 in empty slots                   */
    uint32_t extent;        /* bytes of one element in memory (pairs have holes) */
    uint8_t tclass;         /* enum remora_type_class                            */
    uint8_t is_signed;      /* integers                                          */
    uint16_t id;            /* index into the reduction kernels' type list       */
};

#define REMORA_TYPE_SLOT_BITS 10          /* 1024 slots; predefined types fill < 10% */
#define REMORA_TYPE_SLOTS (1u << REMORA_TYPE_SLOT_BITS)
#define REMORA_TYPE_HASH_MULT 0x9E3779B97F4A7C15ull /* Fibonacci hashing */
#define REMORA_TYPE_OVERFLOW 64

struct remora_type_table {
    struct remora_type_entry slot[REMORA_TYPE_SLOTS];
    /* types whose slot a more common type took (looked up off the fast path) */
    struct remora_type_entry overflow[REMORA_TYPE_OVERFLOW];
    int noverflow;
    struct remora_type_entry no_type; /* matches no handle: a window's first type hint */
};

/* A handle no MPI ever gives a datatype: marks empty slots, so that no lookup
 * (MPI_DATATYPE_NULL included) matches one. */
#if REMORA_POINTER_HANDLES /* 1: no host object is there, no standard-ABI constant is 1 */
#define REMORA_TYPE_NO_HANDLE ((MPI_Datatype)(uintptr_t)1)
#else
#define REMORA_TYPE_NO_HANDLE ((MPI_Datatype)0)
#endif

static inline uint64_t remora_type_key(MPI_Datatype h)
{
#if REMORA_POINTER_HANDLES
    return (uint64_t)(uintptr_t)h;
#else
    return (uint64_t)(uint32_t)h;
#endif
}

/* The slot where h would be: the fast path checks slot->handle == h itself. */
static inline const struct remora_type_entry *remora_type_slot(const struct remora_type_table *t, MPI_Datatype h)
{
    return &t->slot[(remora_type_key(h) * REMORA_TYPE_HASH_MULT) >> (64 - REMORA_TYPE_SLOT_BITS)];
}

/* The entry of a predefined type, or NULL (a derived type). */
static inline const struct remora_type_entry *remora_type_lookup(const struct remora_type_table *t, MPI_Datatype h)
{
    const struct remora_type_entry *e = remora_type_slot(t, h);
    if (e->handle == h)
        return e;
    for (int i = 0; i < t->noverflow; i++)
        if (t->overflow[i].handle == h)
            return &t->overflow[i];
    return 0;
}

/* Whether e is an integer for the reductions' atomics (a C integer or MPI_BYTE). */
static inline int remora_type_integer(const struct remora_type_entry *e)
{
    return e->tclass == REMORA_TC_INT || e->tclass == REMORA_TC_BYTE;
}

/* Fills the table from the host's predefined handles. */
void remora_type_table_init(struct remora_type_table *t);

#endif
