#!/usr/bin/python3
"""check_output.py csv|json FILE: the file rmamt wrote holds the documented
fields (bench/rmamt/README.md) with sensible values."""
import csv, json, sys

FIELDS = ["benchmark", "sync", "op", "window", "threads", "size", "iterations", "repeat", "metric",
          "median", "mean", "stddev", "min", "max", "verified", "errors", "remora", "library"]
kind, path = sys.argv[1], sys.argv[2]
if kind == "csv":
    rows = list(csv.DictReader(open(path)))
    assert rows, "no rows"
    assert list(rows[0].keys()) == FIELDS, f"fields {list(rows[0].keys())}"
else:
    doc = json.load(open(path))
    for k in ["benchmark", "sync", "op", "window", "iterations", "repeat", "remora", "library", "results"]:
        assert k in doc, f"missing {k}"
    rows = [dict(doc, **r) for r in doc["results"]]
    assert rows, "no results"
for r in rows:
    lo, med, hi = float(r["min"]), float(r["median"]), float(r["max"])
    assert 0 < lo <= med <= hi, f"min/median/max out of order: {r}"
    assert float(r["stddev"]) >= 0
    assert r["verified"] == "yes" and int(r["errors"]) == 0, f"not verified: {r}"
    assert r["metric"] in ("latency_us", "bandwidth_MBps", "msgrate_Mmsgs")
print(f"ok: {len(rows)} {kind} rows with every field")
