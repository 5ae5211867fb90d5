/* How the typed tests name a routine: the plain name, the ctx_ name on
 * SHMEM_CTX_DEFAULT or on a created context, or the C11 generic interface
 * without or with (the created) context; and the names of the RMA families
 * (typed shmem_<T>_put, sized shmem_put<N>, mem shmem_putmem). */
#ifndef SHTEST_MODES_H
#define SHTEST_MODES_H

#include "shtest.h"

enum mode { PLAIN, CTX_DEFAULT, CTX_MADE, GENERIC, GENERIC_CTX, NMODES };
static const char *const MODE_NAME[] = {"plain", "ctx_default", "ctx_created", "generic", "generic_ctx"};

/* the created context (made in main with sht_make_ctx) */
static shmem_ctx_t sht_ctx;

static inline shmem_ctx_t ctx_of(enum mode m)
{
    return m == CTX_MADE || m == GENERIC_CTX ? sht_ctx : SHMEM_CTX_DEFAULT;
}

/* quiet on the context the mode's operations went through */
static inline void complete(enum mode m)
{
    if (m == PLAIN || m == GENERIC)
        shmem_quiet();
    else
        shmem_ctx_quiet(ctx_of(m));
}

static inline void sht_make_ctx(long options)
{
    if (shmem_ctx_create(options, &sht_ctx) != 0 || sht_ctx == SHMEM_CTX_INVALID) {
        fprintf(stderr, "PE %d: shmem_ctx_create(%ld) failed\n", shmem_my_pe(), options);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

/* Whether a PE moves data to or from the PE i places to its right (1 <= i <=
 * npes; npes: itself).  The plain names reach every PE; the other modes differ
 * only in how the routine is named, which three targets show (itself, its
 * neighbour, the farthest PE: another simulated node when there is one). */
static inline int reaches(enum mode m, int i, int npes)
{
    return m == PLAIN || i == npes || i == 1 || i == npes / 2;
}

/* i for the PE `from` reaching `to` */
static inline int offset_to(int from, int to, int npes) { return (to - from + npes - 1) % npes + 1; }

/* the routine names of each RMA family: K is typed, sized or mem */
#define NM_typed(ID, op, sfx) shmem_##ID##_##op##sfx
#define NMC_typed(ID, op, sfx) shmem_ctx_##ID##_##op##sfx
#define GEN_typed(ID, op, sfx) shmem_##op##sfx
#define GENC_typed(ID, op, sfx) shmem_##op##sfx
#define NM_sized(ID, op, sfx) shmem_##op##ID##sfx
#define NMC_sized(ID, op, sfx) shmem_ctx_##op##ID##sfx
#define GEN_sized NM_sized /* no generic interface: never run in the generic modes */
#define GENC_sized NMC_sized
#define NM_mem NM_sized
#define NMC_mem NMC_sized
#define GEN_mem NM_sized
#define GENC_mem NMC_sized
#define MODES_typed NMODES
#define MODES_sized GENERIC
#define MODES_mem GENERIC

/* PRE <routine>(args) through mode m's name (PRE: nothing, or "x =") */
#define CALL(K, ID, m, PRE, op, sfx, ...)                                                                     \
    switch (m) {                                                                                              \
    case PLAIN: PRE NM_##K(ID, op, sfx)(__VA_ARGS__); break;                                                  \
    case CTX_DEFAULT:                                                                                         \
    case CTX_MADE: PRE NMC_##K(ID, op, sfx)(ctx_of(m), __VA_ARGS__); break;                                   \
    case GENERIC: PRE GEN_##K(ID, op, sfx)(__VA_ARGS__); break;                                               \
    default: PRE GENC_##K(ID, op, sfx)(ctx_of(m), __VA_ARGS__); break;                                        \
    }

/* the sized families (bits, C type) and the mem family, as FAMILY(K, ID, T) */
typedef unsigned __int128 sht_u128;
#define SHT_SIZED_FAMILIES(FAMILY)                                                                            \
    FAMILY(sized, 8, uint8_t)                                                                                 \
    FAMILY(sized, 16, uint16_t)                                                                               \
    FAMILY(sized, 32, uint32_t) FAMILY(sized, 64, uint64_t) FAMILY(sized, 128, sht_u128) FAMILY(mem, mem, unsigned char)

#endif
