"""The one error type PaperTrail raises on purpose.

Its message is written for the person in the channel: what happened and how to
fix it. Adapters post it as a reply, the CLI prints it as one line. Anything
else that escapes is a bug and is logged, never shown raw.
"""


class PaperTrailError(Exception):
    """A failure the user can understand and act on.

    ``code`` is a short stable tag ("encrypted", "too_large", ...) for tests,
    metrics and adapters that want to phrase a reply differently.
    """

    def __init__(self, message: str, *, code: str = "error") -> None:
        super().__init__(message)
        self.message = message
        self.code = code

    def __str__(self) -> str:
        return self.message
