#!/usr/bin/env python3
"""Average inclusive instructions per call of the named functions, from raw
callgrind output files: the sum over call arcs into the function of their
inclusive cost, divided by the calls.  Aliases (MPI_Put/PMPI_Put) count as one.

    callgrind-calls.py FILE... -- MPI_Put MPI_Get
"""
import re
import sys


def arcs(path, wanted):
    """(calls, inclusive Ir) per wanted function name, from one file."""
    names = {}          # compressed "(id)" -> name, for cfn= lines
    totals = {w: [0, 0] for w in wanted}
    target = None
    expect_cost = False
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            m = re.match(r"c?fn=\((\d+)\)(?: (.*))?$", line)
            if m:
                ident, name = m.group(1), m.group(2)
                if name:
                    names[ident] = name
                if line.startswith("cfn="):
                    target = names.get(ident)
                continue
            if line.startswith("calls="):
                calls = int(line.split("=")[1].split()[0])
                expect_cost = True
                continue
            if expect_cost:
                expect_cost = False
                fields = line.split()
                if len(fields) >= 2 and target:
                    base = target[1:] if target.startswith("PMPI_") else target
                    if base in totals:
                        totals[base][0] += calls
                        totals[base][1] += int(fields[1])
    return totals


def main():
    sep = sys.argv.index("--")
    files, wanted = sys.argv[1:sep], sys.argv[sep + 1:]
    grand = {w: [0, 0] for w in wanted}
    for path in files:
        for w, (c, ir) in arcs(path, wanted).items():
            grand[w][0] += c
            grand[w][1] += ir
    status = 0
    for w in wanted:
        calls, ir = grand[w]
        if calls == 0:
            print(f"{w}: no calls recorded", file=sys.stderr)
            status = 1
            continue
        print(f"instructions per {w}: {ir / calls:.1f} ({calls} calls)")
    return status


if __name__ == "__main__":
    sys.exit(main())
