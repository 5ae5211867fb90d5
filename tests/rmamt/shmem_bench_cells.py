#!/usr/bin/python3
"""scripts/shmem-bench's table cells: a rate test's cell counts the runs that
were asked for its kind (--tcp runs one test at a time: `--tests nbi` prints
nbi_t1 and nbi_t2), so OSHMEM's failed runs do not mark Remora's results, and
a run that was asked for a test and printed nothing marks that cell."""
import os, sys
from importlib.machinery import SourceFileLoader

bench = SourceFileLoader("shmem_bench", os.path.join(sys.argv[1], "scripts", "shmem-bench")).load_module()


def run(impl, tests, stdout, rc=0):
    header, results = bench.parse(stdout)
    return {"impl": impl, "np": 2, "index": 0, "rc": rc, "header": header, "results": results, "tests": tests,
            "args": [], "output": stdout}


runs = [
    run("Remora", ["nbi"], "result nbi_t1 4.75 Mmsg/s ok errors=0\nresult nbi_t2 4.28 Mmsg/s ok errors=0\n"),
    run("OSHMEM", ["nbi"], "", rc=124),  # hung and stopped: nothing printed
    run("Remora", ["put"], "result put 24.2 us ok errors=0\n"),
    run("OSHMEM", ["put"], "result put 45.9 us ok errors=0\n"),
]
cells = {(test, impl): c for test, np, cs, unit, ratio in bench.rows(runs) for impl, c in cs.items()}
failures = []
for test, impl, want in [("nbi_t1", "Remora", "4.75"), ("nbi_t2", "Remora", "4.28"), ("nbi_t1", "OSHMEM", "FAIL"),
                         ("put", "Remora", "24.2"), ("put", "OSHMEM", "45.9")]:
    got = cells[(test, impl)]["text"]
    if got != want:
        failures.append(f"{test} {impl}: {got!r}, expected {want!r}")
for f in failures:
    print("shmem_bench_cells:", f)
sys.exit(1 if failures else 0)
