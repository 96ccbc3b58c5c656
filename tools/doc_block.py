"""tools/doc_block.py - a block of figures in a document, written from a
record and checked against it: what tools/generate_figures.py and
tools/test_figures.py share (their --write and --check). A block runs from
its BEGIN marker to its END marker; only it is replaced. Standard library
only."""

import json
import os


class BadInput(Exception):
    pass


def read(path):
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except (OSError, UnicodeDecodeError) as e:
        raise BadInput("cannot read %s: %s" % (path, e))


def replace_block(text, new, begin, end, where):
    """`text` with its block from `begin` to `end` replaced by `new`."""
    b, e = text.find(begin), text.find(end)
    if b < 0 or e < b:
        raise BadInput("%s has no block %s ... %s" % (where, begin, end))
    return text[:b] + new + text[e + len(end):]


def write_or_check(tool, mode, readme, record, block, begin, end):
    """--write puts block(the JSON of `record`) into README's block;
    --check says whether it is there already. Returns the exit status
    (0, or 1 when --check disagrees); raises BadInput."""
    try:
        fig = json.loads(read(record))
        text = read(readme)
        new = replace_block(text, block(fig), begin, end, readme)
    except (ValueError, KeyError, TypeError, IndexError) as e:
        raise BadInput("%s: not a record of %s: %s" % (record, tool, e))
    if mode == "--check":
        if new != text:
            print("%s: %s's block is not what %s gives (run: python3 "
                  "tools/%s.py --write %s %s)"
                  % (tool, readme, record, tool, readme, record))
            return 1
        print("%s: %s agrees with %s" % (tool, readme, record))
        return 0
    with open(readme + ".tmp", "w", encoding="utf-8") as f:
        f.write(new)
    os.replace(readme + ".tmp", readme)
    print("%s: wrote the block of %s" % (tool, readme))
    return 0


def write_record(fig, path):
    """Keeps the figures `fig` as the record `path` (JSON, keys sorted)."""
    with open(path, "w", encoding="utf-8") as f:
        json.dump(fig, f, indent=1, sort_keys=True)
        f.write("\n")
