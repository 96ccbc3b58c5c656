"""lctx's rule corpus (corpus/rules/*.rule) as real JAX primitives.

The rule files are read by lctx itself: `lctx export rules` prints them as
JSON, parsed by the same parser as `lctx lint` (its shape is written in
harness/cli/export_data.h), so that this program never parses the
rule-file grammar again.  Which lctx: the one given with `--lctx PATH`
(`lctx sweep --cmd "... jax_export.py --lctx PATH"`: the command lines of
the Makefile, the tests and the docs give the lctx that runs the sweep),
else `lctx` on PATH.  Without one, or when lctx refuses the corpus, there
are no corpus programs (corpus/...), and the log says why.  lctx does not
tell the programs it starts where it is (they run isolated, in a process
namespace of their own), hence the option.
"""

import json
import re
import shutil
import subprocess

from .export_common import CORPUS_CODES, log

LCTX_NAME = "lctx"


class RuleSyntaxError(Exception):
    pass


class Action:
    """One action of a rule, as `lctx export rules` gives it."""

    def __init__(self, exported):
        self.kind, self.line = exported["kind"], exported["line"]
        self.optional = exported.get("optional", False)
        self.message = exported.get("message")
        self.primitive = exported.get("primitive")
        self.compute_type = exported.get("compute_type")


class RuleSpec:
    """One `rule` line of a .rule file (`index`: its position in the
    file), as `lctx export rules` gives it."""

    def __init__(self, stem, index, exported):
        self.stem, self.index = stem, index
        self.name, self.line = exported["name"], exported["line"]
        self.primitive = exported["primitive"]
        self.registrations = list(exported["registrations"])  # None: default
        self.actions = [Action(a) for a in exported["actions"]]


def find_lctx(given):
    """The lctx that reads the corpus, and how it was found; (None, why)
    when there is none."""
    if given:
        return given, "--lctx"
    exe = shutil.which(LCTX_NAME)
    if exe:
        return exe, "lctx on PATH"
    return None, "no --lctx and no lctx on PATH"


def export_rules(given):
    """The rule files as `lctx export rules` prints them (its "rules"
    list), or None (logged) when there is no lctx or it refuses them."""
    lctx, how = find_lctx(given)
    if lctx is None:
        log("no rule corpus: %s: no corpus programs" % how)
        return None
    try:
        run = subprocess.run([lctx, "export", "rules"],
                             stdin=subprocess.DEVNULL,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             timeout=120)
    except (OSError, subprocess.SubprocessError) as err:
        log("no rule corpus: %s (%s) cannot run: %s: no corpus programs"
            % (lctx, how, err))
        return None
    if run.returncode != 0:
        said = run.stderr.decode("utf-8", "replace").strip().splitlines()
        log("no rule corpus: %s export rules (%s) exits %d: %s: no corpus "
            "programs" % (lctx, how, run.returncode,
                          said[-1] if said else "nothing said"))
        return None
    try:
        files = json.loads(run.stdout)["rules"]
    except (ValueError, KeyError, TypeError) as err:
        log("no rule corpus: %s export rules (%s) printed no rule list: %s"
            % (lctx, how, err))
        return None
    log("rule corpus: %d files from %s export rules (%s)"
        % (len(files), lctx, how))
    return files


class Corpus:
    """corpus/rules/*.rule as real JAX primitives.

    Each `primitive`/`subprimitive` NAME of STEM.rule becomes a primitive
    `lctx_STEM:NAME` on one f32 array (identity shape and dtype, identity
    impl); each `rule` line becomes one Python lowering rule registered with
    mlir.register_lowering for each of its registrations ("default" is
    platform None).  The rule performs its actions in order, as the table of
    corpus/rules/README.md says; `marker` emits hlo.add of the operand and
    the constant (rule's position in the file + 1), so that which rule ran
    shows in the values; `lower_fun "Q"` lowers, through mlir.lower_fun, a
    function binding Q to the current value.  Census entries made by these
    rules name the .rule file and the action's line there."""

    def __init__(self, j, census):
        self.j, self.census = j, census
        self.programs = {}   # stem -> primitive to bind
        self.primitives = {}  # (stem, NAME) -> Primitive
        CORPUS_CODES.add(self._rule_code())

    def _rule_code(self):
        return self.make_rule(None).__code__

    def load(self, files):
        """Registers the rule files (`lctx export rules`'s list); a file
        JAX refuses (an unknown platform, a construct this program does not
        express) is left out, logged."""
        for exported in files or ():
            try:
                self.load_file(exported)
            except Exception as err:
                log("%s skipped: %s: %s"
                    % (exported.get("path"), type(err).__name__, err))

    def load_file(self, exported):
        stem, names = exported["stem"], exported["primitives"]
        rules = [RuleSpec(stem, i, r) for i, r in enumerate(exported["rules"])]
        prims = {}
        for name in names:
            prims[name] = self.make_primitive("lctx_%s:%s" % (stem, name))
        for rule in rules:
            for action in rule.actions:
                if action.kind == "lower_fun" and action.compute_type:
                    raise RuleSyntaxError("line %d: compute_type is not "
                                          "expressed" % action.line)
        # Validate every registration before registering any.
        for rule in rules:
            for platform in rule.registrations:
                if platform is not None and not self.j.xb.is_known_platform(
                        platform):
                    raise RuleSyntaxError("line %d: unknown platform %r"
                                          % (rule.line, platform))
        for rule in rules:
            fn = self.make_rule(rule, prims)
            for platform in rule.registrations:
                self.j.mlir.register_lowering(prims[rule.primitive], fn,
                                              platform=platform)
        self.programs[stem] = prims[names[0]]
        for name, prim in prims.items():
            self.primitives[(stem, name)] = prim

    def make_primitive(self, name):
        j = self.j
        prim = j.core.Primitive(name)
        prim.def_impl(lambda x: x)
        prim.def_abstract_eval(
            lambda x: j.core.ShapedArray(x.shape, x.dtype))
        return prim

    def make_rule(self, rule, prims=None):
        """The lowering rule running `rule`'s actions (None: a template,
        for its code object)."""
        run = self.run_action

        def lctx_corpus_rule(ctx, x):
            value = x
            for action in rule.actions:
                value = run(ctx, value, rule, action, prims)
            return [value]

        lctx_corpus_rule.__name__ = "lctx_rule_%s" % (
            "template" if rule is None else re.sub(r"\W", "_", rule.name))
        return lctx_corpus_rule

    def run_action(self, ctx, value, rule, action, prims):
        j = self.j
        mc = ctx.module_context
        kind = action.kind
        if kind == "get_backend":
            mc.get_backend(action.optional)
        elif kind == "guarded_get_backend":
            if len(mc.platforms) <= 1:
                mc.get_backend(action.optional)
        elif kind == "try_fallback_get_backend":
            try:
                mc.get_backend()
            except NotImplementedError:
                mc.get_backend(optional=True)
        elif kind == "raise_if_multi":
            if len(mc.platforms) > 1:
                raise NotImplementedError(action.message)
        elif kind == "read_client_platform":
            client = mc.get_backend(optional=True)
            if client is not None:
                client.platform
        elif kind == "lower_fun":
            sub = prims[action.primitive]
            lowered = j.mlir.lower_fun(lambda y: sub.bind(y),
                                       multiple_results=False)
            value = lowered(ctx.replace(), value)
            if isinstance(value, (list, tuple)):
                value = value[0]
        elif kind == "marker":
            aval = ctx.avals_in[0]
            constant = j.mlir.ir_constant(
                j.np.full(aval.shape, float(rule.index + 1),
                          dtype=aval.dtype))
            value = j.hlo.add(value, constant)
        return value


