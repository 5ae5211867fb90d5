"""The MPI configurations scripts/models and scripts/motifs compare, and how
they launch a program in one: the host MPIs alone (Open MPI with osc/sm, and
osc/pt2pt for the windows osc/sm declines) and through Remora."""
import os, subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

CONFIGS = {  # name: scripts/mpirun options, binary suffix
    "ompi-sm": (["--osc", "sm,pt2pt"], ""),
    "mpich": (["--mpi", "mpich"], "-mpich"),
    "remora-ompi": (["--remora", "{build}/bin/remora-run"], ""),
    "remora-mpich": (["--mpi", "mpich", "--remora", "{build}/bin/remora-run"], "-mpich"),
}


def chosen(names, build):
    """the configurations named (comma-separated) that exist: Remora's need build/bin/remora-run"""
    have_remora = os.path.exists(f"{build}/bin/remora-run")
    return [c for c in names.split(",") if c in CONFIGS and (have_remora or not c.startswith("remora"))]


def launch(build, config, np, timeout, program, args):
    """runs build/bin/<program> (the configuration's binary) on np processes:
    (stdout, status, command, last line of stderr); status is "ok", a run
    killed after timeout seconds, or the exit status"""
    opts, suffix = CONFIGS[config]
    cmd = [f"{ROOT}/scripts/mpirun", *(o.replace("{build}", build) for o in opts), "--timeout", str(timeout),
           "-n", str(np), "--", f"{build}/bin/{program}{suffix}", *args]
    p = subprocess.run(cmd, capture_output=True, text=True)
    status = "ok" if p.returncode == 0 else \
        f"no result in {timeout} s (killed)" if p.returncode == 124 else f"exit {p.returncode}"
    return p.stdout, status, " ".join(cmd), (p.stderr.strip().splitlines() or [""])[-1]
