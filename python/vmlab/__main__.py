"""``python -m vmlab`` is the ``vmlab`` command."""

import sys

from vmlab.cli import main

sys.exit(main())
