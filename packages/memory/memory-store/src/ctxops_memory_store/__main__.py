import sys

from .fastcli import main as fast_main

# search/show answered from the read snapshot before the CLI (argparse, msgspec, the store) is imported
status = fast_main(sys.argv[1:])
if status is None:
    from .cli import main

    status = main()
sys.exit(status)
