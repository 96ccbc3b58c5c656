"""The protocol half of the JAX programs: lctx's process protocol
(conformance/PROTOCOL.md) as the Python example speaks it, and the refusal
of a JAX that cannot be imported.

The line reader, the hello, the request loop, send and log, and a client's
outcome are the Python example's (conformance/examples/python/
lctx_example.py, standard library only), written to be kept when the model
is replaced.  That example is a standalone script a user copies, not a
package, so it is loaded here from its file (importlib), once, under its
own name; nothing is added to sys.path.
"""

import importlib.util
import os
import sys

EXAMPLE = os.path.normpath(os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples",
    "python", "lctx_example.py"))
SUGGESTED_INSTALL = "sh tools/setup-jax.sh 0.10.2"


def _load_example():
    module = sys.modules.get("lctx_example")
    if module is None:
        spec = importlib.util.spec_from_file_location("lctx_example", EXAMPLE)
        module = importlib.util.module_from_spec(spec)
        sys.modules["lctx_example"] = module
        spec.loader.exec_module(module)
    return module


_example = _load_example()
PROTOCOL_VERSION = _example.PROTOCOL_VERSION
client_outcome = _example.client_outcome
log = _example.log
read_hello = _example.read_hello
read_message = _example.read_message
refuse = _example.refuse
send = _example.send
serve = _example.serve


def import_jax_with(make, install):
    """Returns (make(), None), or (None, why) with why logged and,
    when a package is missing, `install` (how to install the pinned JAX)."""
    try:
        return make(), None
    except ImportError as err:
        missing = getattr(err, "name", None)
        why = "%s: %s" % (type(err).__name__, err)
        if missing:
            log("cannot import jax: the Python package %r is missing (%s)."
                % (missing.split(".")[0], err))
        else:
            log("cannot import jax: %s" % why)
        log(install)
        return None, why
    except Exception as err:  # e.g. a jax/jaxlib version mismatch
        why = "%s: %s" % (type(err).__name__, err)
        log("importing jax failed: %s" % why)
        log("install matching jax and jaxlib, for example: %s"
            % SUGGESTED_INSTALL)
        return None, why
