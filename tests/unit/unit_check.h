/* The unit tests' check: a failed condition is reported and counted, the
 * test goes on; unit_result is main's return value. */
#ifndef REMORA_TESTS_UNIT_CHECK_H
#define REMORA_TESTS_UNIT_CHECK_H

#include <stdio.h>

static int failures;

#define CHECK(cond, ...)                                                                \
    do {                                                                                \
        if (!(cond)) {                                                                  \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                        \
            fprintf(stderr, __VA_ARGS__);                                               \
            fprintf(stderr, "\n");                                                      \
            failures++;                                                                 \
        }                                                                               \
    } while (0)

static inline int unit_result(void)
{
    if (failures) {
        fprintf(stderr, "%d failure(s)\n", failures);
        return 1;
    }
    printf(" No Errors\n");
    return 0;
}

#endif
