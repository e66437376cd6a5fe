"""``python -m papertrail.cli``: the same as the ``papertrail`` command."""

import sys

from papertrail.cli.main import main

sys.exit(main())
