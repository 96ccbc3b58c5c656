#!/usr/bin/env python3
"""cpu_meter.py - runs one command and adds its wall seconds and the CPU
seconds of it and of every process it started to a record, for the bench
scripts' core-count figures (jobs1_cores_busy, jobs2_efficiency).

Usage: cpu_meter.py BASE CMD [ARG...]

CMD's output goes to BASE.out. BASE.s gets the wall seconds added, BASE.cpu
the CPU seconds (user + system) and BASE.scope the way they were counted:

- "cgroup": CMD runs in a cpuacct control group of its own (cgroup v1
  cpuacct or v2 cpu.stat, as root), which counts every process under it,
  reaped or not. lctx kills an implementation's whole process group when
  it stops it, so the supervisor of a peer dies before it reaps the peer:
  the peer's CPU never reaches getrusage(RUSAGE_CHILDREN).
- "reaped": no control group could be made. Only reaped children are
  counted (getrusage), which leaves out such peers; a script must not
  print a figure built on it for a command whose work is in peers.

Exit status: CMD's.
"""
import os
import resource
import subprocess
import sys
import time

V1 = "/sys/fs/cgroup/cpuacct"
V2 = "/sys/fs/cgroup"


def make_group():
    """(folder, reader) of a fresh control group, or (None, None)."""
    name = "lctx-bench-%d" % os.getpid()
    if os.path.isfile(os.path.join(V1, "cpuacct.usage")):
        folder = os.path.join(V1, name)
        usage = lambda: int(open(os.path.join(folder, "cpuacct.usage")).read()) / 1e9
    elif os.path.isfile(os.path.join(V2, "cgroup.controllers")):
        folder = os.path.join(V2, name)
        usage = lambda: read_v2(folder)
    else:
        return None, None
    try:
        os.mkdir(folder)
    except OSError:
        return None, None
    return folder, usage


def read_v2(folder):
    """usage_usec of cpu.stat, in seconds."""
    for line in open(os.path.join(folder, "cpu.stat")):
        key, _, value = line.partition(" ")
        if key == "usage_usec":
            return int(value) / 1e6
    raise OSError("no usage_usec in cpu.stat")


def remove_group(folder):
    """Removes the group once its last process is gone (a killed process
    may take a moment to leave it)."""
    for _ in range(100):
        try:
            os.rmdir(folder)
            return
        except OSError:
            time.sleep(0.05)


def add(path, value):
    """Adds `value` to the number in `path` (0 when there is none)."""
    try:
        old = float(open(path).read())
    except (OSError, ValueError):
        old = 0.0
    with open(path, "w") as out:
        out.write("%.6f" % (old + value))


def main(argv):
    if len(argv) < 3:
        sys.stderr.write("usage: cpu_meter.py BASE CMD [ARG...]\n")
        return 2
    base, cmd = argv[1], argv[2:]
    folder, usage = make_group()
    enter = None
    if folder:
        procs = os.path.join(folder, "cgroup.procs")
        enter = lambda: open(procs, "w").write(str(os.getpid()))
    start = time.monotonic()
    with open(base + ".out", "w") as log:
        try:
            code = subprocess.call(cmd, stdout=log, stderr=subprocess.STDOUT,
                                   preexec_fn=enter)
        except OSError as e:
            sys.stderr.write("cpu_meter.py: cannot run %s: %s\n" % (cmd[0], e))
            code = 127
    wall = time.monotonic() - start
    if folder:
        time.sleep(0.1)  # what the command killed on its way out
        cpu, scope = usage(), "cgroup"
        remove_group(folder)
    else:
        u = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu, scope = u.ru_utime + u.ru_stime, "reaped"
    add(base + ".s", wall)
    add(base + ".cpu", cpu)
    with open(base + ".scope", "w") as out:
        out.write(scope)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv))
