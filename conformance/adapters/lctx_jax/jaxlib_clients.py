"""What a real jaxlib Client reports, per jaxlib release.

jax_adapter.py stands a fake client in for a jaxlib Client (this machine has
no GPU or TPU). The house rule is that a stand-in behaves as the real one
does in the installed release, so the fake reads its answers from the entry
of this table for the installed jaxlib (`lookup(installed_version())`).

An entry holds what JAX reads of a client on the paths the adapter drives
(xla_bridge's `_init_backend`, `backends()`, `get_backend`, and a
ModuleContext's `get_backend`):

- `gpu_platforms`: the real platforms whose clients report `.platform` "gpu"
  (jaxlib's compatibility shim in `PyClient::platform_name`; every other
  client reports its real platform name);
- `cpu_platform_version`, `cpu_runtime_type`: what the CPU client reports as
  `.platform_version` and `.runtime_type` (test_jaxlib_clients.py checks them
  against a real CPU client; a fake client of another platform reports the
  CPU client's form, the only one observable here, and JAX reads
  `platform_version` only in `using_pjrt_c_api`, not on the paths driven);
- `members`: which of `KNOWN_MEMBERS` the Client class has (the others raise
  AttributeError on a real client, and so on a fake one).

Each entry cites jaxlib's source: `platform_source` for `.platform`,
`members_source` for the members, each a `Source` (repository, path, lines,
commit). From jaxlib 0.6 the Client's C++ is in jax-ml/jax's jaxlib/ (read
at the tag); before, it is in openxla/xla's xla/python/ at the XLA commit
the tag's third_party/xla/workspace.bzl pins, and the XLA files were not
readable at those commits here: what was read instead is said in `note`.

From jaxlib 0.11.1 on, py_client.h is in no source tree readable here (the
jax-ml/jax history available ends at the modelled commit, and the wheels
hold the compiled extension only): those entries leave `gpu_platforms`
unread (None), and say what was read instead (`note`): the real CPU client
of the installed wheel (`platform_version`, `runtime_type`, checked by
test_jaxlib_clients.py) and the Client class's members (`dir()` of
`jaxlib._jax.Client`). lctx does not offer those releases the cases whose
expected outcome depends on what the shim says (the spec table's fact
client-gpu is `unread` there: they are "not judged"); in the cases it does
offer, JAX may still read a GPU client's `.platform` (for a log line, or on
a path whose outcome is the same either way), and the fake then answers as
the modelled commit's jaxlib (STAND_IN_GPU_PLATFORMS), deciding no
verdict.

An unknown jaxlib release is refused (UnknownRelease), never guessed.
Standard library only; importing this module does not import JAX.
"""

import collections
import importlib

# The members of a jaxlib Client that JAX's xla_bridge reads on the paths
# the adapter drives (`_init_backend`: device_count, _get_all_devices from
# 0.5, platform, process_index, local_devices; `get_backend` and
# ModuleContext.get_backend: platform), and the few more a fake provides
# alongside (platform_version, runtime_type, local_device_count, devices).
KNOWN_MEMBERS = ("platform", "platform_version", "runtime_type",
                 "device_count", "local_device_count", "devices",
                 "local_devices", "_get_all_devices", "process_index")

Source = collections.namedtuple("Source", "repo path lines commit")


class ClientEntry(collections.namedtuple(
        "ClientEntry", "release jax_commit xla_commit gpu_platforms "
        "cpu_platform_version cpu_runtime_type members platform_source "
        "members_source note")):
    """One row of CLIENTS (see the module docstring)."""

    __slots__ = ()

    def platform(self, real_platform):
        """`.platform` of a client whose real platform is `real_platform`.
        Where the shim was not read (`gpu_platforms` None), a GPU client
        answers as the modelled commit's (STAND_IN_GPU_PLATFORMS): lctx
        offers such a release only the cases whose expected outcome is the
        same whatever the shim says (the others are "not judged"), so the
        value decides no verdict."""
        gpu = (STAND_IN_GPU_PLATFORMS if self.gpu_platforms is None
               else self.gpu_platforms)
        if real_platform in gpu:
            return "gpu"
        return real_platform


class UnknownRelease(Exception):
    """The installed jaxlib has no entry in CLIENTS."""




CUDA_ROCM = ("cuda", "rocm")
CUDA_ROCM_ONEAPI = ("cuda", "rocm", "oneapi")
# What a GPU client of an entry whose shim was not read answers: the
# modelled commit's shim (jaxlib/py_client.h:109-111 at cec06d116c05).
STAND_IN_GPU_PLATFORMS = CUDA_ROCM_ONEAPI
MEMBERS_BEFORE_0_5 = tuple(m for m in KNOWN_MEMBERS
                           if m != "_get_all_devices")
MEMBERS = KNOWN_MEMBERS

JAX = "jax-ml/jax"
XLA = "openxla/xla"
PYI = "xla/python/xla_extension/__init__.pyi"


def _jaxlib_entry(release, commit, xla_commit, gpu, shim_lines, binding):
    """An entry of a jaxlib whose Client C++ is in jax-ml/jax (0.6 on):
    the shim `PyClient::platform_name` in jaxlib/py_client.h and the Python
    binding of the members in jaxlib/py_client.cc (`binding`: member ->
    line)."""
    return ClientEntry(
        release=release, jax_commit=commit, xla_commit=xla_commit,
        gpu_platforms=gpu, cpu_platform_version="cpu",
        cpu_runtime_type="pjrt_ifrt", members=MEMBERS,
        platform_source=Source(JAX, "jaxlib/py_client.h", shim_lines, commit),
        members_source=Source(JAX, "jaxlib/py_client.cc", binding, commit),
        note="")



def _xla_entry(release, commit, xla_commit, binding, note):
    """An entry of a jaxlib before 0.5, whose Client C++ is in openxla/xla
    at `xla_commit`: the shim in xla/python/py_client.h (line not read) and
    the members in its PYI (`binding`, without _get_all_devices); its CPU
    client reports platform_version '<unknown>' and runtime_type 'tfrt'."""
    return ClientEntry(
        release=release, jax_commit=commit, xla_commit=xla_commit,
        gpu_platforms=CUDA_ROCM, cpu_platform_version="<unknown>",
        cpu_runtime_type="tfrt", members=MEMBERS_BEFORE_0_5,
        platform_source=Source(XLA, "xla/python/py_client.h", None,
                               xla_commit),
        members_source=Source(XLA, PYI, binding, xla_commit), note=note)


def _binding(platform, platform_version, runtime_type, device_count,
             local_device_count, devices, local_devices, get_all_devices,
             process_index):
    return collections.OrderedDict([
        ("platform", platform), ("platform_version", platform_version),
        ("runtime_type", runtime_type), ("device_count", device_count),
        ("local_device_count", local_device_count), ("devices", devices),
        ("local_devices", local_devices),
        ("_get_all_devices", get_all_devices),
        ("process_index", process_index)])


CLIENTS = collections.OrderedDict()

# jaxlib 0.4.20: tag jax-v0.4.20 pins XLA ca31652c (third_party/xla/
# workspace.bzl:23). `.platform` is PyClient::platform_name in
# xla/python/py_client.h at that commit; the Client members are those of its
# xla/python/xla_extension/__init__.pyi, shipped in the wheel as
# jaxlib/xla_extension/__init__.pyi (class Client at line 435). No
# _get_all_devices (JAX 0.4.20's _init_backend reads only device_count,
# xla_bridge.py:739).
CLIENTS["0.4.20"] = _xla_entry(
    "0.4.20", "e22b8bbc0ae3dffd538d2751a8dd0bbb6a00f240",
    "ca31652cdbeb6ea187589dea546ff8019274f8b2",
    _binding(436, 437, 438, 439, 440, 441, 442, None, 448),
    note="py_client.h not readable at ca31652c here (line unknown). The "
         "shim mapping cuda and rocm to 'gpu' (`if (ifrt_client_->"
         "platform_name() == \"cuda\" || ... == \"rocm\") return \"gpu\";`, "
         "'We changed the name PJRT reports for GPU platforms to cuda or "
         "rocm') is in every stored later version, and before it the GPU "
         "client reported 'gpu' itself; no version names oneapi.")

# jaxlib 0.4.30: tag jax-v0.4.30 pins XLA 79fd5733 (workspace.bzl:24).
CLIENTS["0.4.30"] = _xla_entry(
    "0.4.30", "f4158ace933482844c145a6b919bf5dc86e084ba",
    "79fd5733f99b3c0948d7202bc1bbe1ee3980da5c",
    _binding(481, 482, 483, 484, 485, 486, 487, None, 493),
    note="py_client.h not readable at 79fd5733 here (line unknown); the "
         "stored XLA versions of that period (nanobind, "
         "std::string_view platform_name) map cuda and rocm to 'gpu'.")

# jaxlib 0.5.3: tag jax-v0.5.3 pins XLA df971129 of 2025-03-18
# (workspace.bzl:24). PyClient moved from XLA into jax-ml/jax a week later
# (679ea6370b, 2025-03-25, "Migrate py_client to JAX"); the file as moved is
# what is cited for `.platform`.
CLIENTS["0.5.3"] = ClientEntry(
    release="0.5.3",
    jax_commit="c8032a9904eeb2410995425f817929f507fe22d5",
    xla_commit="df971129bd82e381954da0185b534220e21798a4",
    gpu_platforms=CUDA_ROCM, cpu_platform_version="cpu",
    cpu_runtime_type="pjrt_ifrt", members=MEMBERS,
    platform_source=Source(JAX, "jaxlib/xla/py_client.h", (99, 110),
                           "679ea6370b54818cb1ec3449924addc02a413a0b"),
    members_source=Source(XLA, PYI, _binding(536, 538, 539, 540, 541, 542,
                                             543, 544, 550),
                          "df971129bd82e381954da0185b534220e21798a4"),
    note="py_client.h not readable at df971129 here; cited as moved into "
         "jax-ml/jax at 679ea6370b (cuda and rocm map to 'gpu').")

# From 0.6 the Client's C++ is in jax-ml/jax: per release, the tag's jax and
# XLA commits, the platforms shown as "gpu", the lines of the shim in
# py_client.h and the lines of the members' binding in py_client.cc.
for _row in (
        ("0.6.2", "1ad05bb26105f23ee7728b36cca12901fe70e187",
         "3d5ece64321630dade7ff733ae1353fc3c83d9cc", CUDA_ROCM, (100, 111),
         (725, 727, 728, 729, 730, 731, 732, 735, 741)),
        ("0.7.2", "94233144f5469af28c065aa4263a6849338eeaa1",
         "0fccb8a6037019b20af2e502ba4b8f5e0f98c8f6", CUDA_ROCM, (101, 112),
         (758, 760, 761, 762, 763, 764, 765, 768, 774)),
        ("0.8.3", "2184c1ecb765eb5ab1063c1d59bd491f7f235542",
         "913ae2eaa3cb88971003592a90959685a78c9e30", CUDA_ROCM, (102, 113),
         (817, 819, 820, 821, 822, 823, 824, 827, 833)),
        ("0.9.2", "a659757d768587a81d095a9fab5f0c36f8beb218",
         "187a5eb58277a85847d1516bd1e20b7faf03d5ef", CUDA_ROCM, (102, 113),
         (842, 844, 845, 846, 847, 848, 849, 852, 858)),
        # 0.10.2: cuda and rocm only (py_client.h 107-108); oneapi reports
        # "oneapi".
        ("0.10.2", "990e6a0b84138346e6a38785412f36356e0e5dc3",
         "5a9e73cbd92530cac2ac36f4736a774b2412afe2", CUDA_ROCM, (102, 113),
         (805, 807, 824, 825, 826, 827, 828, 831, 837)),
        # 0.11.0: the shim gained oneapi (py_client.h 107-109).
        ("0.11.0", "a1521744c6dc074443fe549f19f48d7197abf759",
         "131bf41acb4650e4391a640c3f1859c1c86ad74b", CUDA_ROCM_ONEAPI,
         (102, 114), (819, 821, 838, 839, 840, 841, 842, 845, 851)),
        # The commit lctx's semantics sheet models (0.11.1 in development):
        # cuda, rocm and oneapi (py_client.h 109-111). No installed release
        # has this entry; lctx's own model follows it.
        ("modelled", "cec06d116c05f0d52adfceee3d3b730fdbcb0ce5",
         "753e5e56a0e465dbf7ee166573122564d83a1746", CUDA_ROCM_ONEAPI,
         (104, 116), (852, 854, 871, 872, 873, 874, 875, 878, 884))):
    CLIENTS[_row[0]] = _jaxlib_entry(*_row[:5], _binding(*_row[5]))
del _row

# From jaxlib 0.11.1 (released after the modelled commit): the Python side
# is read from each wheel, the shim is not (see the module docstring). The
# CPU client reports platform_version 'cpu' and runtime_type 'pjrt_ifrt' in
# each (read from the real client), and its Client class has every member
# of KNOWN_MEMBERS (dir(jaxlib._jax.Client); 0.11.2 on also has is_c_api,
# which xla_bridge.using_pjrt_c_api reads, off the paths driven).
for _release in ("0.11.1", "0.11.2", "0.12.0", "0.12.0.1", "0.12.1"):
    CLIENTS[_release] = ClientEntry(
        release=_release, jax_commit=None, xla_commit=None,
        gpu_platforms=None, cpu_platform_version="cpu",
        cpu_runtime_type="pjrt_ifrt", members=MEMBERS,
        platform_source=None,
        members_source=Source("PyPI", "jaxlib-%s wheel: jaxlib/_jax "
                              "Client (dir())" % _release, None, None),
        note="py_client.h not readable for this release (the jax-ml/jax "
             "history here ends at cec06d116c05, the wheel holds only the "
             "compiled _jax extension): `.platform` of a cuda, rocm or "
             "oneapi client is not read and not guessed; read instead: the "
             "wheel's real CPU client (platform_version, runtime_type) and "
             "its Client class's members.")
del _release


def installed_version():
    """The installed jaxlib's version (`jaxlib.__version__`, else
    `jax.lib.__version__`), or None when neither can be read."""
    for name in ("jaxlib", "jax.lib"):
        try:
            version = getattr(importlib.import_module(name), "__version__",
                              None)
        except Exception:
            continue
        if isinstance(version, str) and version:
            return version
    return None


def lookup(version):
    """The entry of jaxlib `version`; raises UnknownRelease, naming the
    releases the table knows, for any other (a dev build included)."""
    if version in CLIENTS and version != "modelled":
        return CLIENTS[version]
    known = ", ".join(v for v in CLIENTS if v != "modelled")
    raise UnknownRelease(
        "jaxlib %s has no entry in "
        "conformance/adapters/lctx_jax/jaxlib_clients.py "
        "(entries: %s); what its Client reports as .platform is not "
        "guessed: add an entry read from that release's jaxlib source"
        % (version if version else "(version unreadable)", known))


def describe(entry):
    """One line naming `entry` and its sources, for logs."""
    members = ("no _get_all_devices" if "_get_all_devices" not in
               entry.members else "all known members")
    p = entry.platform_source
    if p is None:
        return ("jaxlib %s client entry: .platform of cuda, rocm and oneapi "
                "clients NOT READ (the cases whose outcome depends on it are "
                "not judged; elsewhere the modelled commit's stands in); CPU "
                "platform_version %r; %s; read instead: the wheel's CPU "
                "client and Client members"
                % (entry.release, entry.cpu_platform_version, members))
    where = ("%s:%d-%d" % (p.path, p.lines[0], p.lines[1]) if p.lines
             else "%s (line not read)" % p.path)
    return ("jaxlib %s client entry: 'gpu' for %s; CPU platform_version %r; "
            "%s; .platform from %s@%s %s"
            % (entry.release, ", ".join(entry.gpu_platforms),
               entry.cpu_platform_version, members,
               p.repo, p.commit[:12], where))
