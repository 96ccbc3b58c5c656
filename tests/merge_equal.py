"""merge_equal.py - a merge of a run's shards compared with the unsharded run.

Usage: merge_equal.py [--conform] WHOLE MERGED SHARD...

WHOLE is the report folder of the unsharded run, MERGED what `lctx report
merge SHARD...` wrote. Every field of WHOLE/report.json must be in
MERGED/report.json with the same value, and the merge may add none, but
for the exceptions of EXCEPTIONS (each with why it may differ);
results.jsonl must hold the same lines in the same order (its stamp line
aside from run_id), report.tap the same text and report.junit.xml the same
but for its time. A rerun line reruns its case into its own run's report
folder (REPORT_DIR/rerun, OUT/rerun): a shard's folder in one is read as the
unsharded run's.

With --conform, the shards must also have exercised what a merge can get
wrong: a row whose earliest failure is not the first shard's, a row whose
shards kept more verdicts than --keep-failures allows the run, and a row
absent at the judged release.

Prints each difference, one a line, and exits 1 when there is one (2 for
bad arguments).
"""

import json
import re
import sys

# The fields that may differ between a merge of shards and the unsharded
# run, by their path in report.json ("rows[]" for every row), and why.
EXCEPTIONS = {
    "run_id": "each run's own id, shared with its results.jsonl's first "
    "line; a merge is no one run and writes none",
    "seconds": "the time a run took (the merge sums its shards')",
    "first_failure.seconds": "the time from a run's start to its first "
    "failure (the merge takes the earliest shard's)",
    "peak_memory_mb": "the memory of the process that ran (the merge takes "
    "the largest shard's)",
    "results_sealed": "a run's sealed results.jsonl (seal.h); the merged "
    "one is a copy, not written by the run lctx sealed",
    "results_checked": "the run found its results.jsonl as it wrote it at "
    "its end; the merged one is a copy no run wrote",
}


def load_json(path):
    """The JSON document at `path`, or exit 1 naming it."""
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        print(f"{path}: {e}")
        sys.exit(1)


def read_text(path):
    """The text of `path`, or exit 1 naming it."""
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except OSError as e:
        print(f"{path}: {e}")
        sys.exit(1)


class Compare:
    """The differences found so far, and how a shard's folder is read."""

    def __init__(self, whole, shards):
        self.whole = whole
        self.shards = shards
        self.found = []

    def same_folder(self, text):
        """`text` with every shard's folder read as the unsharded run's."""
        for d in self.shards:
            text = text.replace(d, self.whole)
        return text

    def differ(self, what):
        """Notes one difference."""
        self.found.append(what)

    def value(self, path, a, b):
        """Compares the values at `path` of the unsharded run (`a`) and of
        the merge (`b`), field by field."""
        general = re.sub(r"\[[^]]*\]", "[]", path)
        if general in EXCEPTIONS:
            return
        if isinstance(a, dict) and isinstance(b, dict):
            for k in sorted(set(a) | set(b)):
                sub = f"{path}.{k}" if path else k
                if re.sub(r"\[[^]]*\]", "[]", sub) in EXCEPTIONS:
                    continue
                if k not in b:
                    self.differ(f"{sub}: the merge lacks it ({a[k]!r:.120})")
                elif k not in a:
                    self.differ(f"{sub}: only the merge has it ({b[k]!r:.120})")
                else:
                    self.value(sub, a[k], b[k])
        elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
            for i, (x, y) in enumerate(zip(a, b)):
                name = x.get("id", i) if isinstance(x, dict) else i
                self.value(f"{path}[{name}]", x, y)
        elif isinstance(a, str) and isinstance(b, str):
            if a != self.same_folder(b):
                self.differ(f"{path}: {a!r:.160} unsharded, {b!r:.160} merged")
        elif a != b:
            self.differ(f"{path}: {a!r:.160} unsharded, {b!r:.160} merged")

    def results(self, merged):
        """results.jsonl: the stamp (but run_id) and every line, in order."""
        a = read_text(f"{self.whole}/results.jsonl").splitlines()
        b = read_text(f"{merged}/results.jsonl").splitlines()
        if not a or not b:
            self.differ("results.jsonl: empty")
            return
        sa, sb = json.loads(a[0]), json.loads(b[0])
        sa.pop("run_id", None)
        self.value("results.jsonl stamp", sa, sb)
        if len(a) != len(b):
            self.differ(f"results.jsonl: {len(a)} lines unsharded, "
                        f"{len(b)} merged")
        for k, (x, y) in enumerate(zip(a[1:], b[1:]), start=2):
            if x != y:
                self.differ(f"results.jsonl:{k}: {x:.160} unsharded, "
                            f"{y:.160} merged")
                break

    def reports(self, merged):
        """report.tap the same text; report.junit.xml but for its time."""
        tap = (read_text(f"{self.whole}/report.tap"),
               self.same_folder(read_text(f"{merged}/report.tap")))
        if tap[0] != tap[1]:
            self.differ("report.tap differs")
        untimed = [re.sub(r' time="[^"]*"', "", read_text(p)) for p in
                   (f"{self.whole}/report.junit.xml",
                    f"{merged}/report.junit.xml")]
        if untimed[0] != self.same_folder(untimed[1]):
            self.differ("report.junit.xml differs (its time aside)")


def exercised(whole, shards):
    """What the shards of a conform run must have put to the merge: the
    problems found with it, one a line (none: all of it)."""
    rows = {r["id"]: r for r in whole["rows"]}
    parts = [{r["id"]: r for r in s["rows"]} for s in shards]
    later = [i for i, r in rows.items()
             if r.get("first") and parts[0][i].get("first") != r["first"]]
    cap = whole.get("keep_failures")
    over = [i for i in rows
            if cap is not None
            and sum(p[i]["results_kept"] for p in parts) > cap]
    absent = [i for i, r in rows.items() if r.get("absent")]
    problems = []
    if not later:
        problems.append("no row's earliest failure is in a later shard")
    if not over:
        problems.append("no row's shards kept more than --keep-failures")
    if not absent:
        problems.append("no row is absent at the judged release")
    return problems


def main(argv):
    """Compares; 0 when the merge is the unsharded run."""
    conform = argv[:1] == ["--conform"]
    args = argv[1:] if conform else argv
    if len(args) < 3:
        print(__doc__.splitlines()[2])
        return 2
    whole, merged, shard_dirs = args[0], args[1], args[2:]
    c = Compare(whole, shard_dirs)
    a = load_json(f"{whole}/report.json")
    b = load_json(f"{merged}/report.json")
    c.value("", a, b)
    c.results(merged)
    c.reports(merged)
    if conform:
        shards = [load_json(f"{d}/report.json") for d in shard_dirs]
        for p in exercised(a, shards):
            c.differ(f"the run does not exercise the merge: {p}")
    for line in c.found:
        print(line)
    return 1 if c.found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
