/* The engine's own state (tables of windows, keyvals, error handlers,
 * datatypes) and the start-up and shutdown of every layer below the front
 * ends.  Fields above `lock` are written only in start-up and shutdown; the
 * tables below it change under `lock`. */
#ifndef REMORA_CORE_ENGINE_H
#define REMORA_CORE_ENGINE_H

#include <pthread.h>

#include "core/attr.h"
#include "core/datatype.h"
#include "core/errhandler.h"
#include "core/type_table.h"
#include "core/win_table.h"

struct remora_core {
    int initialized, finalized;
    struct remora_type_table types;      /* predefined datatypes by handle: read-only after init */
    pthread_mutex_t lock;                /* guards the three tables below                      */
    struct remora_win_table wins;        /* window handles <-> windows                          */
    struct remora_keyval_table keyvals;  /* window keyvals                                      */
    struct remora_errhandler_table errhandlers;
    struct remora_dt_cache dt_cache;     /* datatype layouts (datatype.c; its own lock)          */
};

extern struct remora_core remora_core;

/* After the host's MPI_Init*: the runtime, then the engine.  Idempotent, local. */
void remora_engine_init(void);
/* Before the host's MPI_Finalize: frees what the user left, stops the transports. */
void remora_engine_finalize(void);

#endif
