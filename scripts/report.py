#!/usr/bin/python3
"""The RMA-MT comparison report (run by scripts/report): runs rmamt over each
host MPI configuration and over Remora, in one run, and writes
report/index.html (tables, PNG plots, the raw CSV) and a terminal summary of
Remora/host ratios; then the OpenSHMEM benchmarks over Remora's library and
Open MPI's OSHMEM (scripts/shmem-bench).  A run that fails, hangs or fails
verification becomes a marked cell with its command and first error lines;
the report goes on."""
import argparse, csv, html, io, json, math, os, statistics, subprocess, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

CONFIGS = [  # name, scripts/mpirun options, rmamt suffix, is Remora
    ("ompi-default", [], "", False),
    ("ompi-sm", ["--osc", "sm"], "", False),
    ("ompi-ucx", ["--osc", "ucx"], "", False),
    ("ompi-rdma", ["--osc", "rdma"], "", False),
    ("mpich", ["--mpi", "mpich"], "-mpich", False),
    ("remora-ompi", ["--remora", "{build}/bin/remora-run"], "", True),
    ("remora-mpich", ["--mpi", "mpich", "--remora", "{build}/bin/remora-run"], "-mpich", True),
]


def matrix(quick):
    """(key, np, rmamt arguments): key names the figure a run feeds.  Modes
    whose epoch is one flush (tens of ns on the node) run many more epochs,
    so that a timed region lasts about a millisecond, not a few timer ticks."""
    lat_sizes = "8,1K" if quick else "8:64K"
    threads = "1,2" if quick else "1,2,4"
    lat_syncs = ["flush", "fence"] if quick else ["flush", "flush_local", "lockall", "lock", "fence", "pscw"]

    def epochs(sync, few, many):
        return str(many if sync.startswith("flush") else few)

    runs = []
    for s in lat_syncs:
        runs.append(("latency", 2, ["latency", "--sync", s, "--sizes", lat_sizes, "--threads", threads,
                                    "--iterations", epochs(s, 300 if quick else 1000, 20000 if quick else 5000)]))
    if not quick:
        runs.append(("latency", 2, ["latency", "--op", "get", "--sizes", lat_sizes, "--threads", threads,
                                    "--iterations", "5000"]))
    for op in (["fetch_and_op"] if quick else ["fetch_and_op", "cas", "accumulate", "get_accumulate"]):
        runs.append(("atomics", 2, ["latency", "--op", op, "--threads", threads, "--iterations", "20000"]))
    # bandwidth: small sizes with many epochs, large ones with few (every 8x: the full run stays under 15 min)
    bw_sizes = (("8", "64K,1M") if quick else ("8,64,512,4K", "32K,256K,1M"))
    for s in (["flush"] if quick else ["flush", "fence", "lockall"]):
        for sizes, n in zip(bw_sizes, (epochs(s, 300, 2000), "20" if quick else "30")):
            runs.append(("bandwidth", 2, ["bandwidth", "--sync", s, "--sizes", sizes, "--threads", threads,
                                          "--batch", "8", "--iterations", n]))
    for s in (["flush"] if quick else ["flush", "lockall", "fence", "pscw"]):
        runs.append(("msgrate", 2, ["msgrate", "--sync", s, "--threads", threads, "--batch", "32",
                                    "--iterations", epochs(s, 100 if quick else 300, 3000)]))
    runs.append(("msgrate", 2, ["twosided", "--pattern", "msgrate", "--threads", threads, "--batch", "32",
                                "--iterations", "100" if quick else "300"]))
    if not quick:  # thread scaling to 16 threads per process (oversubscribed here), as the paper's figures go
        for s in ["flush", "lockall", "fence", "pscw"]:
            runs.append(("threads", 2, ["msgrate", "--sync", s, "--threads", "8,16", "--batch", "32",
                                        "--iterations", "100"]))
        runs.append(("threads", 2, ["latency", "--sync", "flush", "--sizes", "8", "--threads", "8,16",
                                    "--iterations", "300"]))
        runs.append(("halo", 4, ["halo", "--sync", "fence", "--threads", "1,2", "--batch", "8", "--iterations", "100"]))
        runs.append(("halo", 4, ["halo", "--sync", "flush", "--threads", "1,2", "--batch", "8", "--iterations", "100"]))
        runs.append(("halo", 4, ["twosided", "--pattern", "halo", "--threads", "1,2", "--batch", "8",
                                 "--iterations", "100"]))
    return runs


def run_one(build, config, np, args, repeat, timeout, raw_dir, index):
    name, opts, suffix, _ = config
    exe = f"{build}/bin/rmamt{suffix}"
    out = f"{raw_dir}/{index:03d}-{name}.csv"
    # rmamt --timeout reports a hang when no measurement ends for `timeout`
    # seconds (a slow run is not a hang); the launcher's limit is only a
    # backstop for a job stuck outside the measurements (start-up, exit).
    cmd = [f"{ROOT}/scripts/mpirun", "--timeout", str(max(1800, 30 * timeout))] + [o.format(build=build) for o in opts] + \
          ["-n", str(np), "--", exe] + args + ["--repeat", str(repeat), "--timeout", str(timeout),
                                             "--format", "csv", "--output", out]
    t0 = time.time()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace")
    took = time.time() - t0
    rows = list(csv.DictReader(open(out))) if os.path.exists(out) and os.path.getsize(out) else []
    status = "ok"
    if p.returncode != 0:
        text = p.stdout
        status = "hang" if "HANG" in text or p.returncode == 124 else \
                 "verification failed" if "VERIFICATION FAILED" in text else f"failed (exit {p.returncode})"
    short = " ".join(c.replace(ROOT + "/", "") for c in cmd)
    first = "\n".join(l for l in p.stdout.splitlines() if l.strip())[:1200] if status != "ok" else ""
    return rows, status, short, first, took


def median_of_passes(passes):
    """One row per measured point: the median of the passes' medians, the
    extremes of all their samples, verified only if every pass was."""
    merged = {}
    for rows in passes:
        for r in rows:
            k = tuple(r[f] for f in ("benchmark", "sync", "op", "size", "threads", "metric"))
            merged.setdefault(k, []).append(r)
    out = []
    for same in merged.values():
        r = dict(same[0])
        r["median"] = str(statistics.median(float(x["median"]) for x in same))
        r["min"] = str(min(float(x["min"]) for x in same))
        r["max"] = str(max(float(x["max"]) for x in same))
        r["verified"] = "yes" if all(x["verified"] == "yes" for x in same) else "no"
        r["mean"] = r["stddev"] = ""  # not meaningful across passes
        r["passes"] = str(len(same))
        out.append(r)
    return out


def svg_safe(s):
    return html.escape(str(s))


def value(rows, **want):
    for r in rows:
        if all(str(r.get(k)) == str(v) for k, v in want.items()):
            return float(r["median"])
    return None


def plots(results, outdir):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    figs = []
    configs = [c[0] for c in CONFIGS]

    def by(cfg, **want):
        return [r for (c, _k, _a, rows, st, *_rest) in results if c == cfg and st == "ok" for r in rows
                if all(str(r.get(k)) == str(v) for k, v in want.items())]

    def lines(title, fname, bench, metric_label, syncs, ylog=True, op="put"):
        fig, axes = plt.subplots(1, len(syncs), figsize=(5 * len(syncs), 4), squeeze=False)
        for ax, s in zip(axes[0], syncs):
            for cfg in configs:
                pts = sorted((int(r["size"]), float(r["median"])) for r in by(cfg, benchmark=bench, sync=s, op=op,
                                                                               threads=1))
                if pts:
                    ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=cfg,
                            linewidth=2.5 if cfg.startswith("remora") else 1.2)
            ax.set_xscale("log", base=2)
            if ylog:
                ax.set_yscale("log")
            ax.set_title(f"{s}")
            ax.set_xlabel("bytes")
            ax.set_ylabel(metric_label)
            ax.grid(True, which="both", alpha=0.3)
        axes[0][0].legend(fontsize=7)
        fig.suptitle(title)
        fig.tight_layout()
        fig.savefig(f"{outdir}/{fname}", dpi=90)
        plt.close(fig)
        figs.append((title, fname))

    syncs = sorted({r["sync"] for (c, k, a, rows, st, *_r) in results if k == "latency" for r in rows})
    if syncs:
        lines("Put latency vs size, 1 thread (lower is better)", "latency.png", "latency", "µs", syncs)
    bsyncs = sorted({r["sync"] for (c, k, a, rows, st, *_r) in results if k == "bandwidth" for r in rows})
    if bsyncs:
        lines("Put bandwidth vs size, 1 thread (higher is better)", "bandwidth.png", "bandwidth", "MB/s", bsyncs)

    # message rate per sync mode, with the two-sided baseline
    keys = sorted({(r["benchmark"], r["sync"]) for (c, k, a, rows, st, *_r) in results if k == "msgrate"
                   for r in rows})
    if keys:
        fig, ax = plt.subplots(figsize=(10, 4))
        width = 0.8 / max(1, len(configs))
        for i, cfg in enumerate(configs):
            ys = [value(by(cfg, benchmark=b, sync=s, threads=1), size=8) or 0 for (b, s) in keys]
            ax.bar([k + i * width for k in range(len(keys))], ys, width, label=cfg)
        ax.set_xticks([k + 0.4 for k in range(len(keys))])
        ax.set_xticklabels([("two-sided" if b == "twosided" else s) for (b, s) in keys])
        ax.set_ylabel("million messages/s (8 B)")
        ax.set_title("Message rate per sync mode, 1 thread, with the two-sided baseline (higher is better)")
        ax.legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(f"{outdir}/msgrate.png", dpi=90)
        plt.close(fig)
        figs.append(("Message rate per sync mode", "msgrate.png"))

    # thread scaling: message rate (flush) and put latency (flush) vs threads
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for cfg in configs:
        pts = sorted((int(r["threads"]), float(r["median"])) for r in by(cfg, benchmark="msgrate", sync="flush", size=8))
        if pts:
            axes[0].plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=cfg)
        pts = sorted((int(r["threads"]), float(r["median"])) for r in by(cfg, benchmark="latency", sync="flush",
                                                                         op="put", size=8))
        if pts:
            axes[1].plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=cfg)
    axes[0].set_title("msgrate (flush, 8 B) vs threads")
    axes[0].set_ylabel("million messages/s")
    axes[1].set_title("put+flush latency (8 B) vs threads")
    axes[1].set_ylabel("µs")
    axes[1].set_yscale("log")
    for ax in axes:
        ax.set_xlabel("threads per process")
        ax.grid(True, alpha=0.3)
    axes[0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(f"{outdir}/threads.png", dpi=90)
    plt.close(fig)
    figs.append(("Thread scaling", "threads.png"))
    return figs


def summary(results):
    """(what, unit, better, remora-ompi, best host name, best host value, ratio>1 = Remora better)"""
    lower = {"latency_us": True, "bandwidth_MBps": False, "msgrate_Mmsgs": False}
    points = {}
    for (cfg, _k, _a, rows, st, *_r) in results:
        if st != "ok":
            continue
        for r in rows:
            size = int(r["size"])
            if size not in (8, 1 << 20) or int(r["threads"]) > 4 or r["benchmark"] == "twosided":
                continue  # two-sided traffic is the host's in every configuration: no ratio
            key = (r["benchmark"], r["sync"], r["op"], size, int(r["threads"]), r["metric"])
            points.setdefault(key, {})[cfg] = float(r["median"])
    out = []
    for key, vals in sorted(points.items()):
        bench, sync, op, size, threads, metric = key
        hosts = {c: v for c, v in vals.items() if not c.startswith("remora") and v > 0}
        for rcfg in ("remora-ompi", "remora-mpich"):
            if rcfg not in vals or not hosts or vals[rcfg] <= 0:
                continue
            low = lower[metric]
            best = min(hosts, key=hosts.get) if low else max(hosts, key=hosts.get)
            ratio = hosts[best] / vals[rcfg] if low else vals[rcfg] / hosts[best]
            out.append((f"{bench} {sync} {op} {size}B {threads}t", metric, rcfg, vals[rcfg], best, hosts[best], ratio))
    return out


def geomeans(summ):
    """(Remora configuration, geometric mean of its ratios, number of points)"""
    out = []
    for rcfg in ("remora-ompi", "remora-mpich"):
        rs = [r[6] for r in summ if r[2] == rcfg and r[6] > 0]
        if rs:
            out.append((rcfg, math.exp(sum(math.log(x) for x in rs) / len(rs)), len(rs)))
    return out


def section(script, args, out, name=None):
    """runs scripts/<script> (its table goes to the terminal) and returns its HTML section,
    written to out/<name> (name: the script's by default)"""
    name = name or script
    print(f"\n== scripts/{script} {' '.join(args)}", flush=True)
    try:  # a script that stops early must not leave an earlier report's section in this one
        os.remove(f"{out}/{name}/section.html")
    except OSError:
        pass
    rc = subprocess.run([f"{ROOT}/scripts/{script}", *args, "--out", f"{out}/{name}"]).returncode
    try:
        with open(f"{out}/{name}/section.html") as f:
            text = f.read()
    except OSError:
        text = ""
    if rc != 0:
        text += f"<p class='bad'>scripts/{script} {svg_safe(' '.join(args))} reported problems (exit {rc}).</p>"
    return text


def shmem_args(build, quick):
    """scripts/shmem-bench's arguments: quick, a few seconds per library and PE count"""
    if quick:
        return ["--build", build, "--repeat", "1", "--np", "2,4", "--samples", "3", "--iters", "5000",
                "--coll-iters", "500"]
    return ["--build", build, "--repeat", "3", "--np", "2,4,8"]


def shmem_summary(out):
    """the terminal summary's line on OpenSHMEM, from scripts/shmem-bench's summary.json"""
    try:
        with open(f"{out}/shmem-bench/summary.json") as f:
            s = json.load(f)
    except (OSError, ValueError):
        return "OpenSHMEM, Remora / OSHMEM (scripts/shmem-bench): no results"
    colls = ", ".join(f"{p['test']} {p['pes']} PEs " + (f"{p['ratio']:.2f}x" if p["ratio"] else "-")
                      for p in s["points"] if p["test"] in ("barrier", "reduce"))
    gm = f"geometric mean {s['geomean']:.2f}x over {s['n']} points" if s["geomean"] else "no ratios"
    probs = f"; PROBLEMS: {'; '.join(s['problems'])}" if s["problems"] else ""
    return f"OpenSHMEM, Remora / OSHMEM (scripts/shmem-bench, {s['repeat']} runs each): {gm}; {colls}{probs}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--passes", type=int, default=3,
                    help="run the whole matrix this many times (each rmamt run is a new pair of processes); "
                         "a value is the median of the passes' medians")
    ap.add_argument("--build", default=f"{ROOT}/build")
    ap.add_argument("--out", default=f"{ROOT}/report")
    a = ap.parse_args()
    if a.passes < 1:
        ap.error("--passes must be at least 1")
    raw = f"{a.out}/raw"
    os.makedirs(raw, exist_ok=True)
    for f in os.listdir(raw):
        os.remove(f"{raw}/{f}")
    have_remora = os.path.exists(f"{a.build}/bin/remora-run")
    configs = [c for c in CONFIGS if have_remora or not c[3]]
    runs = matrix(a.quick)
    repeat, timeout = (3, 20) if a.quick else (3, 60)
    n, t0 = 0, time.time()
    total = a.passes * len(configs) * len(runs)
    # Point-major, pass after pass: every configuration runs a point before the
    # next point, so a slow phase of the machine hits all configurations alike;
    # and a process that starts in a bad state (placement, a neighbour's
    # leftovers) is outvoted by the other passes.
    got = {}
    for _ in range(a.passes):
        for i, (key, np, args) in enumerate(runs):
            for cfg in configs:
                n += 1
                rows, status, cmd, first, took = run_one(a.build, cfg, np, args, repeat, timeout, raw, n)
                got.setdefault((i, cfg[0]), []).append((rows, status, cmd, first))
                print(f"[{n}/{total}] {cfg[0]:13s} {' '.join(args[:3]):28s} {status} ({took:.1f} s)", flush=True)
    results = []
    for i, (key, np, args) in enumerate(runs):
        for cfg in configs:
            passes = got[(i, cfg[0])]
            failed = [p for p in passes if p[1] != "ok"]
            rows = median_of_passes([p[0] for p in passes if p[1] == "ok"])
            status, cmd, first = failed[0][1:] if failed else ("ok", passes[0][2], "")
            results.append((cfg[0], key, args, rows, status, cmd, first))
    figs = plots(results, a.out)
    summ = summary(results)
    problems = [r for r in results if r[4] != "ok"]

    # OpenSHMEM: Remora's library against Open MPI's OSHMEM (quick and full runs)
    if have_remora:
        if os.path.exists(f"{a.out}/shmem-bench/summary.json"):  # an earlier report's
            os.remove(f"{a.out}/shmem-bench/summary.json")
        sections = [section("shmem-bench", shmem_args(a.build, a.quick), a.out),
                    section("microbench", ["--tcp", "--build", a.build] + (["--quick"] if a.quick else []), a.out,
                            "network"),
                    section("shmem-bench", shmem_args(a.build, a.quick) + ["--tcp"], a.out, "shmem-network"),
                    # Open MPI 5, MPICH 5, Intel MPI (if the build has them), alone and through Remora
                    section("microbench", ["--extra-hosts", "--build", a.build] + (["--quick"] if a.quick else []),
                            a.out, "extra-hosts")]
    else:
        sections = ["<h2>OpenSHMEM: Remora and Open MPI's OSHMEM</h2><p>Remora is absent.</p>"]

    # terminal summary
    print("\nRemora / best host (ratio > 1: Remora is better; latency: host/Remora, rates: Remora/host)")
    print(f"{'point':42s} {'metric':15s} {'remora':>12s} {'value':>10s} {'best host':>13s} {'value':>10s} {'ratio':>7s}")
    for what, metric, rcfg, rv, best, hv, ratio in summ:
        print(f"{what:42s} {metric:15s} {rcfg:>12s} {rv:10.3f} {best:>13s} {hv:10.3f} {ratio:6.2f}x")
    for rcfg, gm, n in geomeans(summ):
        print(f"geometric mean of the ratios, {rcfg}: {gm:.2f}x over {n} points")
    if have_remora:
        print(shmem_summary(a.out))
    else:
        print("Remora: absent (build/bin/remora-run does not exist)")
    for cfg, key, args, rows, status, cmd, first in problems:
        print(f"PROBLEM {cfg}: {' '.join(args[:3])}: {status}\n  {cmd}")

    # foMPI's models and motifs (full run only: together they take about half an hour here)
    if a.quick:
        sections.append("<h2>foMPI's models and motifs</h2><p>Not in a --quick run: <code>scripts/report</code> "
                        "without --quick, or <code>scripts/models</code> and <code>scripts/motifs</code> alone.</p>")
    else:
        sections += [section("models", ["--np", "2,4,8,16", "--samples", "30", "--build", a.build], a.out),
                     section("motifs", ["--build", a.build], a.out)]

    # HTML
    h = io.StringIO()
    h.write("<!doctype html><html><head><meta charset='utf-8'><title>RMA-MT report</title><style>"
            "body{font-family:sans-serif;margin:2em}table{border-collapse:collapse;font-size:13px}"
            "td,th{border:1px solid #ccc;padding:3px 6px;text-align:right}th{background:#eee}"
            ".bad{background:#fdd}.good{background:#dfd}pre{background:#f6f6f6;padding:6px;font-size:12px}"
            "</style></head><body>")
    h.write(f"<h1>RMA-MT: host MPIs and Remora</h1><p>{time.strftime('%Y-%m-%d %H:%M')} on {os.uname().nodename}, "
            f"{os.cpu_count()} cores; {'quick' if a.quick else 'full'} matrix, {a.passes} pass(es) of it, each value the "
            f"median of the passes' medians of {repeat} repeats, "
            f"every transfer verified; {n} runs in {time.time() - t0:.0f} s. "
            f"Remora: {'present' if have_remora else 'absent'}.</p>")
    h.write("<h2>Summary: Remora against the best host configuration</h2><p>ratio &gt; 1: Remora is better "
            "(latency: host/Remora; bandwidth and rates: Remora/host)</p><table><tr><th>point</th><th>metric</th>"
            "<th>Remora</th><th>value</th><th>best host</th><th>value</th><th>ratio</th></tr>")
    for what, metric, rcfg, rv, best, hv, ratio in summ:
        cls = "good" if ratio >= 1 else "bad"
        h.write(f"<tr><td style='text-align:left'>{svg_safe(what)}</td><td>{metric}</td><td>{rcfg}</td>"
                f"<td>{rv:.3f}</td><td>{best}</td><td>{hv:.3f}</td><td class='{cls}'>{ratio:.2f}x</td></tr>")
    h.write("</table>")
    for rcfg, gm, n in geomeans(summ):
        h.write(f"<p>Geometric mean of the ratios, {rcfg}: <b>{gm:.2f}x</b> over {n} points.</p>")
    for title, fname in figs:
        h.write(f"<h2>{svg_safe(title)}</h2><img src='{fname}'>")
    for text in sections:
        h.write(text)
    h.write("<h2>Failures, hangs and verification failures</h2>")
    if not problems:
        h.write("<p>None.</p>")
    for cfg, key, args, rows, status, cmd, first in problems:
        h.write(f"<h3 class='bad'>{cfg}: {svg_safe(' '.join(args[:3]))}: {status}</h3><pre>{svg_safe(cmd)}\n\n"
                f"{svg_safe(first)}</pre>")
    h.write("<h2>All results</h2><table><tr><th>config</th><th>benchmark</th><th>sync</th><th>op</th>"
            "<th>threads</th><th>size</th><th>metric</th><th>median</th><th>min</th><th>max</th><th>verified</th></tr>")
    for cfg, key, args, rows, status, cmd, first in results:
        for r in rows:
            h.write(f"<tr><td>{cfg}</td><td>{r['benchmark']}</td><td>{r['sync']}</td><td>{r['op']}</td>"
                    f"<td>{r['threads']}</td><td>{r['size']}</td><td>{r['metric']}</td><td>{float(r['median']):.3f}"
                    f"</td><td>{float(r['min']):.3f}</td><td>{float(r['max']):.3f}</td><td>{r['verified']}</td></tr>")
    h.write("</table><p>Raw CSV per run: <a href='raw/'>raw/</a> (fields in bench/rmamt/README.md).</p></body></html>")
    with open(f"{a.out}/index.html", "w") as f:
        f.write(h.getvalue())
    print(f"\nwrote {a.out}/index.html")


if __name__ == "__main__":
    main()
