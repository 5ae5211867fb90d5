/* Which UCX the net transport uses, and the table of its functions
 * (ucx_api.h): one UCX per process.
 *
 * 1. The UCX already in the process: a host MPI that links UCX (MPICH's
 *    ch4:ucx, the wheels' own copy found through their RUNPATH) or loaded it
 *    in a component (Open MPI's pml/osc ucx, dlopen'ed with their own scope):
 *    the one whose ucp_init_version the global scope finds, else whatever is
 *    loaded under the soname libucp.so.0 (dlopen RTLD_NOLOAD finds a copy
 *    that another object's dlopen brought in, by its soname).
 * 2. Else REMORA_UCX_LIB (a file name or path for dlopen) or libucp.so.0
 *    from the default search path, loaded RTLD_NOW | RTLD_GLOBAL.
 * REMORA_UCX_LIB naming a file other than the copy already in the process is
 * refused: a second copy is what crashes.  Every function comes from that one
 * copy: dlsym on its handle searches libucp and its own dependencies (libucs
 * for ucs_status_string), and dladdr checks that they all lie in one
 * directory (a libucp bound to another copy's libucs, loaded before it under
 * the same soname, is the mix that crashes).  The version must be 1.x with
 * x >= REMORA_UCX_API_MINOR.
 *
 * Without a usable UCX the process has no network: one warning says why, and
 * the net transport's start-up fails as it does when UCX cannot initialise
 * (windows and OpenSHMEM on one node never start it; a window across nodes
 * fails to be created with an MPI error class). */
#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/log.h"
#include "transport/transport.h"
#include "transport/ucx_api.h"

#define DEFAULT_LIB "libucp.so.0"

_Static_assert(UCP_API_MAJOR == REMORA_UCX_API_MAJOR && UCP_API_MINOR >= REMORA_UCX_API_MINOR,
               "UCX's headers are older than the API the transport uses");

struct remora_ucx_api remora_ucx;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static remora_status_t load_status = {REMORA_S_UNREACHABLE};

/* The one warning of a process without a usable UCX. */
__attribute__((format(printf, 1, 2))) static void no_network(const char *fmt, ...)
{
    char why[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    remora_log(REMORA_LOG_WARN,
               "no UCX for Remora's network transport: %s; processes on other nodes cannot be reached "
               "(RMA within the node works)",
               why);
}

/* The file that defines sym ("" if dladdr cannot tell). */
static const char *file_of(const void *sym)
{
    Dl_info info;
    return sym && dladdr(sym, &info) && info.dli_fname ? info.dli_fname : "";
}

/* Whether files a and b lie in one directory, symbolic links resolved
 * (/lib and /usr/lib are one directory on a merged /usr). */
static int same_dir(const char *a, const char *b)
{
    char *ra = realpath(a, NULL), *rb = realpath(b, NULL);
    const char *sa = ra ? strrchr(ra, '/') : NULL, *sb = rb ? strrchr(rb, '/') : NULL;
    int same = sa && sb && sa - ra == sb - rb && !strncmp(ra, rb, (size_t)(sa - ra));
    free(ra);
    free(rb);
    return same;
}

/* A handle of the UCX already in the process, or NULL; *how says where it was found. */
static void *present_copy(const char **how)
{
    void *sym = dlsym(RTLD_DEFAULT, "ucp_init_version");
    void *h = *file_of(sym) ? dlopen(file_of(sym), RTLD_NOW | RTLD_NOLOAD) : NULL;
    *how = "in the process already, in its global scope";
    if (!h) {
        h = dlopen(DEFAULT_LIB, RTLD_NOW | RTLD_NOLOAD);
        *how = "in the process already, loaded by another library's dlopen";
    }
    return h;
}

/* Fill remora_ucx from handle h; NULL, or the name of a function missing. */
static const char *resolve(void *h)
{
    const char *missing = NULL;
#define REMORA_UCX_RESOLVE(name)                                                                                     \
    if (!(remora_ucx.name = (__typeof__(remora_ucx.name))dlsym(h, #name)) && !missing)                               \
        missing = #name;
    REMORA_UCX_FUNCTIONS(REMORA_UCX_RESOLVE)
#undef REMORA_UCX_RESOLVE
    return missing;
}

/* The first function of remora_ucx that lies outside libucp's directory, or NULL. */
static const char *foreign(const char *ucp_file)
{
    const char *odd = NULL;
#define REMORA_UCX_CHECK(name)                                                                                       \
    if (!odd && !same_dir(file_of((const void *)remora_ucx.name), ucp_file))                                         \
        odd = #name;
    REMORA_UCX_FUNCTIONS(REMORA_UCX_CHECK)
#undef REMORA_UCX_CHECK
    return odd;
}

static remora_status_t load(void)
{
    const char *want = getenv("REMORA_UCX_LIB");
    if (want && !*want)
        want = NULL;
    const char *how;
    void *h = present_copy(&how);
    if (h && want && dlopen(want, RTLD_NOW | RTLD_NOLOAD) != h) {
        /* (dlopen RTLD_NOLOAD takes a reference only when it finds the object: the same h) */
        no_network("REMORA_UCX_LIB=%s is not the UCX already in the process (%s), and two copies of UCX in one "
                   "process crash",
                   want, file_of(dlsym(h, "ucp_init_version")));
        dlclose(h);
        return REMORA_ERR_UNREACHABLE;
    }
    if (!h) {
        h = dlopen(want ? want : DEFAULT_LIB, RTLD_NOW | RTLD_GLOBAL);
        how = want ? "loaded from REMORA_UCX_LIB" : "loaded";
    }
    if (!h) {
        const char *err = dlerror();
        no_network("cannot load it (%s)", err ? err : want ? want : DEFAULT_LIB);
        return REMORA_ERR_UNREACHABLE;
    }
    const char *missing = resolve(h);
    const char *ucp_file = file_of((const void *)remora_ucx.ucp_init_version);
    const char *odd = missing ? NULL : foreign(ucp_file);
    if (missing || odd) {
        if (missing)
            no_network("%s has no %s", file_of(dlsym(h, "ucp_init_version")), missing);
        else
            no_network("%s comes from another copy of UCX than %s", odd, ucp_file);
        memset(&remora_ucx, 0, sizeof remora_ucx);
        dlclose(h);
        return REMORA_ERR_UNREACHABLE;
    }
    unsigned major, minor, release;
    remora_ucx.ucp_get_version(&major, &minor, &release);
    if (major != REMORA_UCX_API_MAJOR || minor < REMORA_UCX_API_MINOR) {
        no_network("%s is UCX %u.%u.%u; Remora uses the API of UCX %d.x from %d.%d on", ucp_file, major, minor,
                   release, REMORA_UCX_API_MAJOR, REMORA_UCX_API_MAJOR, REMORA_UCX_API_MINOR);
        memset(&remora_ucx, 0, sizeof remora_ucx);
        dlclose(h);
        return REMORA_ERR_UNREACHABLE;
    }
    remora_log(REMORA_LOG_INFO, "UCX %u.%u.%u from %s (%s)", major, minor, release, ucp_file, how);
    remora_log(REMORA_LOG_DEBUG, "UCX's ucs_status_string from %s",
               file_of((const void *)remora_ucx.ucs_status_string));
    return REMORA_OK; /* h stays open: UCX is used until the process ends */
}

static void load_once_fn(void) { load_status = load(); }

remora_status_t remora_ucx_load(void)
{
    pthread_once(&load_once, load_once_fn);
    return load_status;
}
