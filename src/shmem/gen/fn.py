"""A generated routine and a C11 generic interface (see shmem_gen.py)."""


class Fn:
    """shmem_<name>(params) -> ret with a body; body may use {ctx} for the
    context expression and {routine} for the routine's name as a string.
    With ctx=True the family gets shmem_ctx_<name>(shmem_ctx_t ctx, params)
    too, and shmem_<name> uses the default context."""

    def __init__(self, name, ret, params, body, ctx=False):
        self.name, self.ret, self.params, self.body, self.ctx = name, ret, params, body, ctx

    def _variants(self):
        if self.ctx:
            yield ("ctx_" + self.name, ["shmem_ctx_t ctx"] + self.params,
                   'remora_shmem_ctx_of("shmem_ctx_%s", ctx)' % self.name)
        yield (self.name, self.params, "(&remora_shmem_ctx_default)")

    def declaration(self):
        return "\n".join("REMORA_SHMEM_FN(%s, %s, (%s));" % (self.ret, n, ", ".join(p) or "void")
                         for n, p, _ in self._variants())

    def definition(self):
        out = []
        for n, p, ctx in self._variants():
            body = self.body.format(ctx=ctx, routine='"shmem_%s"' % n)
            out.append("%s pshmem_%s(%s)\n{\n    %s\n}\nREMORA_SHMEM_ALIAS(shmem_%s);\n"
                       % (self.ret, n, ", ".join(p) or "void", body, n))
        return "\n".join(out)


class Generic:
    """shmem_<name>(...) dispatching on the type of `*(arg)` (arg: index of the
    pointer argument without ctx) to shmem_<T>_<name> or, with one more
    argument, the context first, to shmem_ctx_<T>_<name>."""

    PRELUDE = """#define REMORA_SHMEM_NARG_(_1, _2, _3, _4, _5, _6, _7, _8, _9, N, ...) N
#define REMORA_SHMEM_NARG(...) REMORA_SHMEM_NARG_(__VA_ARGS__, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define REMORA_SHMEM_CAT_(a, b) a##b
#define REMORA_SHMEM_CAT(a, b) REMORA_SHMEM_CAT_(a, b)
#define REMORA_SHMEM_ARG0(a, ...) a
#define REMORA_SHMEM_ARG1(a, b, ...) b"""

    def __init__(self, name, nargs, arg, types, ctx=True, target=None):
        """target: the typed routines' name when it is not `name` (the
        deprecated generic shmem_fadd calls shmem_TYPE_atomic_fetch_add)."""
        self.name, self.nargs, self.arg, self.types, self.ctx = name, nargs, arg, types, ctx
        self.target = target or name

    def _select(self, prefix, shift):
        params = ["a%d" % i for i in range(self.nargs + shift)]
        assoc = ", ".join("%s: shmem_%s%s_%s" % (c, prefix, t, self.target) for t, c in self.types)
        return "#define remora_shmem_g_%s_%d(%s) _Generic(*(a%d), %s)(%s)" % (
            self.name, self.nargs + shift, ", ".join(params), self.arg + shift, assoc, ", ".join(params))

    def text(self):
        lines = [self._select("", 0)]
        if self.ctx:
            lines.append(self._select("ctx_", 1))
        lines.append("#define shmem_%s(...) REMORA_SHMEM_CAT(remora_shmem_g_%s_, REMORA_SHMEM_NARG(__VA_ARGS__))"
                     "(__VA_ARGS__)" % (self.name, self.name))
        return "\n".join(lines)


# the basic C type behind each fixed-width name on LP64 Linux
BASIC_OF = {"int8_t": "signed char", "int16_t": "short", "int32_t": "int", "int64_t": "long",
            "uint8_t": "unsigned char", "uint16_t": "unsigned short", "uint32_t": "unsigned int",
            "uint64_t": "unsigned long", "size_t": "unsigned long", "ptrdiff_t": "long"}


def distinct(table):
    """A _Generic's associations for a type table: one per distinct basic C
    type (int32_t is int, size_t is unsigned long ...), naming the routine of
    the basic type's own entry when the table has it."""
    seen = {}
    for n, c, _ in table:
        basic = BASIC_OF.get(c, c)
        if basic not in seen or c == basic:
            seen[basic] = n
    return [(n, basic) for basic, n in seen.items()]


class Overload:
    """shmem_<name>(...) that is a different routine for each argument count
    (forms: {count: the routine}), for a name that the spec overloads on its
    arguments: shmem_sync(team) is shmem_team_sync, shmem_sync(PE_start,
    logPE_stride, PE_size, pSync) the deprecated function of that name."""

    def __init__(self, name, forms):
        self.name, self.forms = name, forms

    def text(self):
        lines = []
        for n, routine in sorted(self.forms.items()):
            params = ", ".join("a%d" % i for i in range(n))
            lines.append("#define remora_shmem_g_%s_%d(%s) (%s)(%s)" % (self.name, n, params, routine, params))
        lines.append("#define shmem_%s(...) REMORA_SHMEM_CAT(remora_shmem_g_%s_, REMORA_SHMEM_NARG(__VA_ARGS__))"
                     "(__VA_ARGS__)" % (self.name, self.name))
        return "\n".join(lines)
