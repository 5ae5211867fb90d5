/* The transport's statuses as MPI error classes: each status maps to the
 * class core/status.h documents (remora_status_class), remora_status_err
 * returns that class (MPI_SUCCESS for REMORA_OK) and evaluates its status
 * once, and every status has its own text.  That a status and an MPI class
 * do not mix is the compiler's part: remora_status_t is a struct.  One
 * process. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "core/status.h"

#include "unit_check.h"

static int calls;

static remora_status_t counted(remora_status_t st)
{
    calls++;
    return st;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    static const struct {
        remora_status_t st;
        int mpi_class;
    } map[] = {
        {REMORA_OK, MPI_SUCCESS},
        {REMORA_ERR_NO_MEM, MPI_ERR_NO_MEM},
        {REMORA_ERR_UNREACHABLE, MPI_ERR_OTHER},
        {REMORA_ERR_IO, MPI_ERR_OTHER},
        {REMORA_ERR_UNSUPPORTED, MPI_ERR_UNSUPPORTED_OPERATION},
        {REMORA_ERR_INVALID, MPI_ERR_OTHER},
    };
    CHECK(sizeof map / sizeof map[0] == REMORA_S_COUNT, "a status without its class in this test");
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++) {
        remora_status_t st = map[i].st;
        CHECK(remora_status_class(st) == map[i].mpi_class, "status %d maps to class %d, not %d", (int)st.code,
              remora_status_class(st), map[i].mpi_class);
        calls = 0;
        int rc = remora_status_err(counted(st), "status %d", (int)st.code);
        CHECK(rc == map[i].mpi_class, "remora_status_err of status %d: %d, not %d", (int)st.code, rc,
              map[i].mpi_class);
        CHECK(calls == 1, "remora_status_err evaluated its status %d times", calls);
        CHECK(remora_ok(st) == (i == 0), "remora_ok of status %d", (int)st.code);
        CHECK(remora_status_is(st, st.code), "remora_status_is of status %d", (int)st.code);
        CHECK(remora_status_is(remora_status_of_code((int)st.code), st.code), "status %d through an int",
              (int)st.code);
        for (size_t j = 0; j < i; j++)
            CHECK(strcmp(remora_status_str(st), remora_status_str(map[j].st)) != 0, "statuses %zu and %zu share a text",
                  i, j);
    }
    MPI_Finalize();
    return unit_result();
}
