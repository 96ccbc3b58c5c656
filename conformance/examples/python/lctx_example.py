#!/usr/bin/env python3
"""A complete lctx runtime in Python: JAX backend selection, modelled.

This program is the template for runtime authors.  It implements the
behaviour that lctx judges -- JAX's registry initialization, platform
canonicalization, ``xla_bridge.get_backend`` and ``ModuleContext.get_backend``
(docs/semantics.md, sections 2 to 5, with the Python formatting rules of
section 8) -- and speaks version 1 of the lctx process protocol
(conformance/PROTOCOL.md) over stdin and stdout:

    lctx conform --cmd "python3 conformance/examples/python/lctx_example.py"

It uses the standard library only and runs on Python 3.9 or later.

The file has two halves:

* THE MODEL: ``Client``, ``Registry`` (with ``backends``,
  ``canonicalize_platform`` and ``get_backend``) and ``ModuleContext``
  (with ``get_backend``).  Errors are real Python exceptions of the classes
  JAX raises; Python's own ``repr`` produces the list and string reprs that
  section 8 describes, so the messages come out byte for byte.
* THE PROTOCOL: reading a case from its JSON form, running its operations,
  turning results and exceptions into outcomes, and the request loop.

To adapt it to another runtime, replace the model and keep the protocol half.
"""

import json
import os
import sys

PROTOCOL_VERSION = 1
PROGRAM_NAME = "lctx-python-example"
PROGRAM_VERSION = "1.0.0"
OPERATIONS = ["backends", "canonicalize", "get_backend", "module_get_backend"]

# ---------------------------------------------------------------------------
# THE MODEL
# ---------------------------------------------------------------------------

# Section 1, alias table: exactly one alias, 'gpu', standing for these
# platforms in this order.  The order matters: canonicalize_platform('gpu')
# picks the first of them that is initialized (section 3).
GPU_PLATFORMS = ("cuda", "rocm", "oneapi")
PLATFORM_ALIASES = {"gpu": GPU_PLATFORMS}

# Section 2, step 2: the best priority "so far" starts here; a client must
# beat it strictly to become the default.
INITIAL_DEFAULT_PRIORITY = -1000

# Section 2, step 2: the hint appended to a loud failure.
HINT_JAX_PLATFORMS_SET = (
    " (set JAX_PLATFORMS='' to automatically choose an available backend)")
HINT_JAX_PLATFORMS_UNSET = (
    " (you may need to uninstall the failing plugin package, or set "
    "JAX_PLATFORMS=cpu to skip this backend.)")

# Section 5, M1 (no final period).
MSG_MULTI_LOWERING = (
    "accessing .backend in multi-lowering setting. This can occur when "
    "lowering a primitive that has not been adapted to multi-platform "
    "lowering")


def expand_platform_alias(name):
    """Section 2, step 1: 'gpu' becomes cuda, rocm, oneapi; anything else
    (including 'GPU', ' gpu' or '') stays itself."""
    return list(PLATFORM_ALIASES.get(name, (name,)))


class Client:
    """A backend client (section 1).

    ``real_platform`` is the name the client was made for.  ``platform`` is
    what JAX code reads: jaxlib reports 'gpu' for cuda, rocm and oneapi
    clients (a compatibility shim), and the real name otherwise.

    ``origin`` and ``registration`` exist only so that the protocol can say
    which client came back: 'registry' clients carry the index of the
    registration that created them, the 'pinned' client of a module carries
    none.
    """

    def __init__(self, real_platform, origin, registration=None,
                 has_devices=True):
        self.real_platform = real_platform
        self.origin = origin
        self.registration = registration
        self.has_devices = has_devices

    @property
    def platform(self):
        if self.real_platform in GPU_PLATFORMS:
            return "gpu"
        return self.real_platform

    def device_count(self):
        return 1 if self.has_devices else 0

    def __repr__(self):
        return "Client(%r, %s, %r)" % (self.real_platform, self.origin,
                                       self.registration)


class BackendFactory:
    """A registered backend factory (section 1).

    ``behaviour`` is what calling it does: 'client' returns a client with
    devices, 'raises' raises RuntimeError(message), 'none' returns None,
    'no_devices' returns a client without devices.
    """

    BEHAVIOURS = ("client", "raises", "none", "no_devices")

    def __init__(self, name, priority, fail_quietly, behaviour, message=""):
        if behaviour not in self.BEHAVIOURS:
            raise ValueError("unknown behaviour %r" % (behaviour,))
        self.name = name
        self.priority = priority
        self.fail_quietly = fail_quietly
        self.behaviour = behaviour
        self.message = message

    def __call__(self, registration_index):
        """Calls the factory.  ``registration_index`` is only recorded in the
        client, for the protocol's client identity."""
        if self.behaviour == "raises":
            raise RuntimeError(self.message)
        if self.behaviour == "none":
            return None
        return Client(self.name, "registry", registration_index,
                      has_devices=(self.behaviour == "client"))


class Registry:
    """The backend registry of one process: factories, configuration, and
    the lazily initialized state (section 1, "Initialized registry").

    Unlike JAX, which keeps this in module globals, the model keeps it in an
    object, so that each case gets a fresh one.
    """

    def __init__(self, jax_platforms="", jax_platform_name="",
                 jax_xla_backend="", nvidia_gpu_visible=False):
        # Configuration (section 2 inputs, section 4 step 1 fallbacks).
        # Absent and "" both mean unset.
        self.jax_platforms = jax_platforms or ""
        self.jax_platform_name = jax_platform_name or ""
        self.jax_xla_backend = jax_xla_backend or ""
        self.nvidia_gpu_visible = bool(nvidia_gpu_visible)

        # Registered factories, in registration order (a dict keeps it).
        self._factories = {}

        # Initialized state.  _backends stays empty until an initialization
        # stores a client; after that backends() returns it as it is, even
        # when the initialization that filled it failed later (the partial
        # registry, section 2).
        self._backends = {}          # platform -> Client, registry order
        self._backend_errors = {}    # platform -> message of a quiet failure
        self._default_backend = None

        # Section 4, step 5: get_backend caches successes by raw argument.
        self._get_backend_cache = {}

    # -- registration ------------------------------------------------------

    def register_backend_factory(self, name, behaviour, message="", *,
                                 priority=0, fail_quietly=True):
        """Section 2, details: fail_quietly defaults to True when omitted.
        Re-registering a name keeps its first position in the order and
        replaces priority, fail_quietly and behaviour (a dict assignment to
        an existing key does exactly that)."""
        if name in self._backends:
            raise RuntimeError("Backend %s already initialized" % (name,))
        self._factories[name] = BackendFactory(name, priority, fail_quietly,
                                               behaviour, message)

    # -- section 2: backends() ---------------------------------------------

    def _registrations(self):
        """Section 2, step 1: the (platform, priority, fail_quietly) list."""
        if self.jax_platforms:
            # Split on ',' and nothing else: no trimming, empty entries kept.
            platforms = []
            for entry in self.jax_platforms.split(","):
                platforms.extend(expand_platform_alias(entry))
            # Priorities N, N-1, ..., 1 in list order; all fail loudly.
            n = len(platforms)
            return [(p, n - i, False) for i, p in enumerate(platforms)]
        return [(f.name, f.priority, f.fail_quietly)
                for f in self._factories.values()]

    def _init_backend(self, platform, registration_index):
        """Section 2, step 2, "Initialize": returns a client or raises."""
        factory = self._factories.get(platform)
        if factory is None:
            # {names}: the Python list repr of the registered factory names,
            # in registration order (section 8: repr() is the spec).
            raise RuntimeError(
                "Backend '%s' is not in the list of known backends: %s."
                % (platform, repr(list(self._factories))))
        client = factory(registration_index)
        if client is None:
            raise RuntimeError("Could not initialize backend '%s'" % platform)
        if client.device_count() == 0:
            raise RuntimeError("Backend '%s' provides no devices." % platform)
        return client

    def backends(self):
        """Section 2: initialize lazily, return the platform -> client map.

        A later call returns the registry as soon as it holds any client,
        so a failure after some successes leaves a partial registry that
        every later operation sees without error.
        """
        if self._backends:
            return self._backends

        default_priority = INITIAL_DEFAULT_PRIORITY
        for index, (platform, priority, fail_quietly) in enumerate(
                self._registrations()):
            # cuda without a visible NVIDIA GPU: skipped silently, neither
            # initialized nor failed (also when named in jax_platforms).
            if platform == "cuda" and not self.nvidia_gpu_visible:
                continue
            try:
                client = self._init_backend(platform, index)
            except Exception as err:  # what JAX catches, too
                if fail_quietly:
                    self._backend_errors[platform] = str(err)
                    continue
                message = "Unable to initialize backend '%s': %s" % (
                    platform, err)
                if self.jax_platforms:
                    message += HINT_JAX_PLATFORMS_SET
                else:
                    message += HINT_JAX_PLATFORMS_UNSET
                # Clients stored so far stay: the partial registry.
                raise RuntimeError(message) from None
            # A repeated platform replaces the stored client; the dict keeps
            # the key's first position.
            self._backends[platform] = client
            # Strictly greater: ties keep the earlier client, and a priority
            # of -1000 or lower never becomes the default.
            if priority > default_priority:
                self._default_backend = client
                default_priority = priority

        # Step 3: no default chosen.  An explicit raise rather than `assert`,
        # so that `python3 -O` does not change the behaviour.
        if self._default_backend is None:
            raise AssertionError()
        return self._backends

    # -- section 3: canonicalize_platform(name) ----------------------------

    def canonicalize_platform(self, name):
        """Anything but exactly 'gpu' comes back unchanged, registry
        untouched.  'gpu' initializes the registry (errors propagate) and
        resolves to the first of cuda, rocm, oneapi that is initialized."""
        candidates = PLATFORM_ALIASES.get(name)
        if candidates is None:
            return name
        initialized = self.backends()
        for platform in candidates:
            if platform in initialized:
                return platform
        raise RuntimeError(
            "Unknown backend: '%s' requested, but no platforms that are "
            "instances of %s are present. Platforms present are: %s"
            % (name, name, ",".join(initialized)))

    # -- section 4: xla_bridge.get_backend(platform) -----------------------

    def get_backend(self, platform=None):
        """Step 5: successes are cached by the raw argument (None and ''
        are different keys), failures are not."""
        cached = self._get_backend_cache.get(platform)
        if cached is not None:
            return cached
        client = self._get_backend_uncached(platform)
        self._get_backend_cache[platform] = client
        return client

    def _get_backend_uncached(self, platform):
        # Step 1: None or '' falls back to the config values, else None.
        platform = (platform or self.jax_xla_backend
                    or self.jax_platform_name or None)
        # Step 2: initialize (errors propagate).
        initialized = self.backends()
        # Step 3: the default client, or a bare AssertionError when a
        # partial registry has none.
        if platform is None:
            if self._default_backend is None:
                raise AssertionError()
            return self._default_backend
        # Step 4: canonicalize (errors propagate), then look up.
        platform = self.canonicalize_platform(platform)
        client = initialized.get(platform)
        if client is not None:
            return client
        available = repr(list(initialized))
        if platform in self._backend_errors:
            # Literal text: a message ending in '.' gives '..'.
            raise RuntimeError(
                "Backend '%s' failed to initialize: %s. Available backends "
                "are %s" % (platform, self._backend_errors[platform],
                            available))
        raise RuntimeError("Unknown backend %s. Available backends are %s"
                           % (platform, available))


class ModuleContext:
    """Section 5: the module-wide lowering context, reduced to what
    ``get_backend`` reads: the lowering platforms (a tuple, as on the normal
    lowering path) and an optional pinned backend client."""

    def __init__(self, registry, platforms, backend=None):
        self.registry = registry
        self.platforms = tuple(platforms)
        self.backend = backend

    def get_backend(self, optional=False):
        # B1: more than one platform (duplicates count).  Never looks at
        # the backend or the registry.
        if len(self.platforms) > 1:
            if optional:
                return None
            raise NotImplementedError(MSG_MULTI_LOWERING)
        if self.backend is not None:
            # B2: canonicalize the pinned client's .platform first (a 'gpu'
            # client initializes the registry and may raise, optional or
            # not), then compare with platforms[0] -- which raises IndexError
            # 'tuple index out of range' for zero platforms.
            backend_platform = self.registry.canonicalize_platform(
                self.backend.platform)
            if backend_platform != self.platforms[0]:
                # B2a
                if optional:
                    return None
                raise ValueError(
                    "the platform for the specified backend %s is different "
                    "from the lowering platform %s"
                    % (backend_platform, self.platforms[0]))
            # B2b: the pinned client itself, never the registry's.
            return self.backend
        # B3: errors are not suppressed by optional; zero platforms raise
        # IndexError here too.
        return self.registry.get_backend(self.platforms[0])


# The exception classes the model raises on purpose.  An operation that
# raises one of them has a "raise" outcome; anything else is an internal
# failure of this program, reported as the case's {"error": ...}.
# (NotImplementedError is a subclass of RuntimeError; listed for clarity.)
MODELLED_ERRORS = (RuntimeError, NotImplementedError, ValueError,
                   AssertionError, IndexError)

# ---------------------------------------------------------------------------
# THE PROTOCOL
# ---------------------------------------------------------------------------


class CaseFormatError(Exception):
    """A case whose JSON form this program cannot read."""


def _field(obj, key, types, what):
    """A required field whose JSON type is one of `types` (exact Python
    types: json gives bool for true/false, never an int subclass)."""
    try:
        value = obj[key]
    except (KeyError, TypeError):
        raise CaseFormatError("%s has no %r" % (what, key)) from None
    if type(value) not in types:
        raise CaseFormatError("%s: %r has the wrong type (%s)"
                              % (what, key, type(value).__name__))
    return value


def _optional_str(obj, key, what):
    """A config string: absent, null and "" all mean unset."""
    value = obj.get(key)
    if value is None:
        return ""
    if type(value) is not str:
        raise CaseFormatError("%s: %r is not a string" % (what, key))
    return value


def _optional_bool(obj, key, what):
    """A flag: absent means false."""
    value = obj.get(key, False)
    if not isinstance(value, bool):
        raise CaseFormatError("%s: %r is not true or false" % (what, key))
    return value


def _nullable_str(obj, key, what):
    """An argument that is a string or null (absent means null)."""
    value = obj.get(key)
    if value is not None and not isinstance(value, str):
        raise CaseFormatError("%s: %r is not a string or null" % (what, key))
    return value


def registry_from_case(case):
    """Builds a fresh registry from a case's JSON form."""
    registry = Registry(
        jax_platforms=_optional_str(case, "jax_platforms", "case"),
        jax_platform_name=_optional_str(case, "jax_platform_name", "case"),
        jax_xla_backend=_optional_str(case, "jax_xla_backend", "case"),
        nvidia_gpu_visible=_optional_bool(case, "nvidia_gpu_visible", "case"))
    for i, f in enumerate(_field(case, "factories", (list,), "case")):
        what = "factory %d" % i
        if type(f) is not dict:
            raise CaseFormatError("%s is not a JSON object" % what)
        behaviour = _field(f, "behaviour", (str,), what)
        if behaviour not in BackendFactory.BEHAVIOURS:
            raise CaseFormatError("%s: unknown behaviour %r" % (what, behaviour))
        registry.register_backend_factory(
            _field(f, "name", (str,), what), behaviour,
            _optional_str(f, "message", what),
            priority=_field(f, "priority", (int,), what),
            fail_quietly=_field(f, "fail_quietly", (bool,), what))
    return registry


def client_outcome(client):
    if client.origin == "pinned":
        return {"kind": "client", "origin": "pinned",
                "platform": client.real_platform}
    return {"kind": "client", "origin": "registry",
            "registration": client.registration,
            "platform": client.real_platform}


def result_outcome(value):
    """Turns an operation's return value into an outcome."""
    if value is None:
        return {"kind": "none"}
    if isinstance(value, str):
        return {"kind": "string", "value": value}
    if isinstance(value, Client):
        return client_outcome(value)
    raise TypeError("operation returned %r" % (value,))


def run_operation(registry, op, index):
    """Runs one operation; returns its outcome."""
    what = "operation %d" % index
    if type(op) is not dict:
        raise CaseFormatError("%s is not a JSON object" % what)
    kind = _field(op, "op", (str,), what)
    # Read the arguments before running anything, so that a malformed
    # operation is a format error, never an outcome.
    if kind == "backends":
        call = lambda: repr(list(registry.backends()))  # noqa: E731
        wrap = lambda v: {"kind": "platforms", "value": v}  # noqa: E731
    elif kind == "canonicalize":
        name = _field(op, "name", (str,), what)
        call = lambda: registry.canonicalize_platform(name)  # noqa: E731
        wrap = result_outcome
    elif kind == "get_backend":
        platform = _nullable_str(op, "platform", what)
        call = lambda: registry.get_backend(platform)  # noqa: E731
        wrap = result_outcome
    elif kind == "module_get_backend":
        platforms = _field(op, "platforms", (list,), what)
        if not all(isinstance(p, str) for p in platforms):
            raise CaseFormatError("%s: a platform is not a string" % what)
        backend = _nullable_str(op, "backend", what)
        optional = _field(op, "optional", (bool,), what)
        pinned = None if backend is None else Client(backend, "pinned")
        ctx = ModuleContext(registry, platforms, pinned)
        call = lambda: ctx.get_backend(optional=optional)  # noqa: E731
        wrap = result_outcome
    else:
        raise CaseFormatError("%s: unknown op %r" % (what, kind))
    try:
        value = call()
    except MODELLED_ERRORS as err:
        return {"kind": "raise", "class": type(err).__name__,
                "message": str(err)}
    return wrap(value)


def run_case(case):
    """Runs one case against a fresh registry; returns its result."""
    try:
        if type(case) is not dict:
            raise CaseFormatError("the case is not a JSON object")
        registry = registry_from_case(case)
        ops = _field(case, "operations", (list,), "case")
        return {"outcomes": [run_operation(registry, op, i)
                             for i, op in enumerate(ops)]}
    except Exception as err:  # internal failure: this case only
        return {"error": "%s: %s" % (type(err).__name__, err)}


def send(obj):
    # ASCII-only JSON (non-ASCII is \u-escaped), one line, flushed at once.
    sys.stdout.write(json.dumps(obj, ensure_ascii=True,
                                separators=(",", ":")) + "\n")
    sys.stdout.flush()


def log(message):
    # Prefixed with the running program's name: lctx_example, or a program
    # that imports this protocol half (conformance/adapters/jax_adapter.py).
    name = os.path.splitext(os.path.basename(sys.argv[0] if sys.argv else ""))
    sys.stderr.write("%s: %s\n" % (name[0] or "lctx_example", message))
    sys.stderr.flush()


def read_message(stream):
    """Returns the next JSON object, or None at end of input.  Blank lines
    are skipped."""
    while True:
        line = stream.readline()
        if not line:
            return None
        if line.strip():
            return json.loads(line)


def next_message(stream, what):
    """(message, None), or (None, exit status): 0 at end of input, 2 (logged
    as `what` is not JSON) when a line is not JSON."""
    try:
        message = read_message(stream)
    except ValueError as err:
        log("%s is not JSON: %s" % (what, err))
        return None, 2
    return message, (0 if message is None else None)


def refuse(error, status):
    """Answers the handshake with `error`; returns `status`."""
    send({"protocol": PROTOCOL_VERSION, "error": error})
    return status


def serve(stream, run_case):
    """Answers requests with `run_case` until end of input or `bye`;
    returns the exit status."""
    while True:
        request, status = next_message(stream, "request")
        if status is not None:
            return status
        if isinstance(request, dict) and request.get("lctx") == "bye":
            return 0
        if (not isinstance(request, dict) or "id" not in request
                or not isinstance(request.get("cases"), list)):
            log("not a request: %r" % (request,))
            return 2
        send({"id": request["id"],
              "results": [run_case(case) for case in request["cases"]]})


def read_hello(stream):
    """Reads lctx's hello: None when it offers this protocol, else the exit
    status (the handshake refused when it is not the hello or offers
    another protocol)."""
    hello, status = next_message(stream, "handshake")
    if status is not None:
        return status
    if not isinstance(hello, dict) or hello.get("lctx") != "hello":
        return refuse("expected the lctx hello, got %r" % (hello,), 2)
    if hello.get("protocol") != PROTOCOL_VERSION:
        return refuse("this program speaks protocol %d only, lctx offered %r"
                      % (PROTOCOL_VERSION, hello.get("protocol")), 2)
    return None


def main():
    stdin = sys.stdin.buffer
    status = read_hello(stdin)
    if status is not None:
        return status
    send({"protocol": PROTOCOL_VERSION, "name": PROGRAM_NAME,
          "version": PROGRAM_VERSION, "operations": OPERATIONS})
    return serve(stdin, run_case)


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (BrokenPipeError, KeyboardInterrupt):
        sys.exit(1)
