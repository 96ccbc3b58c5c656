#!/usr/bin/env python3
"""Virtual environments for the third-party packages lctx is run on
(docs/user-packages.md, `make user-packages`).

Each package PKG has a pinned and hashed requirements file
conformance/packages/PKG/requirements.txt (JAX, the package and every
dependency, one wheel hash per file pip may pick on Linux x86_64) and a
virtual environment build/packages/PKG/venv made from it with

    python -m pip install --require-hashes --only-binary=:all: --no-deps \
        --no-compile -r FILE

so pip installs exactly the listed wheels, checks every hash and builds
nothing (--no-compile: Python compiles a module when it is first imported,
not every file of every wheel at install; for equinox's venv that is 8 s
of CPU instead of 20).  The interpreter is the CPython the package's JAX
release needs (3.11 for JAX <= 0.10, 3.12 after), looked for on PATH and
in pyenv's versions directory, as tools/setup-jax.sh does.

    python3 tools/package_venvs.py setup [PKG ...]   # all packages without PKG
    python3 tools/package_venvs.py python PKG        # prints the venv's python
    python3 tools/package_venvs.py lock PKG          # rewrites requirements.txt
    python3 tools/package_venvs.py list              # the packages, one a line

`lock` resolves the package's pinned spec on top of the JAX release's own
requirements file (conformance/adapters/requirements/jax-VERSION.txt,
whose lines it copies) with `pip install --dry-run --report` in a scratch
venv holding that JAX, and takes each further wheel's sha256 from the
report.  A stamp file in the venv holds the requirements file's sha256: a
second `setup` with the same file does nothing.  LCTX_JAX=off: nothing is
installed (exit 0, said loudly).

Exit status: 0 done, 1 an install or check failed, 2 bad usage, 3 the
interpreter is missing.  Standard library only.
"""

import glob
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PKG_DIR = os.path.join(ROOT, "conformance", "packages")
BUILD_DIR = os.path.join(ROOT, "build", "packages")
JAX_REQ_DIR = os.path.join(ROOT, "conformance", "adapters", "requirements")

# name -> what to pin: the pip spec, the JAX release, the modules to import
# (the --package names for jax_export.py).  The smallest, pure-Python one
# (equinox) is the one tests/test_user_packages.sh installs and sweeps.
PACKAGES = {
    "equinox": {"spec": "equinox==0.13.8", "jax": "0.10.2",
                "modules": ["equinox"]},
    "brainevent": {"spec": "brainevent[cpu]==0.2.1", "jax": "0.10.2",
                   "modules": ["brainevent"]},
    "jax-finufft": {"spec": "jax-finufft==1.3.1", "jax": "0.10.2",
                    "modules": ["jax_finufft"]},
    "s2fft": {"spec": "s2fft==1.5.0", "jax": "0.10.2",
              "modules": ["s2fft"]},
    # jaxdecomp imports packaging without declaring it: pinned here.
    "jaxdecomp": {"spec": "jaxdecomp==0.3.1", "jax": "0.10.2",
                  "modules": ["jaxdecomp"], "extra": ["packaging==26.4"]},
    "cuequivariance-jax": {"spec": "cuequivariance-jax==0.13.0",
                           "jax": "0.10.2",
                           "modules": ["cuequivariance_jax"]},
    "warp-lang": {"spec": "warp-lang==1.19.0", "jax": "0.10.2",
                  "modules": ["warp"]},
}


class Failure(Exception):
    """A step failed: (exit status, message)."""


def say(text):
    print("lctx: " + text, flush=True)


def python_version_for(jax_release):
    parts = [int(p) for p in jax_release.split(".")]
    return "3.11" if parts[:2] <= [0, 10] else "3.12"


def req_file(name):
    return os.path.join(PKG_DIR, name, "requirements.txt")


def venv_dir(name):
    return os.path.join(BUILD_DIR, name, "venv")


def venv_python(name):
    return os.path.join(venv_dir(name), "bin", "python")


def _is_python(path, want):
    """The real executable of `path` when it is CPython `want`, else None."""
    try:
        out = subprocess.run(
            [path, "-c", "import sys, platform; print(platform."
             "python_implementation(), '%d.%d' % sys.version_info[:2], "
             "sys.executable)"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    fields = out.stdout.split(None, 2)
    if out.returncode or len(fields) != 3:
        return None
    if fields[0] != "CPython" or fields[1] != want:
        return None
    return fields[2].strip()


def find_python(want):
    """CPython `want` from PATH, then pyenv's versions directory."""
    for cand in ("python" + want, "python3"):
        path = shutil.which(cand)
        if path and _is_python(path, want):
            return _is_python(path, want)
    root = os.environ.get("PYENV_ROOT") or os.path.join(
        os.path.expanduser("~"), ".pyenv")
    for path in sorted(glob.glob(os.path.join(
            root, "versions", want + "*", "bin", "python" + want))):
        real = _is_python(path, want)
        if real:
            return real
    raise Failure((3, "Python %s is needed and there is none on PATH or in "
                   "pyenv's versions" % want))


def _sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def _run(cmd, what):
    proc = subprocess.run(cmd)
    if proc.returncode:
        raise Failure((1, "%s failed (exit %d): %s" % (
            what, proc.returncode, " ".join(cmd))))


def _pip_install(python, req):
    _run([python, "-m", "pip", "install", "--quiet",
          "--disable-pip-version-check", "--require-hashes",
          "--only-binary=:all:", "--no-deps", "--no-compile", "-r", req],
         "pip install -r " + os.path.relpath(req, ROOT))


def setup(name):
    """Creates build/packages/NAME/venv from its requirements file."""
    meta = PACKAGES[name]
    req = req_file(name)
    if not os.path.isfile(req):
        raise Failure((2, "no requirements file %s (run: python3 "
                       "tools/package_venvs.py lock %s)" % (
                           os.path.relpath(req, ROOT), name)))
    want = _sha256(req)
    venv = venv_dir(name)
    stamp = os.path.join(venv, "lctx-requirements.sha256")
    if os.path.isfile(stamp) and os.path.exists(venv_python(name)):
        with open(stamp) as f:
            if f.read().strip() == want:
                say("%s already installed in %s" % (
                    name, os.path.relpath(venv, ROOT)))
                return
    python = find_python(python_version_for(meta["jax"]))
    if os.path.exists(venv):
        shutil.rmtree(venv)
    say("creating %s with %s" % (os.path.relpath(venv, ROOT), python))
    _run([python, "-m", "venv", venv], "python -m venv")
    _pip_install(venv_python(name), req)
    check = "import jax; print(jax.__version__); " + "; ".join(
        "import " + m for m in meta["modules"])
    proc = subprocess.run([venv_python(name), "-c", check],
                          capture_output=True, text=True,
                          env=dict(os.environ, JAX_PLATFORMS="cpu"))
    if proc.returncode or proc.stdout.strip() != meta["jax"]:
        raise Failure((1, "%s: importing jax and %s fails or gives another "
                       "JAX: %s" % (name, ", ".join(meta["modules"]),
                                    (proc.stderr or proc.stdout)[-400:])))
    with open(stamp, "w") as f:
        f.write(want + "\n")
    say("%s installed in %s (JAX %s)" % (name, os.path.relpath(venv, ROOT),
                                         meta["jax"]))


def _jax_lines(release):
    """The requirement lines of JAX's own pinned file (no comments)."""
    path = os.path.join(JAX_REQ_DIR, "jax-%s.txt" % release)
    with open(path) as f:
        return [ln.rstrip("\n") for ln in f
                if ln.strip() and not ln.startswith("#")]


def _report_lines(report):
    """name==version + --hash lines for each wheel of a pip report."""
    out = []
    for item in sorted(report.get("install", []),
                       key=lambda i: i["metadata"]["name"].lower()):
        meta = item["metadata"]
        hashes = item["download_info"].get("archive_info", {}).get(
            "hashes", {})
        if "sha256" not in hashes:
            raise Failure((1, "no sha256 for %s in pip's report" %
                           meta["name"]))
        wheel = item["download_info"]["url"].rsplit("/", 1)[-1]
        if not wheel.endswith(".whl"):
            raise Failure((1, "%s resolves to %s, not a wheel" % (
                meta["name"], wheel)))
        out.append("%s==%s \\" % (meta["name"], meta["version"]))
        out.append("    --hash=sha256:%s" % hashes["sha256"])
    return out


def lock(name):
    """Rewrites conformance/packages/NAME/requirements.txt."""
    meta = PACKAGES[name]
    python = find_python(python_version_for(meta["jax"]))
    jax_req = os.path.join(JAX_REQ_DIR, "jax-%s.txt" % meta["jax"])
    with tempfile.TemporaryDirectory(prefix="lctx-lock-") as tmp:
        venv = os.path.join(tmp, "venv")
        _run([python, "-m", "venv", venv], "python -m venv")
        vpy = os.path.join(venv, "bin", "python")
        _pip_install(vpy, jax_req)
        report = os.path.join(tmp, "report.json")
        _run([vpy, "-m", "pip", "install", "--quiet", "--dry-run",
              "--disable-pip-version-check", "--only-binary=:all:",
              "--report", report, meta["spec"], "jax==" + meta["jax"]]
             + meta.get("extra", []),
             "pip install --dry-run " + meta["spec"])
        with open(report) as f:
            extra = _report_lines(json.load(f))
    head = [
        "# %s and every dependency on JAX %s (CPython %s, Linux x86_64)," % (
            meta["spec"], meta["jax"], python_version_for(meta["jax"])),
        "# pinned and hashed.  tools/package_venvs.py setup %s installs it"
        % name,
        "# into build/packages/%s/venv with" % name,
        "#   python -m pip install --require-hashes --only-binary=:all: "
        "--no-deps -r requirements.txt",
        "# Produced by `python3 tools/package_venvs.py lock %s`: the lines "
        "of" % name,
        "# conformance/adapters/requirements/jax-%s.txt, then what pip "
        "resolves for" % meta["jax"],
        "# '%s' on top of them (pip install --dry-run --report," %
        meta["spec"],
        "# --only-binary=:all:), each wheel with its sha256.  Regenerate "
        "rather than edit.",
    ]
    os.makedirs(os.path.dirname(req_file(name)), exist_ok=True)
    with open(req_file(name), "w") as f:
        f.write("\n".join(head + _jax_lines(meta["jax"]) + extra) + "\n")
    say("wrote %s" % os.path.relpath(req_file(name), ROOT))


def main(argv):
    usage = ("usage: python3 tools/package_venvs.py setup [PKG ...] | "
             "python PKG | lock PKG | list")
    if not argv or argv[0] not in ("setup", "python", "lock", "list"):
        print(usage, file=sys.stderr)
        return 2
    cmd, names = argv[0], argv[1:]
    unknown = [n for n in names if n not in PACKAGES]
    if unknown:
        print("lctx: error: unknown package %s (known: %s)" % (
            ", ".join(unknown), ", ".join(sorted(PACKAGES))), file=sys.stderr)
        return 2
    if cmd == "list":
        print("\n".join(sorted(PACKAGES)))
        return 0
    if cmd in ("python", "lock") and len(names) != 1:
        print(usage, file=sys.stderr)
        return 2
    if cmd == "python":
        print(os.path.relpath(venv_python(names[0]), ROOT))
        return 0
    if cmd == "setup" and os.environ.get("LCTX_JAX") == "off":
        say("LCTX_JAX=off: the package venvs are NOT installed")
        return 0
    try:
        for name in names or sorted(PACKAGES):
            (setup if cmd == "setup" else lock)(name)
    except Failure as failure:
        code, message = failure.args[0]
        print("lctx: error: " + message, file=sys.stderr)
        return code
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
