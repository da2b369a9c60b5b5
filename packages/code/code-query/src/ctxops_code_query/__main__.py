import os

# Usage lines name what the user typed (docs/cli-reference.md); `ctx code` sets its own name first.
os.environ.setdefault("CTXOPS_PROG", "python -m ctxops_code_query")

from .cli import main

raise SystemExit(main())
