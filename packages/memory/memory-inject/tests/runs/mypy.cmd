/work/wt/guard/.venv/bin/python -m mypy --strict --no-incremental api
