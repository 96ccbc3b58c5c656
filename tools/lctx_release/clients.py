"""The jaxlib_clients.py side of a release: the client table's entries
(conformance/adapters/lctx_jax/jaxlib_clients.py, loaded from its file: it
imports only the standard library), what the installed wheel's real CPU
client says (a probe under the release's Python), what jaxlib's C++ says
at the wheel's commit (a jax-ml/jax git repository), and the draft entry
of CLIENTS made of them."""

import importlib.util
import json
import os
import re
import subprocess

from jax_venvs import venv_python

from .base import CLIENTS_PY, ROOT
from .trees import GitTree

# The names jaxlib_clients.py and release.c give the `.platform` shim's
# platform lists.
GPU_NAMES = {("cuda", "rocm"): "CUDA_ROCM",
             ("cuda", "rocm", "oneapi"): "CUDA_ROCM_ONEAPI"}


def load_clients(path):
    """The module of jaxlib_clients.py at `path` (loaded from the file: it
    is no package of this checkout's Python)."""
    spec = importlib.util.spec_from_file_location("jaxlib_clients", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def client_entries():
    """The module jaxlib_clients, the names of its CLIENTS (None when it
    cannot be read), and whether an entry may leave gpu_platforms unread
    (None: some entry does)."""
    try:
        clients = load_clients(os.path.join(ROOT, CLIENTS_PY))
        return clients, list(clients.CLIENTS), any(
            e.gpu_platforms is None for e in clients.CLIENTS.values())
    except Exception:  # a file under edit: the draft says so
        return None, None, False


# Run by the release's Python: argv[1] is jaxlib_clients.py.
CLIENT_PROBE = r"""
import importlib.util, json, os, sys
os.environ["JAX_PLATFORMS"] = "cpu"
spec = importlib.util.spec_from_file_location("jaxlib_clients", sys.argv[1])
jaxlib_clients = importlib.util.module_from_spec(spec)
spec.loader.exec_module(jaxlib_clients)
out = {}
try:
    import jaxlib, jaxlib.version
    out["jaxlib"] = jaxlib.__version__
    out["git_hash"] = getattr(jaxlib.version, "_git_hash", None)
    from jax._src import xla_bridge
    c = xla_bridge.backends()["cpu"]
    t = type(c)
    out["client_class"] = "%s.%s" % (t.__module__, t.__name__)
    out["platform"] = c.platform
    out["platform_version"] = c.platform_version
    out["runtime_type"] = c.runtime_type
    out["members"] = [m for m in jaxlib_clients.KNOWN_MEMBERS
                      if hasattr(t, m)]
    out["known"] = list(jaxlib_clients.KNOWN_MEMBERS)
except Exception as e:
    out["error"] = "%s: %s" % (type(e).__name__, e)
print(json.dumps(out))
"""


def probe_client(version):
    try:
        proc = subprocess.run(
            [venv_python(version), "-c", CLIENT_PROBE,
             os.path.join(ROOT, CLIENTS_PY)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            timeout=300)
        return json.loads(proc.stdout.strip().splitlines()[-1])
    except (OSError, subprocess.SubprocessError, ValueError, IndexError) as e:
        return {"error": "%s: %s" % (type(e).__name__, e)}


def read_jaxlib_source(gitdir, commit):
    """What jaxlib/py_client.h and py_client.cc say at `commit`: the shim's
    platforms and lines, the members' binding lines, the XLA commit; None
    when they are not there."""
    tree = GitTree(gitdir, commit, commit)
    h, cc = tree.read("jaxlib/py_client.h"), tree.read("jaxlib/py_client.cc")
    if h is None or cc is None:
        return None
    hl = h.splitlines()
    start = next((i for i, l in enumerate(hl)
                  if re.search(r"\bplatform_name\(\) const \{", l)), None)
    if start is None:
        return None
    depth, end = 0, None
    for i in range(start, len(hl)):
        depth += hl[i].count("{") - hl[i].count("}")
        if depth == 0:
            end = i
            break
    body = "\n".join(hl[start:end + 1])
    gpu = re.findall(r'platform_name\(\) == "(\w+)"', body)
    cl = cc.splitlines()
    cls = next((i for i, l in enumerate(cl) if '"Client"' in l), 0)
    binding = []
    for m in ("platform", "platform_version", "runtime_type",
              "device_count", "local_device_count", "devices",
              "local_devices", "_get_all_devices", "process_index"):
        at = next((i + 1 for i in range(cls, len(cl))
                   if re.search(r'\.def(_prop_ro)?\(\s*"%s"' % m, cl[i])),
                  None)
        binding.append(at)
    # XLA_COMMIT: in workspace.bzl, or (later) in the revision.bzl it loads.
    ws = "".join(tree.read("third_party/xla/%s.bzl" % name) or ""
                 for name in ("workspace", "revision"))
    xm = re.search(r'XLA_COMMIT = "([0-9a-f]{40})"', ws)
    return {"gpu": gpu, "shim": (start + 1, end + 1), "binding": binding,
            "xla": xm.group(1) if xm else None}


def draft_clients(version, probe, jaxlib_src, entries, allows_unread,
                  base_entry):
    """The draft entry of jaxlib_clients.py (lines)."""
    known = probe.get("known") or []
    members = probe.get("members")
    if members is None:
        mem = "MEMBERS  # TODO: not read (%s)" % probe.get("error", "?")
    elif members == known:
        mem = "MEMBERS"
    else:
        mem = "(%s)" % ", ".join(repr(m) for m in members)
    lines = []
    if entries and version in entries:
        lines.append("# jaxlib_clients.CLIENTS already has an entry for %s; "
                     "this draft is read afresh, to compare." % version)
    if jaxlib_src:
        return lines + entry_read(version, probe, jaxlib_src, mem)
    return lines + entry_unread(version, probe, mem, allows_unread,
                                base_entry)


def entry_read(version, probe, jaxlib_src, mem):
    """The entry when jaxlib's C++ was read at the wheel's commit."""
    commit = probe.get("git_hash")
    gpu = tuple(jaxlib_src["gpu"])
    lines = [
        "# jaxlib %s: read at the wheel's commit %s (jaxlib/version.py "
        "_git_hash): the shim %s in jaxlib/py_client.h:%d-%d, the members' "
        "binding in jaxlib/py_client.cc; XLA %s (third_party/xla/"
        "workspace.bzl or revision.bzl). The real CPU client: platform %r, "
        "platform_version %r, runtime_type %r." % (
            version, (commit or "?")[:12], "/".join(gpu) + " -> 'gpu'",
            jaxlib_src["shim"][0], jaxlib_src["shim"][1],
            (jaxlib_src["xla"] or "not read")[:12],
            probe.get("platform"), probe.get("platform_version"),
            probe.get("runtime_type")),
        "CLIENTS[%r] = _jaxlib_entry(" % version,
        "    %r, %r," % (version, commit),
            "    %r, %s, %r," % (jaxlib_src["xla"],
                             GPU_NAMES.get(gpu, repr(gpu)),
                             tuple(jaxlib_src["shim"])),
        "    _binding(%s))" % ", ".join(
            "None" if b is None else str(b)
            for b in jaxlib_src["binding"]),
    ]
    if probe.get("platform_version") != "cpu" or probe.get(
            "runtime_type") != "pjrt_ifrt" or mem != "MEMBERS":
        lines.append("# TODO: _jaxlib_entry assumes platform_version "
                     "'cpu', runtime_type 'pjrt_ifrt' and every member; "
                     "the wheel says %r, %r, %s" % (
                         probe.get("platform_version"),
                         probe.get("runtime_type"), mem))
    return lines


def entry_unread(version, probe, mem, allows_unread, base_entry):
    """The entry when jaxlib's C++ was not read: what the wheel says."""
    commit = probe.get("git_hash")
    read_instead = (
        "the wheel's real CPU client (.platform %r, platform_version %r, "
        "runtime_type %r) and the members of its Client class %s by dir()"
        % (probe.get("platform"), probe.get("platform_version"),
           probe.get("runtime_type"), probe.get("client_class", "?")))
    if "error" in probe:
        read_instead = "nothing: the CPU client could not be read (%s)" % (
            probe["error"])
    if allows_unread:
        gpu = "None"
        gpu_note = ("`.platform` of a cuda, rocm or oneapi client is not "
                    "read and not guessed")
    else:
        gpu = repr(base_entry.gpu_platforms) if base_entry else "None"
        gpu_note = ("gpu_platforms is copied from the %s entry: TODO, not "
                    "read" % (base_entry.release if base_entry else "?"))
    return [
        "# jaxlib %s: its C++ source (py_client.h, py_client.cc) was not read"
        % version,
        "# (the wheel holds only the compiled extension, and no jax-ml/jax "
        "tree here",
        "# holds the wheel's commit %s): the `.platform` shim was NOT read."
        % ((commit or "?")[:12]),
        "# Read instead: %s." % read_instead,
        "CLIENTS[%r] = ClientEntry(" % version,
        "    release=%r, jax_commit=%r, xla_commit=None," % (version, commit),
        "    gpu_platforms=%s, cpu_platform_version=%r," % (
            gpu, probe.get("platform_version")),
        "    cpu_runtime_type=%r, members=%s," % (probe.get("runtime_type"),
                                                  mem),
        "    platform_source=None,",
        "    members_source=Source(\"PyPI\", \"jaxlib-%s wheel: %s Client "
        "(dir())\", None, None)," % (version, (probe.get("client_class")
                                               or "jaxlib").rsplit(".", 1)[0]
                                     .replace(".", "/")),
        "    note=\"py_client.h not read for this release (no source tree "
        "here holds its commit; the wheel holds the compiled extension "
        "only): %s; read instead: the wheel's real CPU client "
        "(platform_version, runtime_type) and its Client class's members "
        "(dir()).\")" % gpu_note,
    ]
