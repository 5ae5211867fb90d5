#!/usr/bin/python3
"""The RMA-MT comparison report (run by scripts/report): runs rmamt over each
host MPI configuration and over Remora, in one run, then the engine's
sections (the time inside MPI per call and the MPI share of each round,
scripts/mpi-share; single-operation latencies on a node and across simulated
nodes, scripts/microbench), OpenSHMEM (scripts/shmem-bench), foMPI's models
and motifs (scripts/models, scripts/motifs), and writes report/index.html
(a headline table of the numbers that matter, tables, PNG plots, the raw
CSV) and a terminal summary of Remora/host ratios.  Default: a small matrix
and the sections' short forms (about 12 minutes here); --full: the whole
matrix and every section in full (about 80 minutes); --plan prints the steps
and their expected durations and exits.  One progress line per finished
step, with an estimate of the time left.  A run that fails, hangs or fails
verification becomes a marked cell with its command and first error lines;
a section that fails is marked; the report goes on."""
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


def layout(args):
    """rmamt's thread placement for a run.  The epoch modes' runs keep each
    rank's threads on the rank's share of the cores (rmamt --bind), as a
    launcher that binds ranks places them: an epoch round hands off from a
    rank's main thread to its workers and back, and left to the kernel, the
    workers of 2 ranks x 3 threads on 2 cores landed beside their own main
    thread or beside the other rank's, which, not the MPI, decided a 2-thread
    fence round (about 8 or 15-20 us per job, every library alike).  The flush
    modes' workers each run their own chain of operations at once: they go on
    the node's cores round robin (rmamt --spread), a core each while there are
    cores; left to the kernel, a rank's two workers were woken on one core in
    about half the jobs (2-thread 1 MiB put: 4.8-10 GB/s instead of 12-16)."""
    sync = args[args.index("--sync") + 1] if "--sync" in args else "flush"
    return ["--bind"] if sync in ("fence", "pscw", "lock", "lockall") else ["--spread"]


def matrix(full):
    """(key, np, rmamt arguments): key names the figure a run feeds.  Modes
    whose epoch is one flush (tens of ns on the node) run many more epochs,
    so that a timed region lasts a millisecond or more, not a few timer
    ticks; small-message bandwidth runs ten times as many again (several
    ms): in a region of 0.5 ms the scheduler's placement of the threads
    decides (8-byte puts through Remora over MPICH: 27-490 MB/s per repeat
    at 2000 epochs, 250-500 at 20000).  The default run's matrix is small;
    --full's is the whole one."""
    quick = not full
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
        for sizes, n in zip(bw_sizes, (epochs(s, 300, 20000), "20" if quick else "30")):
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
          ["-n", str(np), "--", exe] + args + layout(args) + ["--repeat", str(repeat), "--timeout", str(timeout),
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


SCHEDULER_BOUND = 0.10  # a round with at most this MPI share measures the thread hand-off, not MPI


def load_shares(out):
    """scripts/mpi-share's MPI share of each measured round: {(config, sync, op, threads): share}"""
    try:
        with open(f"{out}/mpi-share/shares.json") as f:
            runs = json.load(f)
    except (OSError, ValueError):
        return {}
    return {(r["config"], r["sync"], r["op"], int(r["threads"])): r["share"] for r in runs
            if r["status"] == "ok" and r["share"] is not None}


def share_note(share):
    if share is None:
        return ""
    return (f"scheduler-bound, MPI share {100 * share:.0f}%" if share <= SCHEDULER_BOUND
            else f"MPI share {100 * share:.0f}%")


def summary(results, shares):
    """(what, unit, better, remora-ompi, best host name, best host value, ratio>1 = Remora better, MPI share):
    the MPI share of a latency row at 8 bytes is the larger of the Remora configuration's and the best host's
    (scripts/mpi-share's runs in this report; None where not measured)"""
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
            both = [shares.get((c, sync, op, threads)) for c in (rcfg, best)] if bench == "latency" and size == 8 \
                else [None]
            share = max(both) if None not in both else None
            out.append((f"{bench} {sync} {op} {size}B {threads}t", metric, rcfg, vals[rcfg], best, hosts[best], ratio,
                        share))
    return out


def geomeans(summ, skip_bound=False):
    """(Remora configuration, geometric mean of its ratios, number of points); skip_bound: without the rows
    whose MPI share is at most SCHEDULER_BOUND"""
    out = []
    for rcfg in ("remora-ompi", "remora-mpich"):
        rs = [r[6] for r in summ if r[2] == rcfg and r[6] > 0 and
              not (skip_bound and r[7] is not None and r[7] <= SCHEDULER_BOUND)]
        if rs:
            out.append((rcfg, math.exp(sum(math.log(x) for x in rs) / len(rs)), len(rs)))
    return out


def geomean_lines(summ):
    """per Remora configuration: the geometric mean over all rows and over the rows not scheduler-bound"""
    kept = {r: (g, n) for r, g, n in geomeans(summ, True)}
    return [f"geometric mean of the ratios, {rcfg}: {gm:.2f}x over all {n} points, " +
            (f"{kept[rcfg][0]:.2f}x over the {kept[rcfg][1]} points whose MPI share is above "
             if rcfg in kept else "no point left with an MPI share above ") +
            f"{100 * SCHEDULER_BOUND:.0f}% (or not measured)" for rcfg, gm, n in geomeans(summ)]


def microbench():
    """scripts/microbench as a module (its Table and ratio())"""
    from importlib.machinery import SourceFileLoader
    from importlib.util import module_from_spec, spec_from_loader
    loader = SourceFileLoader("microbench", f"{ROOT}/scripts/microbench")
    mod = module_from_spec(spec_from_loader("microbench", loader))
    loader.exec_module(mod)
    return mod


HEADLINE = [  # (section directory, start of the microbench table's title, test, what it is)
    ("node", "On one node", "put_flush", "put + flush latency, one node"),
    ("node", "On one node", "get", "get latency, one node"),
    ("node", "On one node", "fop", "fetch_and_op latency, one node"),
    ("node", "On one node", "acc", "accumulate latency, one node"),
    ("node", "On one node", "lock_unlock", "lock + unlock, one node"),
    ("node", "On one node", "fence", "fence, one node"),
    ("node", "On one node", "put_bw", "put bandwidth 1 MiB, one node"),
    ("node", "On one node", "put_rate", "put message rate, one node"),
    ("node", "On one node: windows of other kinds", "put_flush (create)",
     "put + flush latency, MPI_Win_create over heap memory, one node"),
    ("node", "On one node: windows of other kinds", "put_flush (dynamic)", "put + flush latency, dynamic window, one node"),
    ("network", "Across isolated nodes, nodes of 1 rank", "put_flush (coll)", "put + flush latency across nodes"),
    ("network", "Across isolated nodes (1 rank each)", "put_bw", "put bandwidth 1 MiB across nodes"),
    ("network", "Across isolated nodes (1 rank each)", "put_rate (1 thr)", "put message rate across nodes"),
]


def headline(out):
    """the numbers that matter, from the microbench sections' raw.tsv: [(what, unit, {config: value}, best host,
    {Remora config: best host / Remora ratio, > 1: Remora is faster})]"""
    mb = microbench()
    got = {}
    for d in {h[0] for h in HEADLINE}:
        try:
            with open(f"{out}/{d}/raw.tsv") as f:
                for line in f:
                    title, test, unit, cfg, v = line.rstrip("\n").split("\t")
                    if v != "None":
                        got.setdefault((d, title, test), (unit, {}))[1][cfg] = float(v)
        except (OSError, ValueError):
            pass
    rows = []
    for d, title, test, what in HEADLINE:
        unit, vals = next((uv for (d2, t2, n2), uv in got.items() if d2 == d and t2.startswith(title) and n2 == test),
                          ("-", {}))
        hosts = {c: v for c, v in vals.items() if not c.startswith("remora") and 0 < v < math.inf}
        best = (min(hosts, key=hosts.get) if unit == "us" else max(hosts, key=hosts.get)) if hosts else None
        ratios = {c: mb.ratio(unit, list(hosts.values()), v) for c, v in vals.items() if c.startswith("remora")}
        rows.append((what, unit, vals, best, ratios))
    return rows


def headline_text(rows):
    def v(x, unit):
        return "-" if x is None else f"{x:.2f}" if unit == "us" or x < 10 else f"{x:.0f}"
    out = [f"{'headline':36s} {'unit':5s} {'remora-ompi':>11s} {'remora-mpich':>12s} {'best host':>21s} "
           f"{'ratio ompi':>10s} {'ratio mpich':>11s}"]
    for what, unit, vals, best, ratios in rows:
        bh = f"{best} {v(vals[best], unit)}" if best else "-"
        rs = [ratios.get(c) for c in ("remora-ompi", "remora-mpich")]
        ro, rm = v(vals.get("remora-ompi"), unit), v(vals.get("remora-mpich"), unit)
        rt = [("-" if r is None else "inf" if r == math.inf else f"{r:.2f}x").rjust(w) for r, w in zip(rs, (10, 11))]
        out.append(f"{what:36s} {unit:5s} {ro:>11s} {rm:>12s} {bh:>21s} " + " ".join(rt))
    return "\n".join(out)


class Progress:
    """One line per finished step: [k/n], what it was, its status and duration, the time so far and an
    estimate of the time left: the expected seconds of the steps left (measured on this 2-core machine and
    written in the plan) scaled by how long the finished steps took against theirs."""

    def __init__(self, plan):
        self.plan, self.k, self.t0, self.expected_done = plan, 0, time.time(), 0.0

    def step(self, status, took):
        what, expected = self.plan[self.k]
        self.k += 1
        self.expected_done += expected
        elapsed = time.time() - self.t0
        left = sum(e for _w, e in self.plan[self.k:]) * elapsed / max(self.expected_done, 1.0)
        print(f"[{self.k}/{len(self.plan)}] {what}: {status} ({took:.1f} s); {elapsed / 60:.1f} min so far, "
              f"about {left / 60:.1f} min left", flush=True)


# Expected durations: the means of three default runs here (2 cores, other jobs' load average 4 to 20;
# the matrix took 995, 493 and 426 s for 147 runs, mpich's runs the slowest), the sections' as below.
# Only the progress line's estimate uses them; it scales them by how the finished steps compared.
MATRIX_STEP_S = 4.5  # one rmamt run of the matrix, launch included


def plan_sections(build, full, have_remora):
    """the sections after the matrix, in order: (script, arguments, directory under the report, expected
    seconds on this 2-core machine, for the progress line: the default run's measured; the full forms'
    are estimates, not measured)"""
    q = [] if full else ["--quick"]
    s = [("mpi-share", ["--configs", ",".join(c[0] for c in CONFIGS), "--iterations", "1000" if full else "100",
                        "--build", build], "mpi-share", 200)]
    if have_remora:
        s += [("microbench", ["--build", build] + q, "node", 160),
              ("microbench", ["--tcp", "--build", build] + q, "network", 380),
              ("shmem-bench", shmem_args(build, full), "shmem-bench", 25)]
        if full:  # Open MPI 5, MPICH 5, Intel MPI (if the build has them), alone and through Remora
            s += [("shmem-bench", shmem_args(build, full) + ["--tcp"], "shmem-network", 300),
                  ("microbench", ["--extra-hosts", "--build", build], "extra-hosts", 600)]
    if full:
        s += [("models", ["--np", "2,4,8,16", "--samples", "30", "--build", build], "models", 900),
              ("motifs", ["--build", build], "motifs", 900)]
    else:
        s += [("models", ["--np", "2,4", "--samples", "5", "--build", build], "models", 115),
              ("motifs", ["--np", "2,4", "--repeat", "1", "--motifs", "milc", "--build", build], "motifs", 25)]
    return s


def section(script, args, out, name=None):
    """runs scripts/<script> (its table goes to the terminal) and returns (its HTML section, written to
    out/<name> (name: the script's by default), its exit status)"""
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
    return text, rc


def shmem_args(build, full):
    """scripts/shmem-bench's arguments: by default a few seconds per library and PE count"""
    if not full:
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
    ap.add_argument("--full", action="store_true", help="the whole matrix and every section in full (about 80 min)")
    ap.add_argument("--quick", action="store_true", help="the same as the default run (kept for old command lines)")
    ap.add_argument("--plan", action="store_true", help="print the steps and their expected durations, and exit")
    ap.add_argument("--passes", type=int, default=3,
                    help="run the whole matrix this many times (each rmamt run is a new pair of processes); "
                         "a value is the median of the passes' medians")
    ap.add_argument("--build", default=f"{ROOT}/build")
    ap.add_argument("--out", default=f"{ROOT}/report")
    a = ap.parse_args()
    if a.passes < 1:
        ap.error("--passes must be at least 1")
    if a.full and a.quick:
        ap.error("--full and --quick exclude each other")
    have_remora = os.path.exists(f"{a.build}/bin/remora-run")
    configs = [c for c in CONFIGS if have_remora or not c[3]]
    runs = matrix(a.full)
    secs = plan_sections(a.build, a.full, have_remora)
    plan = [(f"RMA-MT pass {p + 1}: {cfg[0]} {' '.join(args[:3])}", MATRIX_STEP_S)
            for p in range(a.passes) for (_k, _np, args) in runs for cfg in configs] + \
           [(f"section {name} (scripts/{script})", exp) for script, _args, name, exp in secs]
    if a.plan:
        nm = len(plan) - len(secs)
        print(f"{'full' if a.full else 'default'} run: {len(plan)} steps, about {sum(e for _w, e in plan) / 60:.0f} "
              f"min expected here\nsteps 1-{nm}: the RMA-MT matrix, {len(runs)} runs x {len(configs)} configurations "
              f"x {a.passes} passes, about {MATRIX_STEP_S:.0f} s each")
        for k, (script, args, name, exp) in enumerate(secs, nm + 1):
            print(f"step {k}: section {name}: scripts/{script} {' '.join(args)} (about {exp} s)")
        return
    raw = f"{a.out}/raw"
    os.makedirs(raw, exist_ok=True)
    for f in os.listdir(raw):
        os.remove(f"{raw}/{f}")
    repeat, timeout = (3, 60) if a.full else (3, 20)
    progress = Progress(plan)
    load = microbench().load  # the machine's load average: timings here are only comparable within a run
    load_before = load()
    n, t0 = 0, time.time()
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
                progress.step(status, took)
    matrix_s = time.time() - t0
    results = []
    for i, (key, np, args) in enumerate(runs):
        for cfg in configs:
            passes = got[(i, cfg[0])]
            failed = [p for p in passes if p[1] != "ok"]
            rows = median_of_passes([p[0] for p in passes if p[1] == "ok"])
            status, cmd, first = failed[0][1:] if failed else ("ok", passes[0][2], "")
            results.append((cfg[0], key, args, rows, status, cmd, first))
    figs = plots(results, a.out)
    problems = [r for r in results if r[4] != "ok"]

    # the sections: an earlier report's results must not stand in for one that fails here
    for stale in ("mpi-share/shares.json", "shmem-bench/summary.json", "node/raw.tsv", "network/raw.tsv"):
        if os.path.exists(f"{a.out}/{stale}"):
            os.remove(f"{a.out}/{stale}")
    sections = [] if have_remora else ["<h2>Remora</h2><p>Remora is absent (build/bin/remora-run does not exist): "
                                       "no microbench or OpenSHMEM sections.</p>"]
    for script, args, name, _exp in secs:
        ts = time.time()
        text, rc = section(script, args, a.out, name)
        sections.append(text)
        progress.step("ok" if rc == 0 else f"PROBLEMS (exit {rc})", time.time() - ts)
    shares = load_shares(a.out)
    summ = summary(results, shares)
    head = headline(a.out) if have_remora else []
    loads = f"load average {load_before} at the start, {load()} at the end"

    # terminal summary: the headline first
    print(f"\nHeadline (ratio: best host / Remora for latency, Remora / best host for rates; > 1: Remora is better; "
          f"{'full' if a.full else 'default'} run, {(time.time() - progress.t0) / 60:.1f} min, {loads})")
    if head:
        print(headline_text(head))
    for line in geomean_lines(summ):
        print("RMA-MT " + line)
    print("\nRemora / best host (ratio > 1: Remora is better; latency: host/Remora, rates: Remora/host)")
    print(f"{'point':42s} {'metric':15s} {'remora':>12s} {'value':>10s} {'best host':>13s} {'value':>10s} {'ratio':>7s}")
    for what, metric, rcfg, rv, best, hv, ratio, share in summ:
        print(f"{what:42s} {metric:15s} {rcfg:>12s} {rv:10.3f} {best:>13s} {hv:10.3f} {ratio:6.2f}x  "
              f"{share_note(share)}")
    for line in geomean_lines(summ):
        print(line)
    if have_remora:
        print(shmem_summary(a.out))
    else:
        print("Remora: absent (build/bin/remora-run does not exist)")
    for cfg, key, args, rows, status, cmd, first in problems:
        print(f"PROBLEM {cfg}: {' '.join(args[:3])}: {status}\n  {cmd}")

    # HTML
    h = io.StringIO()
    h.write("<!doctype html><html><head><meta charset='utf-8'><title>RMA-MT report</title><style>"
            "body{font-family:sans-serif;margin:2em}table{border-collapse:collapse;font-size:13px}"
            "td,th{border:1px solid #ccc;padding:3px 6px;text-align:right}th{background:#eee}"
            ".bad{background:#fdd}.good{background:#dfd}.note{color:#666;text-align:left}"
            "pre{background:#f6f6f6;padding:6px;font-size:12px}</style></head><body>")
    h.write(f"<h1>RMA-MT: host MPIs and Remora</h1><p>{time.strftime('%Y-%m-%d %H:%M')} on {os.uname().nodename}, "
            f"{os.cpu_count()} cores; {'full' if a.full else 'default (short)'} run: the matrix {a.passes} pass(es), "
            f"each value the median of the passes' medians of {repeat} repeats, every transfer verified; the epoch "
            f"modes' runs keep each rank's threads on its share of the cores (rmamt --bind), the flush modes' runs put "
            f"the workers on the cores round robin (rmamt --spread); {n} runs "
            f"in {matrix_s:.0f} s; the whole report {time.time() - progress.t0:.0f} s; {loads}. "
            f"Remora: {'present' if have_remora else 'absent'}.</p>")
    h.write("<h2>Headline</h2><p>Single operations (scripts/microbench, sections below). ratio &gt; 1: Remora is "
            "better (latency: best host / Remora; bandwidth and rates: Remora / best host).</p><table><tr><th>what</th>"
            "<th>unit</th><th>remora-ompi</th><th>remora-mpich</th><th>best host</th><th>ratio, remora-ompi</th>"
            "<th>ratio, remora-mpich</th></tr>")
    for what, unit, vals, best, ratios in head:
        f = lambda x: "-" if x is None else f"{x:.2f}" if unit == "us" or x < 10 else f"{x:.0f}"
        h.write(f"<tr><td style='text-align:left'>{svg_safe(what)}</td><td>{unit}</td>"
                f"<td>{f(vals.get('remora-ompi'))}</td><td>{f(vals.get('remora-mpich'))}</td>"
                f"<td>{best + ' ' + f(vals[best]) if best else '-'}</td>")
        for c in ("remora-ompi", "remora-mpich"):
            r = ratios.get(c)
            h.write("<td>-</td>" if r is None else
                    f"<td class='{'good' if r >= 1 else 'bad'}'>{'inf' if r == math.inf else f'{r:.2f}x'}</td>")
        h.write("</tr>")
    h.write("</table>")
    for line in geomean_lines(summ):
        h.write(f"<p>RMA-MT {svg_safe(line)}.</p>")
    h.write("<h2>Summary: Remora against the best host configuration</h2><p>ratio &gt; 1: Remora is better "
            "(latency: host/Remora; bandwidth and rates: Remora/host). MPI share: the fraction of the round spent "
            "inside MPI calls (scripts/mpi-share's callprof runs in this report; the larger of the Remora "
            "configuration's and the best host's); a row at "
            f"{100 * SCHEDULER_BOUND:.0f}% or less measures the benchmark's thread hand-off and the scheduler, "
            "not MPI (scheduler-bound): its ratio says little about the engine.</p><table><tr><th>point</th>"
            "<th>metric</th><th>Remora</th><th>value</th><th>best host</th><th>value</th><th>ratio</th>"
            "<th>note</th></tr>")
    for what, metric, rcfg, rv, best, hv, ratio, share in summ:
        cls = "good" if ratio >= 1 else "bad"
        h.write(f"<tr><td style='text-align:left'>{svg_safe(what)}</td><td>{metric}</td><td>{rcfg}</td>"
                f"<td>{rv:.3f}</td><td>{best}</td><td>{hv:.3f}</td><td class='{cls}'>{ratio:.2f}x</td>"
                f"<td class='note'>{share_note(share)}</td></tr>")
    h.write("</table>")
    for line in geomean_lines(summ):
        h.write(f"<p>{svg_safe(line)}.</p>")
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
            "<th>threads</th><th>size</th><th>metric</th><th>median</th><th>min</th><th>max</th><th>verified</th>"
            "<th>note</th></tr>")
    for cfg, key, args, rows, status, cmd, first in results:
        for r in rows:
            share = shares.get((cfg, r["sync"], r["op"], int(r["threads"]))) \
                if r["benchmark"] == "latency" and r["size"] == "8" else None
            h.write(f"<tr><td>{cfg}</td><td>{r['benchmark']}</td><td>{r['sync']}</td><td>{r['op']}</td>"
                    f"<td>{r['threads']}</td><td>{r['size']}</td><td>{r['metric']}</td><td>{float(r['median']):.3f}"
                    f"</td><td>{float(r['min']):.3f}</td><td>{float(r['max']):.3f}</td><td>{r['verified']}</td>"
                    f"<td class='note'>{share_note(share)}</td></tr>")
    h.write("</table><p>Raw CSV per run: <a href='raw/'>raw/</a> (fields in bench/rmamt/README.md).</p></body></html>")
    with open(f"{a.out}/index.html", "w") as f:
        f.write(h.getvalue())
    print(f"\nwrote {a.out}/index.html")


if __name__ == "__main__":
    main()
