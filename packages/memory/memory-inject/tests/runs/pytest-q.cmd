/work/wt/guard/.venv/bin/python -m pytest api/tests -q -p no:cacheprovider
