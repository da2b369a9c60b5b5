"""Hook command used by the tests: append the stdin payload as one JSON line to the file named in argv[1].

Standard library only and always exits 0 with no output, so the hook never changes what Claude Code does.
"""

from __future__ import annotations

import fcntl
import json
import sys


def main() -> int:
    raw = sys.stdin.read()
    try:
        line = json.dumps(json.loads(raw), sort_keys=False)
    except ValueError:
        line = json.dumps({"unparsed_stdin": raw})
    with open(sys.argv[1], "a", encoding="utf-8") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)  # hooks of parallel tool calls run concurrently
        fh.write(line + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
