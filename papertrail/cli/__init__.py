"""The ``papertrail`` command-line front end: ask, ingest, docs, forget, demo.

A user of the pipeline, never used by it: nothing in ``papertrail`` outside this
package imports it. ``main`` parses the command line; ``report`` prints answers;
``demo`` and ``sample`` build and ask a sample report; ``progress`` draws bars.
The measuring commands live in ``papertrail.measure`` and are dispatched from here.
"""

from papertrail.cli.main import command, main

__all__ = ["command", "main"]
