#!/usr/bin/env python3
"""Checks the installed jaxlib's entry of jaxlib_clients.CLIENTS, and the
fake client the adapter (lctx_jax/fake_clients.py) builds from it, against
a real CPU client of that jaxlib:

    build/jax/venv-0.10.2/bin/python conformance/adapters/test_jaxlib_clients.py

- `.platform` of the CPU client is what the entry maps 'cpu' to;
- `.platform_version` and `.runtime_type` are the entry's CPU forms;
- each member of jaxlib_clients.KNOWN_MEMBERS exists on the real client
  exactly when the entry lists it, and is a method (or not) alike;
- the fake CPU client answers as the real one on all of these.

What a GPU client reports (`gpu_platforms`) cannot be observed without one;
it rests on the entry's cited source.

Exit status 0 when everything matches; 1 naming each field that does not (or
when JAX cannot be imported, or the installed jaxlib has no entry); 77 when
LCTX_JAX=off (the real-JAX tests are skipped). Standard library only.
"""

import os
import sys

from lctx_jax import jaxlib_clients


def main():
    if os.environ.get("LCTX_JAX") == "off":
        print("SKIPPED: LCTX_JAX=off, the real-JAX tests do not run")
        return 77
    # Only the CPU client: no plugin or accelerator probing.
    os.environ["JAX_PLATFORMS"] = "cpu"
    try:
        from jax._src import xla_bridge
    except Exception as err:
        print("FAIL: %s cannot import jax (%s: %s); run `sh tools/setup-jax.sh"
              " 0.10.2` and use build/jax/venv-0.10.2/bin/python"
              % (sys.executable, type(err).__name__, err))
        return 1
    from lctx_jax.fake_clients import fake_client_class

    version = jaxlib_clients.installed_version()
    try:
        entry = jaxlib_clients.lookup(version)
    except jaxlib_clients.UnknownRelease as err:
        print("FAIL: %s" % err)
        return 1
    real = xla_bridge.backends()["cpu"]
    problems = []
    fake = fake_client_class(entry)("cpu", "registry", 0, True,
                                                problems)
    failures = []

    said = "the entry (jaxlib %s) says" % entry.release

    def check(field, got, want, what, against=said):
        if got != want:
            failures.append("%s: %s is %r, %s %r"
                            % (field, what, got, against, want))

    check("platform", real.platform, entry.platform("cpu"),
          "the real CPU client's .platform")
    check("platform_version", real.platform_version,
          entry.cpu_platform_version, "the real CPU client's "
          ".platform_version")
    check("runtime_type", real.runtime_type, entry.cpu_runtime_type,
          "the real CPU client's .runtime_type")
    for name in jaxlib_clients.KNOWN_MEMBERS:
        listed = name in entry.members
        check("members." + name, hasattr(real, name), listed,
              "its presence on the real client")
        check("members." + name, hasattr(fake, name), listed,
              "its presence on the fake client")
        if listed and hasattr(real, name) and hasattr(fake, name):
            check("members." + name, callable(getattr(fake, name)),
                  callable(getattr(real, name)),
                  "whether the fake's is a method", "the real's:")
    for name in ("platform", "platform_version", "runtime_type"):
        if name in entry.members:
            check("fake." + name, getattr(fake, name), getattr(real, name),
                  "the fake CPU client's ." + name, "the real one's is")
    for name in ("device_count", "process_index"):
        if name in entry.members:
            check("fake." + name, type(getattr(fake, name)()).__name__,
                  type(getattr(real, name)()).__name__,
                  "the type of the fake's %s()" % name, "the real one's is")
    if problems:
        failures.append("fake: reading it recorded %s" % "; ".join(problems))

    for f in failures:
        print("FAIL: " + f)
    if failures:
        return 1
    print("ok: jaxlib %s: the CPU client matches the entry (platform %r, "
          "platform_version %r, runtime_type %r, members %s) and so does "
          "the fake" % (version, real.platform, real.platform_version,
                        real.runtime_type, ", ".join(entry.members)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
