"""``python -m papertrail.cli``: the same as the ``papertrail`` command."""

from papertrail.cli.main import command

command()
