#!/usr/bin/env python3
"""Writes conformance/adapters/requirements/jax-VERSION.txt.

    python3 tools/jax_requirements.py VERSION [--python 3.11|3.12]
                                      [--interpreter PATH]

jax==VERSION and jaxlib==VERSION with every dependency, pinned and hashed,
for CPython 3.11 (3.12 for 0.11 and later) on Linux x86_64 and aarch64,
manylinux wheels only. Each dependency is held to the newest final release
uploaded to PyPI before jax VERSION itself (its "as of the release" set: an
old jaxlib is built against the numpy of its day, and a later numpy 2 or
ml_dtypes breaks it), then resolved with

    pip install --dry-run --report --only-binary=:all: --python-version X
                --platform manylinux... 'jax==V' 'jaxlib==V' CONSTRAINTS

once for the x86_64 platforms and once for the aarch64 ones (both must
choose the same releases); the sha256 of every cp3X/abi3 manylinux x86_64
and aarch64 wheel, and every pure-Python wheel, of the chosen releases comes
from PyPI's JSON simple index (PEP 691). absl-py 2.5.1 is added for
conformance/adapters/jax_export.py (test_harnesses imports it).

pip runs under a CPython of the target version (X above): pip checks a
package's Requires-Python against the interpreter it runs under, so a JAX
that needs 3.12 cannot be resolved by a 3.11 pip ("requires a different
Python: 3.11.7 not in '>=3.12'"). It is this Python when it is that
version, else the one tools/setup-jax.sh would use: pythonX and python3 on
PATH, then pyenv's versions folder; --interpreter PATH names it.

Exit status: 0 written; 1 PyPI or pip failed (said why), or VERSION is not
on PyPI; 2 bad usage; 3 no CPython X here (named). Needs the network
(PyPI). Standard library and pip only.
"""

import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEPS = ("numpy", "scipy", "ml-dtypes", "opt-einsum")
EXTRA = ("absl-py", "2.5.1")
X86 = ["manylinux_2_%d_x86_64" % m for m in range(36, 16, -1)] + [
    "manylinux2014_x86_64", "manylinux2010_x86_64", "manylinux1_x86_64"]
ARM = ["manylinux_2_%d_aarch64" % m for m in range(36, 16, -1)] + [
    "manylinux2014_aarch64"]


def get_json(url, accept=None):
    req = urllib.request.Request(url)
    if accept:
        req.add_header("Accept", accept)
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return json.load(r)
    except urllib.error.HTTPError as e:
        if e.code == 404:
            return None
        raise Failed("PyPI answered %s for %s" % (e.code, url))
    except (urllib.error.URLError, OSError, ValueError) as e:
        raise Failed("cannot read %s (%s); this needs the network (PyPI)"
                     % (url, getattr(e, "reason", e)))


def uploaded(name):
    """{version: first upload time} of the final releases of `name`."""
    d = get_json("https://pypi.org/pypi/%s/json" % name)
    if d is None:
        raise Failed("PyPI has no project %s" % name)
    out = {}
    for v, files in d["releases"].items():
        if files and all(c.isdigit() or c == "." for c in v):
            out[v] = min(f["upload_time_iso_8601"] for f in files)
    return out


def vkey(v):
    return tuple(int(x) for x in v.split("."))


class Failed(Exception):
    """A failure said in one line (exit status in .code)."""

    def __init__(self, message, code=1):
        Exception.__init__(self, message)
        self.code = code


def cpython_version(exe):
    """(major, minor, real executable) of a CPython, or None."""
    try:
        out = subprocess.run(
            [exe, "-c", "import sys, platform; print(platform."
             "python_implementation(), sys.version_info[0], "
             "sys.version_info[1], sys.executable)"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
            timeout=60).stdout.split(None, 3)
    except (OSError, subprocess.SubprocessError):
        return None
    if len(out) < 4 or out[0] != "CPython":
        return None
    return int(out[1]), int(out[2]), out[3].strip()


def pyenv_roots():
    """Where pyenv keeps its versions: $PYENV_ROOT, `pyenv root`, ~/.pyenv."""
    roots = [os.environ.get("PYENV_ROOT", "")]
    if shutil.which("pyenv"):
        try:
            roots.append(subprocess.run(
                ["pyenv", "root"], stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL, text=True,
                timeout=30).stdout.strip())
        except (OSError, subprocess.SubprocessError):
            pass
    roots.append(os.path.join(os.path.expanduser("~"), ".pyenv"))
    return [r for r in roots if r]


def find_cpython(accept, names):
    """A CPython whose (major, minor) `accept` takes: `names` on PATH, then
    pyenv's versions folder (as tools/setup-jax.sh looks), the newest there
    first. Returns its real executable (not a pyenv shim), or None."""
    for name in names:
        exe = shutil.which(name)
        got = exe and cpython_version(exe)
        if got and accept(got[:2]):
            return got[2]
    found = []
    for root in pyenv_roots():
        for exe in glob.glob(os.path.join(root, "versions", "3.*", "bin",
                                          "python3.*")):
            if not re.search(r"python3\.\d+$", exe):
                continue
            got = cpython_version(exe)
            if got and accept(got[:2]):
                found.append((got[:2], got[2]))
    return max(found)[1] if found else None


def find_python(pyver):
    """A CPython `pyver` ("3.12") to run pip under: this one when it is that
    version; pythonX.Y, then python3, on PATH; then pyenv's versions folder.
    Returns its real executable (not a pyenv shim), or None."""
    want = tuple(int(x) for x in pyver.split("."))
    if sys.implementation.name == "cpython" and sys.version_info[:2] == want:
        return sys.executable
    return find_cpython(lambda v: v == want, ("python" + pyver, "python3"))


def resolve(python, version, pyver, platforms, constraints):
    with tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, "report.json")
        cmd = [python, "-m", "pip", "install", "--quiet",
               "--disable-pip-version-check", "--dry-run", "--ignore-installed",
               "--report", report, "--only-binary=:all:",
               "--python-version", pyver, "--target", tmp]
        for p in platforms:
            cmd += ["--platform", p]
        cmd += ["jax==" + version, "jaxlib==" + version] + constraints
        proc = subprocess.run(cmd, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
        if proc.returncode != 0:
            sys.stderr.write(proc.stderr)
            errors = [l.strip() for l in proc.stderr.splitlines()
                      if l.strip().startswith("ERROR")]
            raise Failed("pip (%s) could not resolve jax==%s for CPython %s "
                         "(%s): %s" % (python, version, pyver, platforms[0],
                                       errors[0] if errors else
                                       "exit status %d" % proc.returncode))
        with open(report) as f:
            got = json.load(f)
    return {i["metadata"]["name"].lower().replace("_", "-"):
            i["metadata"]["version"] for i in got["install"]}


def hashes(name, version, pyver):
    tag = "cp" + pyver.replace(".", "")
    d = get_json("https://pypi.org/simple/%s/" % name,
                 "application/vnd.pypi.simple.v1+json")
    if d is None:
        raise Failed("PyPI has no project %s" % name)
    out = []
    for f in d["files"]:
        fn = f["filename"]
        if not fn.endswith(".whl"):
            continue
        parts = fn[:-4].split("-")
        if parts[1] != version:
            continue
        py, abi, plat = parts[-3], parts[-2], parts[-1]
        pure = plat == "any"
        native = ((tag in py.split(".") or abi == "abi3")
                  and ("manylinux" in plat)
                  and ("x86_64" in plat or "aarch64" in plat))
        if pure or native:
            out.append(f["hashes"]["sha256"])
    return sorted(set(out))


USAGE = ("usage: python3 tools/jax_requirements.py VERSION [--python X.Y] "
         "[--interpreter PATH]")


def parse(argv):
    version, pyver, python = None, None, None
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in ("--python", "--interpreter"):
            if i + 1 >= len(argv):
                raise Failed("%s needs a value\n%s" % (a, USAGE), 2)
            if a == "--python":
                pyver = argv[i + 1]
                if not re.match(r"^3\.\d+$", pyver):
                    raise Failed("--python %s: not a Python version like "
                                 "3.12\n%s" % (pyver, USAGE), 2)
            else:
                python = argv[i + 1]
            i += 2
            continue
        if a.startswith("-") or version is not None:
            raise Failed("unexpected argument %s\n%s" % (a, USAGE), 2)
        if not re.match(r"^\d+(\.\d+)+$", a):
            raise Failed("not a JAX version: %r (e.g. 0.12.1)\n%s"
                         % (a, USAGE), 2)
        version = a
        i += 1
    if version is None:
        raise Failed(USAGE, 2)
    if pyver is None:
        pyver = "3.12" if vkey(version) >= (0, 11, 0) else "3.11"
    return version, pyver, python


def main(argv):
    if argv[:1] in (["-h"], ["--help"]):
        print(__doc__.strip())
        return 0
    try:
        return write(*parse(argv))
    except Failed as e:
        sys.stderr.write("jax_requirements: %s\n" % e)
        return e.code


def write(version, pyver, python):
    if python:
        got = cpython_version(python)
        if not got or "%d.%d" % got[:2] != pyver:
            raise Failed("--interpreter %s is not a working CPython %s"
                         % (python, pyver), 3)
        python = got[2]
    else:
        python = find_python(pyver)
    if python is None:
        raise Failed(
            "JAX %s needs Python %s, and pip must run under it (it checks "
            "Requires-Python against its own interpreter); there is no "
            "CPython %s here (looked for python%s and python3 on PATH and "
            "in pyenv's versions): install one, or pass --interpreter PATH"
            % (version, pyver, pyver, pyver), 3)
    if subprocess.run([python, "-m", "pip", "--version"],
                      stdout=subprocess.DEVNULL,
                      stderr=subprocess.DEVNULL).returncode != 0:
        raise Failed("%s has no pip (python -m ensurepip installs it)"
                     % python, 3)
    releases = uploaded("jax")
    if version not in releases:
        newest = sorted(releases, key=vkey)[-5:]
        raise Failed("jax %s is not on PyPI (its newest releases: %s)"
                     % (version, ", ".join(newest)))
    released = releases[version]
    constraints = []
    for dep in DEPS:
        before = [v for v, t in uploaded(dep).items() if t < released]
        constraints.append("%s<=%s" % (dep, max(before, key=vkey)))
    x86 = resolve(python, version, pyver, X86, constraints)
    arm = resolve(python, version, pyver, ARM, constraints)
    if x86 != arm:
        raise Failed("x86_64 and aarch64 resolved differently: %r %r"
                     % (x86, arm))
    x86[EXTRA[0]] = EXTRA[1]
    day = released[:10]
    lines = [
        "# jax==%s and jaxlib==%s with every dependency, pinned and hashed," % (version, version),
        "# for CPython %s on Linux x86_64 and aarch64 (manylinux wheels only)." % pyver,
        "# tools/setup-jax.sh %s installs it into build/jax/venv-%s with" % (version, version),
        "#   python -m pip install --require-hashes --only-binary=:all: --no-deps -r jax-%s.txt" % version,
        "#",
        "# Written by tools/jax_requirements.py %s: each dependency held to its newest" % version,
        "# final release uploaded before jax %s (%s): %s;" % (version, day, ", ".join(constraints)),
        "# resolved for the x86_64 and the aarch64 manylinux platforms (the same",
        "# releases), hashes from PyPI's JSON simple index. absl-py is added for",
        "# conformance/adapters/jax_export.py. Regenerate rather than edit by hand.",
    ]
    for name in sorted(x86):
        hs = hashes(name, x86[name], pyver)
        if not hs:
            raise Failed("no wheel of %s %s for CPython %s"
                         % (name, x86[name], pyver))
        lines.append("%s==%s \\" % (name, x86[name]))
        for i, h in enumerate(hs):
            lines.append("    --hash=sha256:%s%s" % (h, " \\" if i + 1 < len(hs) else ""))
    path = os.path.join(ROOT, "conformance", "adapters", "requirements",
                        "jax-%s.txt" % version)
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("wrote %s (%d packages; pip ran under %s)"
          % (os.path.relpath(path, ROOT), len(x86), python))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
