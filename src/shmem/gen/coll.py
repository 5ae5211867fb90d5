"""Collectives: the typed team routines (broadcast, collect, fcollect,
alltoall, alltoalls, the and/or/xor/max/min/sum/prod reductions, sum_inscan,
sum_exscan) with their C11 generic interfaces, and the deprecated active-set
routines old programs call (shmem_barrier, shmem_sync, broadcast32/64,
collect32/64, fcollect32/64, alltoall32/64, alltoalls32/64 and the
TYPE_OP_to_all reductions of OpenSHMEM 1.4).  The untyped team routines are
in coll.c; the routines here call its helpers (shmem/coll.h)."""
from fn import Fn, Generic, Overload, distinct
from types_table import RMA, pick

COMPLEX = [("complexd", "double _Complex", 1), ("complexf", "float _Complex", 1)]

# the spec's table of team reduction types: and/or/xor on the unsigned and
# fixed-width integers, max/min on every standard RMA type, sum/prod on those
# and the complex types
BITWISE = pick("uchar", "ushort", "uint", "ulong", "ulonglong", "int8", "int16", "int32", "int64", "uint8",
               "uint16", "uint32", "uint64", "size")
MINMAX = RMA
ARITH = RMA + COMPLEX
TEAM_OPS = [("and", BITWISE), ("or", BITWISE), ("xor", BITWISE), ("max", MINMAX), ("min", MINMAX),
            ("sum", ARITH), ("prod", ARITH)]

# the active-set (OpenSHMEM 1.4) reduction table
AS_BITWISE = pick("short", "int", "long", "longlong")
AS_MINMAX = AS_BITWISE + pick("float", "double", "longdouble")
AS_ARITH = AS_MINMAX + COMPLEX
AS_OPS = [("and", AS_BITWISE), ("or", AS_BITWISE), ("xor", AS_BITWISE), ("max", AS_MINMAX), ("min", AS_MINMAX),
          ("sum", AS_ARITH), ("prod", AS_ARITH)]

MPI_OP = {"and": "MPI_BAND", "or": "MPI_BOR", "xor": "MPI_BXOR", "max": "MPI_MAX", "min": "MPI_MIN",
          "sum": "MPI_SUM", "prod": "MPI_PROD"}

# the MPI type that reduces like each C type (see shmem/coll.h for the platform-dependent ones)
MPI_TYPE = {
    "float": "MPI_FLOAT", "double": "MPI_DOUBLE", "longdouble": "MPI_LONG_DOUBLE",
    "char": "REMORA_MPI_CHAR_ARITH", "schar": "MPI_SIGNED_CHAR", "short": "MPI_SHORT", "int": "MPI_INT",
    "long": "MPI_LONG", "longlong": "MPI_LONG_LONG", "uchar": "MPI_UNSIGNED_CHAR", "ushort": "MPI_UNSIGNED_SHORT",
    "uint": "MPI_UNSIGNED", "ulong": "MPI_UNSIGNED_LONG", "ulonglong": "MPI_UNSIGNED_LONG_LONG",
    "int8": "MPI_INT8_T", "int16": "MPI_INT16_T", "int32": "MPI_INT32_T", "int64": "MPI_INT64_T",
    "uint8": "MPI_UINT8_T", "uint16": "MPI_UINT16_T", "uint32": "MPI_UINT32_T", "uint64": "MPI_UINT64_T",
    "size": "REMORA_MPI_SIZE_T", "ptrdiff": "REMORA_MPI_PTRDIFF_T",
    "complexd": "MPI_C_DOUBLE_COMPLEX", "complexf": "MPI_C_FLOAT_COMPLEX",
}

TEAM = "shmem_team_t team"
ACTIVE_SET = ["int PE_start", "int logPE_stride", "int PE_size"]
AS_ARGS = "PE_start, logPE_stride, PE_size"


def preamble():
    return ['#include "shmem/coll.h"', ""]


def team_moves(n, c):
    """broadcast, collect, fcollect, alltoall, alltoalls of one type."""
    d, s = "%s *dest" % c, "const %s *source" % c
    size = "sizeof(%s)" % c
    return [
        Fn("%s_broadcast" % n, "int", [TEAM, d, s, "size_t nelems", "int PE_root"],
           "return remora_shmem_broadcast({routine}, team, dest, source, nelems, %s, PE_root);" % size),
        Fn("%s_collect" % n, "int", [TEAM, d, s, "size_t nelems"],
           "return remora_shmem_collect({routine}, team, dest, source, nelems, %s);" % size),
        Fn("%s_fcollect" % n, "int", [TEAM, d, s, "size_t nelems"],
           "return remora_shmem_fcollect({routine}, team, dest, source, nelems, %s);" % size),
        Fn("%s_alltoall" % n, "int", [TEAM, d, s, "size_t nelems"],
           "return remora_shmem_alltoalls({routine}, team, dest, source, 1, 1, nelems, %s);" % size),
        Fn("%s_alltoalls" % n, "int", [TEAM, d, s, "ptrdiff_t dst", "ptrdiff_t sst", "size_t nelems"],
           "return remora_shmem_alltoalls({routine}, team, dest, source, dst, sst, nelems, %s);" % size),
    ]


REALS = ("float", "double", "longdouble", "complexd", "complexf")


def mpi_op(n, op):
    """The MPI operation: the engine's for integer sum, prod, max and min (see shmem/coll.h)."""
    if op in ("sum", "prod", "max", "min") and n not in REALS:
        return "remora_shmem_int_op(REMORA_SHMEM_INT_%s)" % op.upper()
    return MPI_OP[op]


def team_reduce(n, c, op):
    return Fn("%s_%s_reduce" % (n, op), "int", [TEAM, "%s *dest" % c, "const %s *source" % c, "size_t nreduce"],
              "return remora_shmem_reduce({routine}, team, dest, source, nreduce, %s, sizeof(%s), %s);"
              % (MPI_TYPE[n], c, mpi_op(n, op)))


def team_scan(n, c, exclusive):
    return Fn("%s_sum_%s" % (n, "exscan" if exclusive else "inscan"), "int",
              [TEAM, "%s *dest" % c, "const %s *source" % c, "size_t nelems"],
              "return remora_shmem_scan({routine}, team, dest, source, nelems, %s, sizeof(%s), %s, %d);"
              % (MPI_TYPE[n], c, mpi_op(n, "sum"), exclusive))


def active_set():
    """The deprecated routines: pSync and pWrk are unused (see coll_active.c)."""
    fns = [Fn("barrier", "void", ACTIVE_SET + ["long *pSync"],
              "(void)pSync; remora_shmem_barrier_as({routine}, %s, 1);" % AS_ARGS),
           Fn("sync", "void", ACTIVE_SET + ["long *pSync"],
              "(void)pSync; remora_shmem_barrier_as({routine}, %s, 0);" % AS_ARGS)]
    for bits in (32, 64):
        elem = bits // 8
        fns.append(Fn("broadcast%d" % bits, "void",
                      ["void *dest", "const void *source", "size_t nelems", "int PE_root"] + ACTIVE_SET +
                      ["long *pSync"],
                      "(void)pSync; remora_shmem_broadcast_as({routine}, dest, source, nelems, %d, PE_root, %s);"
                      % (elem, AS_ARGS)))
        for name, fixed in (("collect", 0), ("fcollect", 1)):
            fns.append(Fn("%s%d" % (name, bits), "void",
                          ["void *dest", "const void *source", "size_t nelems"] + ACTIVE_SET + ["long *pSync"],
                          "(void)pSync; remora_shmem_collect_as({routine}, dest, source, nelems, %d, %d, %s);"
                          % (elem, fixed, AS_ARGS)))
        fns.append(Fn("alltoall%d" % bits, "void",
                      ["void *dest", "const void *source", "size_t nelems"] + ACTIVE_SET + ["long *pSync"],
                      "(void)pSync; remora_shmem_alltoalls_as({routine}, dest, source, 1, 1, nelems, %d, %s);"
                      % (elem, AS_ARGS)))
        fns.append(Fn("alltoalls%d" % bits, "void",
                      ["void *dest", "const void *source", "ptrdiff_t dst", "ptrdiff_t sst", "size_t nelems"] +
                      ACTIVE_SET + ["long *pSync"],
                      "(void)pSync; remora_shmem_alltoalls_as({routine}, dest, source, dst, sst, nelems, %d, %s);"
                      % (elem, AS_ARGS)))
    for op, table in AS_OPS:
        for n, c, _ in table:
            fns.append(Fn("%s_%s_to_all" % (n, op), "void",
                          ["%s *dest" % c, "const %s *source" % c, "int nreduce"] + ACTIVE_SET +
                          ["%s *pWrk" % c, "long *pSync"],
                          "(void)pWrk, (void)pSync; remora_shmem_reduce_as({routine}, dest, source, nreduce, %s, "
                          "sizeof(%s), %s, %s);" % (MPI_TYPE[n], c, mpi_op(n, op), AS_ARGS)))
    return fns


def functions():
    fns = []
    for n, c, _ in RMA:
        fns += team_moves(n, c)
    for op, table in TEAM_OPS:
        fns += [team_reduce(n, c, op) for n, c, _ in table]
    for exclusive in (0, 1):
        fns += [team_scan(n, c, exclusive) for n, c, _ in ARITH]
    return fns + active_set()


def generics():
    # shmem_<name>(team, dest, ...): the type is dest's (argument 1)
    out = [Generic("broadcast", 5, 1, distinct(RMA), ctx=False)]
    out += [Generic(name, 4, 1, distinct(RMA), ctx=False) for name in ("collect", "fcollect", "alltoall")]
    out.append(Generic("alltoalls", 6, 1, distinct(RMA), ctx=False))
    out += [Generic("%s_reduce" % op, 4, 1, distinct(table), ctx=False) for op, table in TEAM_OPS]
    out += [Generic("sum_%s" % scan, 4, 1, distinct(ARITH), ctx=False) for scan in ("inscan", "exscan")]
    # shmem_sync(team) (1.5 and later) and the deprecated active-set shmem_sync
    out.append(Overload("sync", {1: "shmem_team_sync", 4: "shmem_sync"}))
    return out
