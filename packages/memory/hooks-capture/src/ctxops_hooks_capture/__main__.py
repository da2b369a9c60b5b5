from ctxops_contracts.shared.process_exit import exit_now, short_lived

short_lived()  # a hook process: no cyclic GC, and out without the interpreter's teardown
from .cli import main  # noqa: E402 - after short_lived, so imports run without collections

exit_now(main())  # a hook process: out without the interpreter's teardown
