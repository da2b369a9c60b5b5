from . import cli

# Usage lines name what the user typed (docs/cli-reference.md). Not an environment variable: that would
# leak into the detached update this process may start, and name it wrongly there.
cli.DEFAULT_PROG = "python -m ctxops_code_query"

raise SystemExit(cli.main())
