from ctxops_contracts.shared.process_exit import exit_now

from .cli import main

exit_now(main())  # a hook process: out without the interpreter's teardown
