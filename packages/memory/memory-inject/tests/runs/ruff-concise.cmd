/work/wt/guard/.venv/bin/python -m ruff check --select E,F,W,B,UP,ANN,PL,N --no-cache --output-format concise api
