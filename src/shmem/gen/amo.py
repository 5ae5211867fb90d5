"""Atomic memory operations: standard, extended, bitwise, fetching and not,
non-blocking fetching; and the deprecated names of OpenSHMEM 1.3."""
from fn import Fn, Generic, distinct
from types_table import AMO_BITWISE, AMO_EXTENDED, AMO_STANDARD, pick

# name: (return kind, operands, remora op, fetch); return kind: value | void
OPS = {
    "fetch":        ("value", [], "REMORA_AMO_ADD", "0", "0"),
    "set":          ("void", ["value"], "REMORA_AMO_SWAP", "B(value)", "0"),
    "compare_swap": ("value", ["cond", "value"], "REMORA_AMO_CSWAP", "B(value)", "B(cond)"),
    "swap":         ("value", ["value"], "REMORA_AMO_SWAP", "B(value)", "0"),
    "fetch_inc":    ("value", [], "REMORA_AMO_ADD", "1", "0"),
    "inc":          ("void", [], "REMORA_AMO_ADD", "1", "0"),
    "fetch_add":    ("value", ["value"], "REMORA_AMO_ADD", "B(value)", "0"),
    "add":          ("void", ["value"], "REMORA_AMO_ADD", "B(value)", "0"),
    "fetch_and":    ("value", ["value"], "REMORA_AMO_AND", "B(value)", "0"),
    "and":          ("void", ["value"], "REMORA_AMO_AND", "B(value)", "0"),
    "fetch_or":     ("value", ["value"], "REMORA_AMO_OR", "B(value)", "0"),
    "or":           ("void", ["value"], "REMORA_AMO_OR", "B(value)", "0"),
    "fetch_xor":    ("value", ["value"], "REMORA_AMO_XOR", "B(value)", "0"),
    "xor":          ("void", ["value"], "REMORA_AMO_XOR", "B(value)", "0"),
}
STANDARD = ["fetch", "set", "compare_swap", "swap", "fetch_inc", "inc", "fetch_add", "add"]
EXTENDED = ["fetch", "set", "swap"]
BITWISE = ["fetch_and", "and", "fetch_or", "or", "fetch_xor", "xor"]
# OpenSHMEM 1.3 names still in use: old name -> 1.4 name
DEPRECATED = {"swap": "swap", "cswap": "compare_swap", "fadd": "fetch_add", "finc": "fetch_inc", "add": "add",
              "inc": "inc", "fetch": "fetch", "set": "set"}


def preamble():
    return ["#define B(x) remora_shmem_bits(&(x), sizeof(x))", ""]


def call(op, c, fetch, dest="dest"):
    kind, operands, rop, operand, compare = OPS[op]
    return ("remora_shmem_amo({routine}, {ctx}, (void *)%s, sizeof(%s), %s, %s, %s, pe, %d)"
            % (dest, c, rop, operand, compare, fetch))


def params(op, c, dest="dest"):
    kind, operands, *_ = OPS[op]
    first = ("const %s *source" if op == "fetch" else "%s *dest") % c
    return [first] + ["%s %s" % (c, o) for o in operands] + ["int pe"]


def routines(n, c, op, name=None):
    kind = OPS[op][0]
    dest = "source" if op == "fetch" else "dest"
    name = name or "%s_atomic_%s" % (n, op)
    if kind == "value":
        body = "uint64_t old = %s; return R(%s, old);" % (call(op, c, 1, dest), c)
        return [Fn(name, c, params(op, c), body, ctx=True)]
    return [Fn(name, "void", params(op, c), "%s;" % call(op, c, 0, dest), ctx=True)]


def nbi(n, c, op):
    """TYPE_atomic_<op>_nbi(TYPE *fetch, ...): the old value lands in *fetch by
    the next quiet (over the network: the quiet's flush waits for it)."""
    p = ["%s *fetch" % c] + params(op, c)
    dest = "source" if op == "fetch" else "dest"
    kind, operands, rop, operand, compare = OPS[op]
    return Fn("%s_atomic_%s_nbi" % (n, op), "void", p,
              "remora_shmem_amo_nbi({routine}, {ctx}, (void *)%s, sizeof(%s), %s, %s, %s, pe, fetch);"
              % (dest, c, rop, operand, compare), ctx=True)


def functions():
    fns = []
    for table, ops in ((AMO_STANDARD, STANDARD), (pick("float", "double"), EXTENDED), (AMO_BITWISE, BITWISE)):
        for n, c, _ in table:
            for op in ops:
                fns += routines(n, c, op)
                if OPS[op][0] == "value":
                    fns.append(nbi(n, c, op))
    for n, c, _ in pick("int", "long", "longlong", "float", "double"):
        for old, new in DEPRECATED.items():
            if c in ("float", "double") and new not in EXTENDED:
                continue
            for f in routines(n, c, new, name="%s_%s" % (n, old)):
                f.ctx = False
                fns.append(f)
    return fns


def generics():
    out = []
    for op in STANDARD:
        types = distinct(AMO_EXTENDED if op in EXTENDED else AMO_STANDARD)
        nargs = 1 + len(OPS[op][1]) + 1
        out.append(Generic("atomic_" + op, nargs, 0, types))
        if OPS[op][0] == "value":
            out.append(Generic("atomic_%s_nbi" % op, nargs + 1, 1, types))
    for op in BITWISE:
        types = distinct(AMO_BITWISE)
        out.append(Generic("atomic_" + op, 3, 0, types))
        if OPS[op][0] == "value":
            out.append(Generic("atomic_%s_nbi" % op, 4, 1, types))
    # the deprecated generic names (shmem_fadd(dest, value, pe) ...): no
    # context form; each calls the 1.4 routine of the type
    for old, new in DEPRECATED.items():
        types = distinct(AMO_EXTENDED if new in EXTENDED else AMO_STANDARD)
        out.append(Generic(old, 1 + len(OPS[new][1]) + 1, 0, types, ctx=False, target="atomic_" + new))
    return out
