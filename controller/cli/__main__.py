"""``python -m controller.cli`` runs the ``hakem`` command."""

import sys

from controller.cli import main

sys.exit(main())
