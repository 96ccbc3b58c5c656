"""The fake clients of the JAX adapter: the backend clients a case's
factories return, shaped as the installed jaxlib's client class (its entry
of jaxlib_clients.CLIENTS: which members it has), and the installed JAX's
own clients seen through the same surface (--installed-registry)."""

from . import jaxlib_clients


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
    """Stands in for a jaxlib Client of the installed release.

    What it reports comes from the installed jaxlib's entry of
    jaxlib_clients.CLIENTS (`entry`, set on the class that
    fake_client_class makes): `.platform` is 'gpu' for the real platforms
    that release's compatibility shim maps to 'gpu' (cuda and rocm; oneapi
    too from jaxlib 0.11.0), the real platform otherwise;
    `platform_version` and `runtime_type` are the CPU client's; and the
    members of jaxlib_clients.KNOWN_MEMBERS that the release's Client lacks
    (`_get_all_devices` before 0.5) raise AttributeError, as on the real
    one. `origin` ('registry' or 'pinned') and `registration` identify the
    client in outcomes.

    JAX reads only a few members of a client on the paths driven here
    (`_init_backend`: device_count, _get_all_devices, platform,
    process_index, local_devices).  Any other attribute JAX asks for is
    recorded in `problems`: the case is then reported as an adapter error
    rather than as JAX's behaviour, because JAX's `except Exception` in
    backends() would otherwise turn the AttributeError into a backend
    failure message.
    """

    entry = None

    def __init__(self, real_platform, origin, registration, has_devices,
                 problems):
        self.real_platform = real_platform
        self.origin = origin
        self.registration = registration
        self._problems = problems
        self._devices = [FakeDevice(self, 0)] if has_devices else []

    @property
    def platform(self):
        return self.entry.platform(self.real_platform)

    @property
    def platform_version(self):
        return self.entry.cpu_platform_version

    @property
    def runtime_type(self):
        return self.entry.cpu_runtime_type

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
        # Only called for attributes not defined above, and for the members
        # this release's Client lacks (_Absent).
        if name in jaxlib_clients.KNOWN_MEMBERS:
            raise AttributeError(
                "jaxlib %s's Client has no attribute %r"
                % (self.entry.release, name))
        if not (name.startswith("__") and name.endswith("__")):
            self._problems.append("JAX read FakeClient.%s, which the adapter "
                                  "does not provide" % name)
        raise AttributeError(name)

    def __repr__(self):
        return "FakeClient(%r, %s, %r)" % (self.real_platform, self.origin,
                                           self.registration)


class _Absent:
    """A member the installed release's Client does not have: reading it
    raises AttributeError (then FakeClient.__getattr__ says so)."""

    def __init__(self, name):
        self.name = name

    def __get__(self, obj, owner=None):
        raise AttributeError(self.name)


class InstalledClient:
    """A client one of the installed JAX's own factories returned, with the
    registration it came from (for outcomes): every attribute JAX reads is
    the real client's."""

    origin = "registry"

    def __init__(self, real, real_platform, registration):
        self._real = real
        self.real_platform = real_platform
        self.registration = registration

    def __getattr__(self, name):
        return getattr(self._real, name)

    def __repr__(self):
        return "InstalledClient(%r, %r)" % (self.real_platform,
                                            self.registration)


def fake_client_class(entry):
    """FakeClient for the jaxlib release of `entry` (a ClientEntry)."""
    attrs = {"entry": entry}
    for name in jaxlib_clients.KNOWN_MEMBERS:
        if name not in entry.members:
            attrs[name] = _Absent(name)
    return type("FakeClient", (FakeClient,), attrs)

