#!/bin/sh
# test_ci_config.sh - pins what CI reads from the tree:
#   - every ctest test carries at least one of the labels unit, spec, fuzz,
#     conform, slow (so `ctest -L unit` and the others select it), and none
#     is both unit and slow; every CMocka executable writes its XML
#     (CMOCKA_MESSAGE_OUTPUT=xml, CMOCKA_XML_FILE under the build folder)
#     unless the build sets LCTX_CMOCKA_XML=OFF;
#     the checker itself rejects a test without a label and a unit test
#     without its XML (a made-up listing), so that it can fail;
#   - the test preset writes ctest's JUnit file under build/;
#   - the workflow files parse as YAML (PyYAML: Debian's python3-yaml,
#     which `make deps` installs; without it the test fails, naming it),
#     the CI job runs `make test` and uploads the JUnit files, the
#     ClusterFuzzLite workflows run the modes code-change, batch, prune and
#     coverage; the checker itself rejects a workflow without `jobs`, one
#     that is not YAML and a ClusterFuzzLite workflow without its mode
#     (made-up folders), so that it can fail;
#   - a workflow that writes SARIF uploads it; no comment gives
#     fuzz-seconds as a time per target; the unit job builds only the
#     target lctx_unit_tests, which builds every file a unit test runs,
#     and runs `ctest --preset test -L unit`;
#   - the ClusterFuzzLite base image is pinned to a version tag.
# Usage: test_ci_config.sh CTEST BUILD_DIR SOURCE_DIR [CMOCKA_XML (ON|OFF)]
set -u
CTEST=$1
BUILD=$2
SRC=$3
XML=${4:-ON}
. "$(dirname -- "$0")/lib.sh"

(cd "$BUILD" && "$CTEST" --show-only=json-v1) >"$tmp/tests.json" 2>"$tmp/ctest.err" ||
  fail "ctest --show-only=json-v1 failed: $(cat "$tmp/ctest.err")"

cat >"$tmp/check_labels.py" <<'EOF'
import json, sys
KINDS = {"unit", "spec", "fuzz", "conform", "slow"}
data = json.load(open(sys.argv[1]))
build = sys.argv[2]
xml = sys.argv[3] in ("ON", "1", "YES", "TRUE")
bad = []
for t in data["tests"]:
    props = {p["name"]: p["value"] for p in t.get("properties", [])}
    labels = set(props.get("LABELS", []))
    if not labels & KINDS:
        bad.append("%s: no label of %s (has %s)" % (t["name"], sorted(KINDS), sorted(labels)))
    if {"unit", "slow"} <= labels:
        bad.append("%s: both unit and slow" % t["name"])
    command = t.get("command", [""])
    exe = command[0] if command else ""
    if xml and exe.endswith("/tests/" + t["name"]) and t["name"].startswith("test_"):
        env = props.get("ENVIRONMENT", [])
        if "CMOCKA_MESSAGE_OUTPUT=xml" not in env or not any(
                e.startswith("CMOCKA_XML_FILE=" + build + "/") for e in env):
            bad.append("%s: CMocka XML output not set (%s)" % (t["name"], env))
for b in bad:
    print("FAIL: " + b)
print("%d tests checked" % len(data["tests"]))
sys.exit(1 if bad else 0)
EOF

python3 "$tmp/check_labels.py" "$tmp/tests.json" "$BUILD" "$XML" >"$tmp/labels.out" ||
  fail "labels: $(grep FAIL "$tmp/labels.out")"
n=$(sed -n 's/^\([0-9]*\) tests checked$/\1/p' "$tmp/labels.out")
[ "${n:-0}" -gt 40 ] || fail "too few tests listed by ctest: ${n:-none}"

# The checker rejects what it must.
cat >"$tmp/bad.json" <<EOF
{"tests": [
 {"name": "nolabel", "command": ["/bin/true"], "properties": []},
 {"name": "test_x", "command": ["$BUILD/tests/test_x"],
  "properties": [{"name": "LABELS", "value": ["unit", "slow"]}]}
]}
EOF
python3 "$tmp/check_labels.py" "$tmp/bad.json" "$BUILD" ON >"$tmp/bad.out" &&
  fail "the label check accepted a listing with an unlabelled test"
grep -q "nolabel: no label" "$tmp/bad.out" || fail "unlabelled test not named"
grep -q "test_x: both unit and slow" "$tmp/bad.out" || fail "unit+slow not named"
grep -q "test_x: CMocka XML output not set" "$tmp/bad.out" ||
  fail "a CMocka test without XML output not named"

# ctest's JUnit file, under build/.
python3 - "$SRC/CMakePresets.json" <<'EOF' || fail "test preset: no JUnit output under build/"
import json, sys
presets = json.load(open(sys.argv[1]))
test = [p for p in presets["testPresets"] if p["name"] == "test"][0]
path = test.get("output", {}).get("outputJUnitFile", "")
sys.exit(0 if path.startswith("${sourceDir}/build/") and path.endswith(".xml") else 1)
EOF

# The workflows.
wf=$SRC/.github/workflows
for f in ci.yml cflite_pr.yml cflite_batch.yml cflite_cron.yml; do
  [ -f "$wf/$f" ] || fail "missing .github/workflows/$f"
done
if ! "$PY" -c 'import yaml' 2>"$tmp/yaml.err"; then
  fail "$PY cannot import yaml (PyYAML), so the workflow files cannot be checked: install Debian's python3-yaml (\`make deps\`, tools/install-deps.sh): $(tail -n 1 "$tmp/yaml.err")"
  finish_failures "test_ci_config: "
fi
cat >"$tmp/check_workflows.py" <<'EOF'
import os, sys, yaml
wf = sys.argv[1]
bad = []
modes = {}
for name in sorted(os.listdir(wf)):
    if not name.endswith((".yml", ".yaml")):
        continue
    try:
        doc = yaml.safe_load(open(os.path.join(wf, name)))
    except yaml.YAMLError as e:
        bad.append("%s: %s" % (name, e))
        continue
    # YAML 1.1 reads the key `on` as True.
    if not isinstance(doc, dict) or "jobs" not in doc or not (
            "on" in doc or True in doc):
        bad.append("%s: no `on` or `jobs`" % name)
        continue
    for job in doc["jobs"].values():
        for step in job.get("steps", []):
            w = step.get("with", {}) or {}
            if "run_fuzzers" in str(step.get("uses", "")):
                modes.setdefault(name, set()).add(w.get("mode"))
ci = open(os.path.join(wf, "ci.yml")).read()
if "make test" not in ci:
    bad.append("ci.yml: does not run make test")
if "actions/upload-artifact" not in ci or "junit" not in ci:
    bad.append("ci.yml: does not upload the JUnit files")
want = {"cflite_pr.yml": {"code-change"}, "cflite_batch.yml": {"batch"},
        "cflite_cron.yml": {"prune", "coverage"}}
for name, m in want.items():
    if not m <= modes.get(name, set()):
        bad.append("%s: modes %s, want %s" % (name, modes.get(name), m))
print("\n".join(bad))
sys.exit(1 if bad else 0)
EOF
"$PY" "$tmp/check_workflows.py" "$wf" >"$tmp/yaml.out" 2>&1 ||
  fail "workflows: $(cat "$tmp/yaml.out")"
# The checker rejects what it must: a workflow without jobs, one that is not
# YAML, ClusterFuzzLite workflows without their modes.
mkdir "$tmp/wf-bad"
cp "$wf"/*.yml "$tmp/wf-bad/"
printf 'on: push\nname: no jobs\n' >"$tmp/wf-bad/nojobs.yml"
printf 'on: push\njobs: [unclosed\n' >"$tmp/wf-bad/broken.yml"
sed "s/mode: 'batch'/mode: 'fuzz'/" "$wf/cflite_batch.yml" >"$tmp/wf-bad/cflite_batch.yml"
"$PY" "$tmp/check_workflows.py" "$tmp/wf-bad" >"$tmp/yaml-bad.out" 2>&1 &&
  fail "the workflow check accepted a folder of bad workflows"
for want in "nojobs.yml: no \`on\` or \`jobs\`" "broken.yml: " \
  "cflite_batch.yml: modes"; do
  grep -qF "$want" "$tmp/yaml-bad.out" ||
    fail "the workflow check does not say '$want': $(cat "$tmp/yaml-bad.out")"
done

# What the workflows say of themselves, read as text (with or without
# PyYAML): a run that writes SARIF uploads it (with the permission to); a
# comment that says how long a ClusterFuzzLite run fuzzes calls fuzz-seconds
# the whole run's time, not a time per target; the unit job builds the
# target lctx_unit_tests, not the whole preset, and runs the unit tests
# through the test preset.
python3 - "$wf" >"$tmp/wf.out" 2>&1 <<'EOF' || fail "workflows: $(cat "$tmp/wf.out")"
import os, re, sys
wf = sys.argv[1]
bad = []
for name in sorted(os.listdir(wf)):
    if not name.endswith(".yml"):
        continue
    text = open(os.path.join(wf, name)).read()
    if re.search(r"output-sarif:\s*true", text):
        for need in ("github/codeql-action/upload-sarif",
                     "sarif_file: cifuzz-sarif/results.sarif",
                     "security-events: write"):
            if need not in text:
                bad.append("%s: writes SARIF (output-sarif: true) but has no %r"
                           % (name, need))
    comment = " ".join(l.lstrip("# ") for l in text.splitlines()
                       if l.startswith("#"))
    if "fuzz-seconds:" in text and re.search(
            r"(every|each) fuzz target for|per (fuzz )?target", comment):
        bad.append("%s: its comment gives a time per fuzz target; fuzz-seconds "
                   "is the whole run's time" % name)
ci = open(os.path.join(wf, "ci.yml")).read()
unit = re.search(r"\n  unit:\n(.*?)(?=\n  [a-z]|\Z)", ci, re.S)
if not unit or "--target lctx_unit_tests" not in unit.group(1):
    bad.append("ci.yml: the unit job does not build --target lctx_unit_tests")
if not unit or not re.search(r"ctest --preset test -L unit\b", unit.group(1)):
    bad.append("ci.yml: the unit job does not run ctest --preset test -L unit "
               "(the preset's sanitizer options and JUnit file)")
print("\n".join(bad))
sys.exit(1 if bad else 0)
EOF

# lctx_unit_tests builds every file a unit test runs from the build folder.
if [ -f "$BUILD/build.ninja" ]; then
  (cd "$BUILD" && ninja -t commands lctx_unit_tests) >"$tmp/inputs.txt" 2>&1 ||
    fail "ninja -t commands lctx_unit_tests: $(tail -n 3 "$tmp/inputs.txt")"
  (cd "$BUILD" && "$CTEST" -L unit --show-only=json-v1) >"$tmp/unit.json"
  python3 - "$tmp/unit.json" "$BUILD" "$tmp/inputs.txt" >"$tmp/unit.out" <<'EOF' ||
import json, os, re, sys
tests = json.load(open(sys.argv[1]))["tests"]
build = os.path.realpath(sys.argv[2]) + "/"
# What the target's commands write (-o FILE), as paths in the build folder.
inputs = {os.path.realpath(os.path.join(sys.argv[2], m))
          for m in re.findall(r"(?:^|\s)-o\s+(\S+)", open(sys.argv[3]).read())}
bad = []
for t in tests:
    for word in t.get("command", []):
        path = os.path.realpath(word)
        if path.startswith(build) and os.path.isfile(path) and \
                os.access(path, os.X_OK) and path not in inputs:
            bad.append("%s runs %s, which lctx_unit_tests does not build"
                       % (t["name"], word))
print("\n".join(bad))
sys.exit(1 if bad else 0)
EOF
    fail "unit target: $(cat "$tmp/unit.out")"
fi

# The base image: a version tag, not latest and not none.
from=$(sed -n 's/^FROM[[:space:]]*\([^[:space:]]*\).*/\1/p' "$SRC/.clusterfuzzlite/Dockerfile" | head -1)
case "$from" in
gcr.io/oss-fuzz-base/base-builder:latest | *:latest) fail "base image unpinned: $from" ;;
gcr.io/oss-fuzz-base/base-builder:v[0-9]* | gcr.io/oss-fuzz-base/base-builder@sha256:*) ;;
*) fail "base image not pinned to a version tag: '$from'" ;;
esac

finish_failures "test_ci_config: "
echo "test_ci_config: PASS"
