#!/usr/bin/env python3
"""protocol_doc.py - checks conformance/PROTOCOL.md against lctx itself, for
tests/test_protocol_doc.sh. Standard library only.

The examples of PROTOCOL.md are exchanges: fenced blocks whose info string
is `json exchange` (the example is judged pass) or `json exchange crash`
(its case is marked crash), holding two lines: what lctx writes, byte for
byte, and what a program answers. The first exchange whose first line is
lctx's hello is the handshake.

  protocol_doc.py unknown-op
      a program whose handshake names an operation lctx does not know
      ("canonicalise"), so that lctx prints the operations it knows.
  protocol_doc.py sections DOC SPEC REFUSAL
      REFUSAL is lctx's output for that program. Checks that every
      operation lctx knows (and every extension) has a section of DOC
      (a heading naming it in backquotes), that every operation's section
      holds an exchange using it, that DOC quotes the refusal as lctx
      prints it, and that the outcome kinds DOC gives each operation (its
      "Answers:" line and the table of "## Outcomes") are those the spec
      table SPEC allows it.
  protocol_doc.py cases DOC DIR
      writes a .case file in DIR for the request of each exchange but the
      handshake, and DIR/expected: "PASS_OPS CRASH_OPS MODULES" (the
      operations judged pass and crash, and the answers' modules).
  protocol_doc.py console DOC LCTX SOURCE
      runs, in the working folder, every command of DOC's (PROTOCOL.md's,
      README.md's) ```console
      checked blocks (a line `$ COMMAND`; the lines up to the next one are
      what its stdout and stderr must hold, in order and adjacent, a line
      `...` standing for any lines), with the variables LCTX_* unset; in
      the output the path of LCTX (resolved), the working folder and
      SOURCE read as /home/you/lctx/build/release/harness/lctx and
      /home/you/lctx, as DOC writes them. Prints what does not hold.
  protocol_doc.py replay DOC LOG
      a program that answers lctx with DOC's exchanges: the handshake's
      answer; for each request that is, apart from its id, the request of
      an exchange byte for byte, that exchange's answer (with the id of the
      request). A hello or request the doc does not hold is written to LOG
      (and a request answered with an error).
"""

import json
import os
import re
import subprocess
import sys

KINDS = ("none", "string", "platforms", "client", "raise")
UNKNOWN_OP = "canonicalise"


def exchanges(doc):
    """[(verdict, request line, answer line, line number)] of DOC."""
    found = []
    lines = doc.split("\n")
    for i, line in enumerate(lines):
        m = re.fullmatch(r"```json exchange( crash)?", line)
        if not m:
            continue
        end = lines.index("```", i + 1)
        body = lines[i + 1:end]
        if len(body) != 2:
            raise SystemExit("PROTOCOL.md:%d: an exchange holds %d lines, "
                             "not 2" % (i + 1, len(body)))
        for text in body:
            json.loads(text)  # both lines are JSON
        found.append(("crash" if m.group(1) else "pass", body[0], body[1],
                      i + 1))
    return found


def is_hello(line):
    return json.loads(line).get("lctx") == "hello"


def sections(doc):
    """{heading line: its text up to the next heading of any level}."""
    out, name, text = {}, None, []
    in_fence = False
    for line in doc.split("\n"):
        if line.startswith("```"):
            in_fence = not in_fence
        if not in_fence and line.startswith("#"):
            if name:
                out[name] = "\n".join(text)
            name, text = line, []
        else:
            text.append(line)
    if name:
        out[name] = "\n".join(text)
    return out


def known_operations(refusal):
    """The operations and extensions lctx names in its refusal."""
    m = re.search(r"\(lctx knows ([^)]*)\)", refusal)
    if not m:
        raise SystemExit("lctx's refusal names no operations: %s" % refusal)
    ops, extensions = [], []
    for item in m.group(1).split(", "):
        if item.startswith("and the extension "):
            extensions.append(item[len("and the extension "):])
        else:
            ops.append(item)
    return ops, extensions, m.group(0)


def spec_kinds(spec, ops):
    """{operation: the outcome kinds the spec table's rows allow it}."""
    kinds = {op: set() for op in ops}
    row_ops = None
    for line in spec.split("\n"):
        if line.startswith("["):
            row_ops = None if line.startswith("[fact") else []
        elif row_ops is not None and line.startswith("op = "):
            names = line[5:].strip().split("|")
            row_ops[:] = ops if names == ["*"] else names
        elif row_ops is not None and line.startswith("outcome = "):
            kind = line[10:].split()[0]
            if kind == "None":
                kind = "none"
            for op in row_ops:
                if kind != "absent":
                    kinds.setdefault(op, set()).add(kind)
    return kinds


def kinds_in(text):
    return {w for w in re.findall(r"`([a-z]+)`", text) if w in KINDS}


def check_sections(doc, spec, refusal):
    problems = []
    ops, extensions, _ = known_operations(refusal)
    parts = sections(doc)
    allowed = spec_kinds(spec, ops)
    table = parts.get("## Outcomes", "")
    for name in ops + extensions:
        heads = [h for h in parts if "`%s`" % name in h]
        if not heads:
            problems.append("no section of PROTOCOL.md is headed `%s`" % name)
            continue
        if name in extensions:
            continue
        body = parts[heads[0]]
        used = [e for e in exchanges(body)
                if any(op.get("op") == name
                       for case in json.loads(e[1]).get("cases", [])
                       for op in case["operations"])]
        if not used:
            problems.append("%s: no example exchange uses the operation"
                            % heads[0])
        answers = [ln for ln in body.split("\n\n")
                   if ln.startswith("Answers:")]
        want = allowed.get(name, set())
        if len(answers) != 1 or kinds_in(answers[0]) != want:
            problems.append("%s: an \"Answers:\" paragraph naming %s (the "
                            "spec table's kinds)" % (heads[0], sorted(want)))
        row = re.search(r"^\| `%s` \|([^\n]*)$" % re.escape(name), table,
                        re.M)
        if not row or kinds_in(row.group(1)) != want:
            problems.append("## Outcomes: the table's row of `%s` names "
                            "%s, not %s" % (name, sorted(kinds_in(
                                row.group(1))) if row else "nothing",
                                sorted(want)))
    message = re.search(r"handshake: unknown operation [^\n]*\)", refusal)
    flat = " ".join(doc.split())
    if not message or message.group(0) not in flat:
        problems.append("PROTOCOL.md does not quote lctx's refusal: %s"
                        % (message.group(0) if message else refusal))
    for p in problems:
        print("FAIL: " + p)
    print("protocol_doc: %d operations (%s), %d extension(s) checked"
          % (len(ops), ", ".join(ops), len(extensions)))
    return 1 if problems else 0


def quote(s):
    out = []
    for ch in s:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch in "\n\t\r":
            out.append({"\n": "\\n", "\t": "\\t", "\r": "\\r"}[ch])
        elif ord(ch) < 0x20 or ord(ch) == 0x7f:
            out.append("\\x%02x" % ord(ch))
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def name_or_none(v):
    return "None" if v is None else quote(v)


def name_list(names):
    return "[" + ", ".join(quote(n) for n in names) + "]"


def bool_word(b):
    return "true" if b else "false"


def action_text(a):
    kind = a["action"]
    if kind in ("get_backend", "guarded_get_backend"):
        return "%s optional=%s" % (kind, bool_word(a["optional"]))
    if kind == "raise_if_multi":
        return "raise_if_multi " + quote(a["message"])
    if kind == "lower_fun":
        text = "lower_fun " + quote(a["primitive"])
        if a["compute_type"] is not None:
            text += " compute_type=" + quote(a["compute_type"])
        return text
    return kind


def op_text(op):
    kind = op["op"]
    if kind == "backends":
        return "op backends"
    if kind == "canonicalize":
        return "op canonicalize " + quote(op["name"])
    if kind == "get_backend":
        return "op get_backend " + name_or_none(op["platform"])
    if kind == "module_get_backend":
        return "op module_get_backend platforms=%s backend=%s optional=%s" % (
            name_list(op["platforms"]), name_or_none(op["backend"]),
            bool_word(op["optional"]))
    if kind == "register_lowering":
        return ("op register_lowering primitive=%s rule=%s platform=%s"
                % (quote(op["primitive"]), quote(op["rule"]),
                   name_or_none(op["platform"])))
    text = "op lower_per_platform primitive=%s platforms=%s backend=%s" % (
        quote(op["primitive"]), name_list(op["platforms"]),
        name_or_none(op["backend"]))
    if op["narrow"] is not None:
        text += " narrow=" + name_list(op["narrow"])
    for key in ("compute_type", "override"):
        if op[key] is not None:
            text += " %s=%s" % (key, quote(op[key]))
    return text + " x64=" + bool_word(op["x64"])


def case_text(case):
    """The .case text of a case's JSON form (conformance/cases/README.md)."""
    lines = ["lctx-case 1"]
    for f in case.get("factories", []):
        line = "factory %s priority=%d %s %s" % (
            quote(f["name"]), f["priority"],
            "quiet" if f["fail_quietly"] else "loud", f["behaviour"])
        if f["behaviour"] == "raises":
            line += " " + quote(f["message"])
        lines.append(line)
    for key in ("jax_platforms", "jax_platform_name", "jax_xla_backend"):
        if case.get(key):
            lines.append("%s %s" % (key, quote(case[key])))
    if case.get("nvidia_gpu_visible"):
        lines.append("nvidia_gpu visible")
    for rule in case.get("rules", []):
        lines.append(("rule %s " % quote(rule["name"])) +
                     ", ".join(action_text(a) for a in rule["actions"]))
    lines += [op_text(op) for op in case.get("operations", [])]
    return "\n".join(lines) + "\n"


def write_cases(doc, folder):
    counts = {"pass": 0, "crash": 0, "mlir": 0}
    for n, (verdict, request, answer, _) in enumerate(exchanges(doc)):
        if is_hello(request):
            continue
        results = json.loads(answer)["results"]
        counts["mlir"] += sum("mlir" in o for r in results
                              for o in r.get("outcomes", []))
        for k, case in enumerate(json.loads(request)["cases"]):
            with open("%s/ex%02d-%d.case" % (folder, n, k), "w") as f:
                f.write(case_text(case))
            counts[verdict] += len(case.get("operations", []))
    with open(folder + "/expected", "w") as f:
        f.write("%d %d %d\n" % (counts["pass"], counts["crash"],
                                counts["mlir"]))
    return 0


ID = re.compile(r'^\{"id": ?([0-9]+),')


def replay(doc, log_path):
    found = exchanges(doc)
    hello = [e for e in found if is_hello(e[1])][0]
    answers = {ID.sub("", e[1], 1): e[2] for e in found
               if not is_hello(e[1])}
    log = open(log_path, "a")
    for line in sys.stdin:
        line = line.rstrip("\n")
        message = json.loads(line)
        if message.get("lctx") == "bye":
            break
        if message.get("lctx") == "hello":
            if line != hello[1]:
                log.write("hello differs: %s\n" % line)
            answer = hello[2]
        else:
            answer = answers.get(ID.sub("", line, 1))
            if answer is None or not ID.match(line):
                log.write("request not in the doc: %s\n" % line)
                answer = json.dumps({"id": message["id"], "results": [
                    {"error": "no exchange of the doc"}
                    for _ in message["cases"]]})
            answer = ID.sub('{"id": %d,' % message["id"], answer, 1)
        log.flush()
        print(answer, flush=True)
    return 0


HOME = "/home/you/lctx"


def console_blocks(doc):
    """[(line number, command, [lines its output must hold])] of DOC's
    ```console checked blocks (indented as a list item's too)."""
    found, lines = [], doc.split("\n")
    for i, line in enumerate(lines):
        if line.strip() != "```console checked":
            continue
        indent = len(line) - len(line.lstrip())
        k = i + 1
        while lines[k].strip() != "```":
            text = lines[k][indent:]
            if text.startswith("$ "):
                found.append((k + 1, text[2:], []))
            elif found:
                found[-1][2].append(text)
            k += 1
    return found


def holds(output, want):
    """Whether the lines WANT are in OUTPUT in order and adjacent, a line
    "..." standing for any lines (none or more)."""
    parts = [[]]
    for line in want:
        if line == "...":
            parts.append([])
        else:
            parts[-1].append(line)
    if len(parts) == 1:
        return output == parts[0]
    first, last = parts[0], parts[-1]
    at, end = len(first), len(output) - len(last)
    if output[:at] != first or end < at or output[end:] != last:
        return False
    for part in parts[1:-1]:
        starts = [k for k in range(at, end - len(part) + 1)
                  if output[k:k + len(part)] == part]
        if not starts:
            return False
        at = starts[0] + len(part)
    return True


def check_console(name, doc, lctx, source):
    """Runs DOC's checked commands (DOC read from the file NAME); 1 when an
    output differs."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("LCTX_")}
    names = [(os.path.realpath(lctx), HOME + "/build/release/harness/lctx"),
             (os.getcwd(), HOME), (os.path.realpath(source), HOME)]
    bad = 0
    for line, command, want in console_blocks(doc):
        run = subprocess.run(command, shell=True, env=env, text=True,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             errors="replace", check=False)
        text = run.stdout
        for real, shown in names:
            text = text.replace(real, shown)
        if not holds(text.splitlines(), want):
            print("%s:%d: the output of `%s` does not hold the lines the "
                  "doc shows; it is:\n%s" % (os.path.basename(name), line,
                                              command, text))
            bad = 1
    return bad


def main(argv):
    if argv[1] == "unknown-op":
        sys.stdin.readline()
        print(json.dumps({"protocol": 1, "name": "p", "version": "1",
                          "operations": ["backends", UNKNOWN_OP]}),
              flush=True)
        sys.stdin.read()
        return 0
    doc = open(argv[2]).read()
    if argv[1] == "sections":
        return check_sections(doc, open(argv[3]).read(), open(argv[4]).read())
    if argv[1] == "cases":
        return write_cases(doc, argv[3])
    if argv[1] == "replay":
        return replay(doc, argv[3])
    if argv[1] == "console":
        return check_console(argv[2], doc, argv[3], argv[4])
    raise SystemExit("unknown command " + argv[1])


if __name__ == "__main__":
    sys.exit(main(sys.argv))
