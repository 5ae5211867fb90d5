"""The OpenSHMEM 1.6 type tables (the spec's Tables of standard RMA types,
atomic types and reduction types), as (name, C type, is_signed)."""

RMA = [
    ("float", "float", 1), ("double", "double", 1), ("longdouble", "long double", 1),
    ("char", "char", 1), ("schar", "signed char", 1), ("short", "short", 1), ("int", "int", 1),
    ("long", "long", 1), ("longlong", "long long", 1), ("uchar", "unsigned char", 0),
    ("ushort", "unsigned short", 0), ("uint", "unsigned int", 0), ("ulong", "unsigned long", 0),
    ("ulonglong", "unsigned long long", 0), ("int8", "int8_t", 1), ("int16", "int16_t", 1),
    ("int32", "int32_t", 1), ("int64", "int64_t", 1), ("uint8", "uint8_t", 0), ("uint16", "uint16_t", 0),
    ("uint32", "uint32_t", 0), ("uint64", "uint64_t", 0), ("size", "size_t", 0), ("ptrdiff", "ptrdiff_t", 1),
]

def pick(*names):
    by = {t[0]: t for t in RMA}
    return [by[n] for n in names]

# atomics: standard (and the point-to-point synchronization types), extended, bitwise
AMO_STANDARD = pick("int", "long", "longlong", "uint", "ulong", "ulonglong", "int32", "int64", "uint32",
                    "uint64", "size", "ptrdiff")
AMO_EXTENDED = pick("float", "double") + AMO_STANDARD
AMO_BITWISE = pick("uint", "ulong", "ulonglong", "int32", "int64", "uint32", "uint64")
SYNC = AMO_STANDARD
# the synchronization table's deprecated types (still in the spec's table and
# its generic interfaces)
SYNC_DEPRECATED = pick("short", "ushort")

# bulk sizes of the sized routines (putSIZE, getSIZE, ...): bits
SIZES = [8, 16, 32, 64, 128]
