/* remora_version(): what this library is and which host MPI it serves. */
#include "remora/remora.h"

#define REMORA_STR2(x) #x
#define REMORA_STR(x) REMORA_STR2(x)

__attribute__((visibility("default"))) const char *remora_version(void)
{
    return "remora " REMORA_STR(REMORA_VERSION_MAJOR) "." REMORA_STR(REMORA_VERSION_MINOR) "."
           REMORA_STR(REMORA_VERSION_PATCH) " (" REMORA_FLAVOUR ")";
}
