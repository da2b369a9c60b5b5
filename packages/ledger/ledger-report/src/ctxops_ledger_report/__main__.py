import sys

from .entry import fast_statusline

if fast_statusline(sys.argv[1:]):
    from .statusline import main as statusline_main

    sys.exit(statusline_main(sys.argv[2:]))

from .cli import main

sys.exit(main())
