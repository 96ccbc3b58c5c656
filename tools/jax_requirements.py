#!/usr/bin/env python3
"""Writes conformance/adapters/requirements/jax-VERSION.txt.

    python3 tools/jax_requirements.py VERSION [--python 3.11|3.12]

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

Needs the network (PyPI). Standard library and pip only.
"""

import datetime
import json
import os
import subprocess
import sys
import tempfile
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
    with urllib.request.urlopen(req, timeout=60) as r:
        return json.load(r)


def uploaded(name):
    """{version: first upload time} of the final releases of `name`."""
    d = get_json("https://pypi.org/pypi/%s/json" % name)
    out = {}
    for v, files in d["releases"].items():
        if files and all(c.isdigit() or c == "." for c in v):
            out[v] = min(f["upload_time_iso_8601"] for f in files)
    return out


def vkey(v):
    return tuple(int(x) for x in v.split("."))


def resolve(version, pyver, platforms, constraints):
    with tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, "report.json")
        cmd = [sys.executable, "-m", "pip", "install", "--quiet",
               "--disable-pip-version-check", "--dry-run", "--ignore-installed",
               "--report", report, "--only-binary=:all:",
               "--python-version", pyver, "--target", tmp]
        for p in platforms:
            cmd += ["--platform", p]
        cmd += ["jax==" + version, "jaxlib==" + version] + constraints
        subprocess.run(cmd, check=True)
        with open(report) as f:
            got = json.load(f)
    return {i["metadata"]["name"].lower().replace("_", "-"):
            i["metadata"]["version"] for i in got["install"]}


def hashes(name, version, pyver):
    tag = "cp" + pyver.replace(".", "")
    d = get_json("https://pypi.org/simple/%s/" % name,
                 "application/vnd.pypi.simple.v1+json")
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


def main(argv):
    if len(argv) < 1 or argv[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if argv else 2
    version = argv[0]
    pyver = "3.12" if vkey(version) >= (0, 11, 0) else "3.11"
    if "--python" in argv:
        pyver = argv[argv.index("--python") + 1]
    released = uploaded("jax")[version]
    constraints = []
    for dep in DEPS:
        before = [v for v, t in uploaded(dep).items() if t < released]
        constraints.append("%s<=%s" % (dep, max(before, key=vkey)))
    x86 = resolve(version, pyver, X86, constraints)
    arm = resolve(version, pyver, ARM, constraints)
    if x86 != arm:
        sys.exit("x86_64 and aarch64 resolved differently: %r %r" % (x86, arm))
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
            sys.exit("no wheel of %s %s for CPython %s" % (name, x86[name], pyver))
        lines.append("%s==%s \\" % (name, x86[name]))
        for i, h in enumerate(hs):
            lines.append("    --hash=sha256:%s%s" % (h, " \\" if i + 1 < len(hs) else ""))
    path = os.path.join(ROOT, "conformance", "adapters", "requirements",
                        "jax-%s.txt" % version)
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("wrote %s (%d packages)" % (path, len(x86)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
