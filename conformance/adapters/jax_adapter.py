#!/usr/bin/env python3
"""lctx adapter for JAX itself: judge JAX's own backend selection.

This program speaks version 1 of the lctx process protocol
(conformance/PROTOCOL.md), like conformance/examples/python/lctx_example.py,
but instead of a model it drives JAX's own functions:

    jax._src.xla_bridge.backends()
    jax._src.xla_bridge.canonicalize_platform(name)
    jax._src.xla_bridge.get_backend(platform)
    jax._src.interpreters.mlir.ModuleContext.get_backend(optional)

For each case it puts a registry in place -- the case's backend factories
registered through JAX's `register_backend_factory`, returning fake clients;
the `jax_platforms`, `jax_platform_name` and `jax_xla_backend` config values;
NVIDIA GPU visibility -- then runs the case's operations and reports what JAX
returned or raised.  See conformance/adapters/README.md for what it patches
and its limitations.

    lctx conform --cmd "python3 conformance/adapters/jax_adapter.py"

When JAX cannot be imported it says so on stderr, answers the handshake with
{"protocol": 1, "error": "jax is not importable: ..."} and exits with status 3.
"""

import json
import logging
import sys
import types

PROTOCOL_VERSION = 1
ADAPTER_NAME = "jax"
OPERATIONS = ["backends", "canonicalize", "get_backend", "module_get_backend"]
EXIT_CANNOT_RUN = 3

# The JAX commit lctx's semantics sheet models; its backend-selection code is
# identical in the jax 0.11.0 release.
MODELLED_COMMIT = "cec06d116c05"
SUGGESTED_INSTALL = "pip install 'jax==0.11.0'"

# jaxlib reports this .platform for clients of these platforms.
GPU_PLATFORMS = ("cuda", "rocm", "oneapi")


def log(message):
    sys.stderr.write("jax_adapter: %s\n" % message)
    sys.stderr.flush()


def send(obj):
    sys.stdout.write(json.dumps(obj, ensure_ascii=True,
                                separators=(",", ":")) + "\n")
    sys.stdout.flush()


def read_message(stream):
    """The next JSON object, or None at end of input (blank lines skipped)."""
    while True:
        line = stream.readline()
        if not line:
            return None
        if line.strip():
            return json.loads(line)


# ---------------------------------------------------------------------------
# Importing JAX
# ---------------------------------------------------------------------------

class Jax:
    """The JAX modules the adapter drives."""

    def __init__(self):
        import jax
        from jax._src import hardware_utils
        from jax._src import xla_bridge
        from jax._src.interpreters import mlir
        self.jax = jax
        self.xb = xla_bridge
        self.mlir = mlir
        self.hardware_utils = hardware_utils
        self.version = getattr(jax, "__version__", "unknown")
        try:
            import jaxlib
            self.jaxlib_version = getattr(jaxlib, "__version__", "unknown")
        except Exception:
            self.jaxlib_version = "unknown"


def import_jax():
    """Returns (Jax, None) or (None, why)."""
    try:
        return Jax(), None
    except ImportError as err:
        missing = getattr(err, "name", None)
        why = "%s: %s" % (type(err).__name__, err)
        if missing:
            top = missing.split(".")[0]
            log("cannot import jax: the Python package %r is missing (%s)."
                % (top, err))
        else:
            log("cannot import jax: %s" % why)
        log("install JAX matching the modelled commit %s, for example: %s "
            "(this also installs jaxlib), then run this adapter with the same "
            "python3." % (MODELLED_COMMIT, SUGGESTED_INSTALL))
        return None, why
    except Exception as err:  # e.g. a jax/jaxlib version mismatch
        why = "%s: %s" % (type(err).__name__, err)
        log("importing jax failed: %s" % why)
        log("install matching jax and jaxlib, for example: %s"
            % SUGGESTED_INSTALL)
        return None, why


# ---------------------------------------------------------------------------
# Fake clients
# ---------------------------------------------------------------------------

class FakeDevice:
    def __init__(self, client, device_id):
        self.client = client
        self.id = device_id
        self.process_index = 0

    @property
    def platform(self):
        return self.client.platform

    def __repr__(self):
        return "FakeDevice(%s, %d)" % (self.client.real_platform, self.id)


class FakeClient:
    """Stands in for a jaxlib Client.

    `.platform` follows jaxlib's compatibility shim: 'gpu' for cuda, rocm and
    oneapi clients, the real platform otherwise.  `origin` ('registry' or
    'pinned') and `registration` identify the client in outcomes.

    JAX reads only a few members of a client on the paths driven here
    (`_init_backend`: device_count, _get_all_devices, platform,
    process_index, local_devices).  Any other attribute JAX asks for is
    recorded in `problems`: the case is then reported as an adapter error
    rather than as JAX's behaviour, because JAX's `except Exception` in
    backends() would otherwise turn the AttributeError into a backend
    failure message.
    """

    def __init__(self, real_platform, origin, registration, has_devices,
                 problems):
        self.real_platform = real_platform
        self.origin = origin
        self.registration = registration
        self._problems = problems
        self._devices = [FakeDevice(self, 0)] if has_devices else []

    @property
    def platform(self):
        if self.real_platform in GPU_PLATFORMS:
            return "gpu"
        return self.real_platform

    platform_version = "lctx fake client"
    runtime_type = "lctx"

    def device_count(self):
        return len(self._devices)

    def local_device_count(self):
        return len(self._devices)

    def _get_all_devices(self):
        return list(self._devices)

    def devices(self):
        return list(self._devices)

    def local_devices(self):
        return list(self._devices)

    def process_index(self):
        return 0

    def __getattr__(self, name):
        # Only called for attributes not defined above.
        if not (name.startswith("__") and name.endswith("__")):
            self._problems.append("JAX read FakeClient.%s, which the adapter "
                                  "does not provide" % name)
        raise AttributeError(name)

    def __repr__(self):
        return "FakeClient(%r, %s, %r)" % (self.real_platform, self.origin,
                                           self.registration)


# ---------------------------------------------------------------------------
# Putting a case's registry in place
# ---------------------------------------------------------------------------

class CaseFormatError(Exception):
    pass


def _str_or_unset(obj, key, what):
    value = obj.get(key)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise CaseFormatError("%s: %r is not a string" % (what, key))
    return value


class Driver:
    """Installs the patches once, then sets up and runs one case at a time."""

    def __init__(self, j):
        self.j = j
        xb = j.xb
        self.problems = []
        # Per backends() run: how many times each factory has been called.
        self.calls = {}
        # The registration list of the current case (platform names in
        # order), to map a factory call to its registration index.
        self.registration_names = []
        self.jax_platforms_mode = False

        # Keep JAX's own warnings (missing-plugin suggestions, experimental
        # plugins) out of the run's log.
        logging.getLogger(xb.__name__).setLevel(logging.ERROR)

        # No plugin discovery: plugins found on this machine would add
        # factories and could import or load native code.
        xb._plugins_registered = True
        xb._discover_and_register_pjrt_plugins = lambda: None

        # No hardware probing: NVIDIA visibility comes from the case, and the
        # TPU probe used for suggestions after initialization reports none.
        j.hardware_utils.num_available_tpu_chips_and_device_id = (
            lambda: (0, None))
        self.nvidia_gpu_visible = False
        j.hardware_utils.has_visible_nvidia_gpu = (
            lambda: self.nvidia_gpu_visible)

        # Wrap backends() to know when an initialization run starts (it is
        # looked up as a module global, so JAX's own callers go through the
        # wrapper too).  The wrapper only resets the adapter's call counters
        # and calls JAX's function.
        original_backends = xb.backends

        def backends():
            self.calls = {}
            return original_backends()

        backends.__wrapped__ = original_backends
        xb.backends = backends

    # -- config --------------------------------------------------------------

    def _set_config(self, name, value):
        try:
            self.j.jax.config.update(name, value)
        except AttributeError:
            # A flag missing from jax.config (jax_xla_backend is deprecated):
            # set JAX's holder directly.
            holder = {"jax_xla_backend": "_XLA_BACKEND",
                      "jax_platform_name": "_PLATFORM_NAME"}.get(name)
            if holder is None or not hasattr(self.j.xb, holder):
                raise
            getattr(self.j.xb, holder)._set(value)

    # -- factories -----------------------------------------------------------

    def _registration_index(self, name):
        """Which registration is calling the factory for `name` now.

        Default mode: the factory's position in the registration order.
        jax_platforms mode: JAX initializes the expanded list in order and
        calls a name's factory once for each of its entries (a skipped cuda
        calls nothing), so the k-th call of `name` in one backends() run is
        the k-th entry for `name`.
        """
        k = self.calls.get(name, 0)
        self.calls[name] = k + 1
        positions = [i for i, n in enumerate(self.registration_names)
                     if n == name]
        if not positions:
            self.problems.append("factory %r called but not registered" % name)
            return -1
        return positions[k % len(positions)]

    def _make_factory(self, name, behaviour, message):
        def factory():
            index = self._registration_index(name)
            if behaviour == "raises":
                raise RuntimeError(message)
            if behaviour == "none":
                return None
            return FakeClient(name, "registry", index,
                              behaviour == "client", self.problems)
        return factory

    def setup(self, case):
        """Puts the case's registry and configuration in place."""
        xb = self.j.xb
        if not isinstance(case, dict):
            raise CaseFormatError("case is not a JSON object")
        factories = case.get("factories")
        if not isinstance(factories, list):
            raise CaseFormatError("case: 'factories' is not a list")
        visible = case.get("nvidia_gpu_visible", False)
        if not isinstance(visible, bool):
            raise CaseFormatError("case: 'nvidia_gpu_visible' is not a bool")
        jax_platforms = _str_or_unset(case, "jax_platforms", "case")
        platform_name = _str_or_unset(case, "jax_platform_name", "case")
        xla_backend = _str_or_unset(case, "jax_xla_backend", "case")

        self.problems[:] = []
        self.calls = {}

        # A fresh registry: no initialized backends, no recorded failures, no
        # default, nothing cached by get_backend, no factories.
        xb._clear_backends()
        xb.get_backend.cache_clear()
        xb._backend_factories.clear()

        names = []
        for i, f in enumerate(factories):
            what = "factory %d" % i
            if not isinstance(f, dict):
                raise CaseFormatError("%s is not a JSON object" % what)
            name = f.get("name")
            priority = f.get("priority")
            quiet = f.get("fail_quietly")
            behaviour = f.get("behaviour")
            if not isinstance(name, str):
                raise CaseFormatError("%s: bad name" % what)
            if not isinstance(priority, int) or isinstance(priority, bool):
                raise CaseFormatError("%s: bad priority" % what)
            if not isinstance(quiet, bool):
                raise CaseFormatError("%s: bad fail_quietly" % what)
            if behaviour not in ("client", "raises", "none", "no_devices"):
                raise CaseFormatError("%s: bad behaviour %r" % (what, behaviour))
            message = _str_or_unset(f, "message", what)
            xb.register_backend_factory(
                name, self._make_factory(name, behaviour, message),
                priority=priority, fail_quietly=quiet)
            if name not in names:
                names.append(name)

        self._set_config("jax_platforms", jax_platforms or None)
        self._set_config("jax_platform_name", platform_name)
        self._set_config("jax_xla_backend", xla_backend)
        self.nvidia_gpu_visible = visible

        # Registration indices (PROTOCOL.md): the factory's position in
        # default mode, the position in the expanded jax_platforms list
        # otherwise -- expanded with JAX's own alias function.
        if jax_platforms:
            self.registration_names = []
            for entry in jax_platforms.split(","):
                self.registration_names.extend(xb.expand_platform_alias(entry))
        else:
            self.registration_names = list(xb._backend_factories)

    # -- operations ----------------------------------------------------------

    def client_outcome(self, client):
        if not isinstance(client, FakeClient):
            raise TypeError("JAX returned %r, not one of the case's clients"
                            % (client,))
        if client.origin == "pinned":
            return {"kind": "client", "origin": "pinned",
                    "platform": client.real_platform}
        return {"kind": "client", "origin": "registry",
                "registration": client.registration,
                "platform": client.real_platform}

    def value_outcome(self, value):
        if value is None:
            return {"kind": "none"}
        if isinstance(value, str):
            return {"kind": "string", "value": value}
        return self.client_outcome(value)

    def run_operation(self, op, index):
        xb = self.j.xb
        what = "operation %d" % index
        if not isinstance(op, dict):
            raise CaseFormatError("%s is not a JSON object" % what)
        kind = op.get("op")
        if kind == "backends":
            call = xb.backends
            wrap = lambda bs: {"kind": "platforms",  # noqa: E731
                               "value": repr(list(bs))}
        elif kind == "canonicalize":
            name = op.get("name")
            if not isinstance(name, str):
                raise CaseFormatError("%s: bad name" % what)
            call = lambda: xb.canonicalize_platform(name)  # noqa: E731
            wrap = self.value_outcome
        elif kind == "get_backend":
            platform = op.get("platform")
            if platform is not None and not isinstance(platform, str):
                raise CaseFormatError("%s: bad platform" % what)
            call = lambda: xb.get_backend(platform)  # noqa: E731
            wrap = self.value_outcome
        elif kind == "module_get_backend":
            platforms = op.get("platforms")
            backend = op.get("backend")
            optional = op.get("optional")
            if (not isinstance(platforms, list)
                    or not all(isinstance(p, str) for p in platforms)):
                raise CaseFormatError("%s: bad platforms" % what)
            if backend is not None and not isinstance(backend, str):
                raise CaseFormatError("%s: bad backend" % what)
            if not isinstance(optional, bool):
                raise CaseFormatError("%s: bad optional" % what)
            pinned = (None if backend is None else
                      FakeClient(backend, "pinned", None, True, self.problems))
            # What get_backend reads of a ModuleContext: the platforms, held
            # as a tuple on the normal lowering path, and the pinned backend.
            # Building a real ModuleContext needs an MLIR context; the method
            # is called unbound on a namespace with just these two fields.
            ctx = types.SimpleNamespace(platforms=tuple(platforms),
                                        backend=pinned)
            method = self.j.mlir.ModuleContext.get_backend
            call = lambda: method(ctx, optional=optional)  # noqa: E731
            wrap = self.value_outcome
        else:
            raise CaseFormatError("%s: unknown op %r" % (what, kind))

        try:
            value = call()
        except Exception as err:
            outcome = {"kind": "raise", "class": type(err).__name__,
                       "message": str(err)}
        else:
            outcome = wrap(value)
        if self.problems:
            raise RuntimeError("; ".join(self.problems))
        return outcome

    def run_case(self, case):
        try:
            self.setup(case)
            ops = case.get("operations")
            if not isinstance(ops, list):
                raise CaseFormatError("case: 'operations' is not a list")
            return {"outcomes": [self.run_operation(op, i)
                                 for i, op in enumerate(ops)]}
        except Exception as err:
            return {"error": "adapter: %s: %s" % (type(err).__name__, err)}


# ---------------------------------------------------------------------------
# The protocol loop
# ---------------------------------------------------------------------------

def main():
    stdin = sys.stdin.buffer
    j, why = import_jax()
    if j is None:
        try:
            hello = read_message(stdin)
        except ValueError:
            hello = None
        if hello is not None:
            send({"protocol": PROTOCOL_VERSION,
                  "error": "jax is not importable: %s" % why})
        return EXIT_CANNOT_RUN

    try:
        hello = read_message(stdin)
    except ValueError as err:
        log("handshake is not JSON: %s" % err)
        return 2
    if hello is None:
        return 0
    if not isinstance(hello, dict) or hello.get("lctx") != "hello":
        send({"protocol": PROTOCOL_VERSION,
              "error": "expected the lctx hello, got %r" % (hello,)})
        return 2
    if hello.get("protocol") != PROTOCOL_VERSION:
        send({"protocol": PROTOCOL_VERSION,
              "error": "this adapter speaks protocol %d only, lctx offered %r"
                       % (PROTOCOL_VERSION, hello.get("protocol"))})
        return 2
    if sys.flags.optimize:
        # JAX's own `assert`s (the registry without a default) are part of
        # the behaviour under test; -O removes them.
        send({"protocol": PROTOCOL_VERSION,
              "error": "python3 runs with -O (or PYTHONOPTIMIZE), which strips "
                       "JAX's asserts; run the adapter without it"})
        return EXIT_CANNOT_RUN
    try:
        driver = Driver(j)
    except Exception as err:
        send({"protocol": PROTOCOL_VERSION,
              "error": "cannot patch this JAX (%s): %s: %s"
                       % (j.version, type(err).__name__, err)})
        return EXIT_CANNOT_RUN
    send({"protocol": PROTOCOL_VERSION, "name": ADAPTER_NAME,
          "version": "%s (jaxlib %s)" % (j.version, j.jaxlib_version),
          "operations": OPERATIONS})

    while True:
        try:
            request = read_message(stdin)
        except ValueError as err:
            log("request is not JSON: %s" % err)
            return 2
        if request is None:
            return 0
        if isinstance(request, dict) and request.get("lctx") == "bye":
            return 0
        if (not isinstance(request, dict) or "id" not in request
                or not isinstance(request.get("cases"), list)):
            log("not a request: %r" % (request,))
            return 2
        send({"id": request["id"],
              "results": [driver.run_case(case) for case in request["cases"]]})


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (BrokenPipeError, KeyboardInterrupt):
        sys.exit(1)
