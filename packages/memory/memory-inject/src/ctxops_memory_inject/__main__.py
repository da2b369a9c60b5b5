import sys

if sys.argv[1:2] == ["hook"]:  # the hook path: no argparse, no CLI grammar module
    from .hook import main as hook_main

    sys.exit(hook_main(sys.argv[2:]))

from .cli import main

sys.exit(main())
