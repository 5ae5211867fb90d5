"""Remote memory access: put, get, p, g, iput, iget, ibput, ibget, their nbi
forms, put with signal; typed, sized (8..128 bits) and mem."""
from fn import Fn, Generic, distinct
from types_table import RMA, SIZES

def family(prefix, c, size):
    """The routines of one element type c of `size` bytes; prefix(op, suffix) names them."""
    t = c
    fns = []
    contiguous = ["%s *dest" % t, "const %s *source" % t, "size_t nelems", "int pe"]
    for nbi in ("", "_nbi"):
        fns.append(Fn(prefix("put", nbi), "void", contiguous,
                      "remora_shmem_put({routine}, {ctx}, dest, source, nelems * %s, pe, %d);" % (size, nbi != ""), ctx=True))
        fns.append(Fn(prefix("get", nbi), "void", contiguous,
                      "remora_shmem_get({routine}, {ctx}, dest, source, nelems * %s, pe, %d);" % (size, nbi != ""),
                      ctx=True))
    for op in ("put", "get"):
        fns.append(Fn(prefix("i" + op, ""), "void",
                      ["%s *dest" % t, "const %s *source" % t, "ptrdiff_t dst", "ptrdiff_t sst", "size_t nelems",
                       "int pe"],
                      "remora_shmem_i%s({routine}, {ctx}, dest, source, dst, sst, %s, 1, nelems, pe);" % (op, size),
                      ctx=True))
        fns.append(Fn(prefix("ib" + op, ""), "void",
                      ["%s *dest" % t, "const %s *source" % t, "ptrdiff_t dst", "ptrdiff_t sst", "size_t bsize",
                       "size_t nblocks", "int pe"],
                      "remora_shmem_i%s({routine}, {ctx}, dest, source, dst, sst, %s, bsize, nblocks, pe);"
                      % (op, size), ctx=True))
    for nbi in ("", "_nbi"):
        fns.append(Fn(prefix("put", "_signal" + nbi), "void",
                      ["%s *dest" % t, "const %s *source" % t, "size_t nelems", "uint64_t *sig_addr",
                       "uint64_t signal", "int sig_op", "int pe"],
                      "remora_shmem_put_signal({routine}, {ctx}, dest, source, nelems * %s, sig_addr, signal, "
                      "sig_op, pe);" % size, ctx=True))
    return fns


def functions():
    fns = []
    for n, c, _ in RMA:
        fns += family(lambda op, sfx, n=n: "%s_%s%s" % (n, op, sfx), c, "sizeof(%s)" % c)
        fns.append(Fn(n + "_p", "void", ["%s *dest" % c, "%s value" % c, "int pe"],
                      "remora_shmem_put({routine}, {ctx}, dest, &value, sizeof value, pe, 0);", ctx=True))
        fns.append(Fn(n + "_g", c, ["const %s *source" % c, "int pe"],
                      "%s v; remora_shmem_get({routine}, {ctx}, &v, source, sizeof v, pe, 0); return v;" % c,
                      ctx=True))
    for bits in SIZES:
        fns += family(lambda op, sfx, b=bits: "%s%d%s" % (op, b, sfx), "void", str(bits // 8))
    fns += family(lambda op, sfx: "%smem%s" % (op, sfx), "void", "1")
    # sized and mem names outside the spec's list (ibputmem, iputmem ...) are not routines
    return [f for f in fns if not (f.name.startswith(("iputmem", "igetmem", "ibputmem", "ibgetmem")))]


def generics():
    types = distinct(RMA)
    out = []
    for name, nargs, arg in (("put", 4, 0), ("get", 4, 0), ("put_nbi", 4, 0), ("get_nbi", 4, 0), ("p", 3, 0),
                             ("g", 2, 0), ("iput", 6, 0), ("iget", 6, 0), ("ibput", 7, 0), ("ibget", 7, 0),
                             ("put_signal", 7, 0), ("put_signal_nbi", 7, 0)):
        out.append(Generic(name, nargs, arg, types))
    return out
