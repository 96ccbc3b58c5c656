#!/usr/bin/env python3
"""A test implementation under test (process protocol) that is correct,
being the example implementation, except where a case's jax_platform_name
asks it to misbehave:
  EXIT     exit in the middle of the batch
  HANG     stop answering
  GARBAGE  answer with a line that is not JSON
  FLOOD    answer with a line longer than 16 MiB
  ERROR    report {"error": ...} for that case
  WORDING  reword every raised message (same classes)
  NASTY    reword raised messages into markup-breaking text: < & ]]>
           quotes and control characters
Used by tests/test_conform.sh to pin lctx conform's isolation and verdicts.
"""
import json
import sys
import time

import example_wrap
from example_wrap import lctx_example


def main():
    for line in sys.stdin:
        message = json.loads(line)
        if message.get("lctx") == "hello":
            example_wrap.hello("lctx-misbehaving-py", "0.0.1")
            continue
        if message.get("lctx") == "bye":
            return
        results = []
        for case in message["cases"]:
            mode = case.get("jax_platform_name", "")
            if mode == "EXIT":
                sys.exit(3)
            if mode == "HANG":
                time.sleep(3600)
            if mode == "GARBAGE":
                print("this is not json", flush=True)
                break
            if mode == "FLOOD":
                sys.stdout.write("[" + " " * (17 << 20) + "]\n")
                sys.stdout.flush()
                break
            if mode == "ERROR":
                results.append({"error": "deliberate failure"})
                continue
            result = lctx_example.run_case(case)
            if mode == "NASTY":
                example_wrap.reword(
                    result, "<b>&amp; ]]> \"q\" 'a' \x01\x1b\x7f end")
            if mode == "WORDING":
                example_wrap.reword(result, "something else went wrong")
            results.append(result)
        else:
            print(json.dumps({"id": message["id"], "results": results}),
                  flush=True)


if __name__ == "__main__":
    main()
