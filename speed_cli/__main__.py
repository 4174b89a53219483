"""``python -m speed_cli``: the ``speed`` command."""

import sys

from speed_cli import main

sys.exit(main())
