/* Diagnostics on stderr, prefixed with the rank. */
#ifndef REMORA_RUNTIME_LOG_H
#define REMORA_RUNTIME_LOG_H

#include "runtime/config.h"

void remora_log(enum remora_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* An internal invariant broke: print and abort the job (never continue on corrupt state). */
_Noreturn void remora_fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
