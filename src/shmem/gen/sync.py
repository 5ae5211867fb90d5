"""Point-to-point synchronization: wait_until, test and their _all, _any,
_some and _vector forms; the deprecated shmem_TYPE_wait and the old short
variants."""
from fn import Fn, Generic, distinct
from types_table import SYNC, SYNC_DEPRECATED, pick

# form: (return type, parameters after ivars, kind, vector)
FORMS = {
    "":            None,
    "_all":        ("REMORA_WAIT_ALL", 0),
    "_any":        ("REMORA_WAIT_ANY", 0),
    "_some":       ("REMORA_WAIT_SOME", 0),
    "_all_vector": ("REMORA_WAIT_ALL", 1),
    "_any_vector": ("REMORA_WAIT_ANY", 1),
    "_some_vector": ("REMORA_WAIT_SOME", 1),
}


def one(n, c, signed, test):
    verb = "test" if test else "wait_until"
    if test:
        body = ("return remora_shmem_compare(ivar, sizeof(%s), %d, cmp, &cmp_value);" % (c, signed))
        return Fn("%s_test" % n, "int", ["%s *ivar" % c, "int cmp", "%s cmp_value" % c], body)
    body = "remora_shmem_wait_until({routine}, ivar, sizeof(%s), %d, cmp, &cmp_value);" % (c, signed)
    return Fn("%s_%s" % (n, verb), "void", ["%s *ivar" % c, "int cmp", "%s cmp_value" % c], body)


def many(n, c, signed, test, form):
    kind, vector = FORMS[form]
    verb = "test" if test else "wait_until"
    p = ["%s *ivars" % c, "size_t nelems"]
    if kind == "REMORA_WAIT_SOME":
        p.append("size_t *indices")
    p += ["const int *status", "int cmp"]
    p.append(("%s *cmp_values" if vector else "%s cmp_value") % c)
    values = "cmp_values" if vector else "&cmp_value"
    indices = "indices" if kind == "REMORA_WAIT_SOME" else "NULL"
    call = ("remora_shmem_wait_set({routine}, %s, %d, ivars, sizeof(%s), %d, nelems, status, %s, cmp, %s, %d)"
            % (kind, test, c, signed, indices, values, vector))
    if kind == "REMORA_WAIT_ALL":
        ret, body = ("int", "return (int)%s;" % call) if test else ("void", "%s;" % call)
    else:
        ret, body = "size_t", "return %s;" % call
    return Fn("%s_%s%s" % (n, verb, form), ret, p, body)


def functions():
    fns = []
    for n, c, signed in SYNC + SYNC_DEPRECATED:
        for test in (0, 1):
            fns.append(one(n, c, signed, test))
            for form in FORMS:
                if form:
                    fns.append(many(n, c, signed, test, form))
    # deprecated: shmem_TYPE_wait (wait while *ivar == value) and the short forms
    for n, c, signed in pick("short", "int", "long", "longlong"):
        fns.append(Fn("%s_wait" % n, "void", ["%s *ivar" % c, "%s cmp_value" % c],
                      "remora_shmem_wait_until({routine}, ivar, sizeof(%s), %d, SHMEM_CMP_NE, &cmp_value);"
                      % (c, signed)))
    return fns


def generics():
    types = distinct(SYNC + SYNC_DEPRECATED)
    out = [Generic("wait_until", 3, 0, types, ctx=False), Generic("test", 3, 0, types, ctx=False),
           # deprecated: shmem_wait(ivar, value), the generic of shmem_TYPE_wait
           Generic("wait", 2, 0, distinct(pick("short", "int", "long", "longlong")), ctx=False)]
    for form in FORMS:
        if form:
            kind, vector = FORMS[form]
            nargs = 6 if kind == "REMORA_WAIT_SOME" else 5
            out.append(Generic("wait_until" + form, nargs, 0, types, ctx=False))
            out.append(Generic("test" + form, nargs, 0, types, ctx=False))
    return out
