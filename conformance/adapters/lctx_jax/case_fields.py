"""The fields of a case as lctx sends it (conformance/PROTOCOL.md): the
checks every part of the JAX adapter makes on what it reads, and the
refusals it answers.  A case that breaks them is answered as malformed
(CaseFormatError) or unsupported (Unsupported), never a crash."""


class CaseFormatError(Exception):
    pass


def _objects(items, label):
    """(what, item) for each item of a JSON list, `what` naming it ("rule
    3"); raises CaseFormatError at an item that is not a JSON object."""
    for i, item in enumerate(items):
        what = "%s %d" % (label, i)
        if not isinstance(item, dict):
            raise CaseFormatError("%s is not a JSON object" % what)
        yield what, item


def _names(obj, key, what, nullable=False):
    """`obj[key]`: a list of strings (or None when `nullable`)."""
    value = obj.get(key)
    if value is None and nullable:
        return None
    if not isinstance(value, list) or not all(isinstance(p, str)
                                              for p in value):
        raise CaseFormatError("%s: bad %s" % (what, key))
    return value


def _str_or_unset(obj, key, what):
    value = obj.get(key)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise CaseFormatError("%s: %r is not a string" % (what, key))
    return value


class Unsupported(Exception):
    """A case this release cannot run through its own entry points
    (answered {"error": "unsupported: ..."}, with --per-case-refusals)."""
