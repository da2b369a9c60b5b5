/work/wt/guard/.venv/bin/python -m pytest api/tests -v -p no:cacheprovider --junitxml=junit.xml
