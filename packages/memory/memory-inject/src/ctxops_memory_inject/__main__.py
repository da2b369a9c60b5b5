import sys

if sys.argv[1:2] == ["hook"]:  # the hook path: no argparse, no CLI grammar module, no interpreter teardown
    from ctxops_contracts.shared.process_exit import exit_now, short_lived

    short_lived()
    from .hook import main as hook_main

    exit_now(hook_main(sys.argv[2:]))

from .cli import main

sys.exit(main())
