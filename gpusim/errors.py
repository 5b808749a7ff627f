"""The one exception type that the CLI turns into a one-line error and a non-zero exit."""


class GpusimError(ValueError):
    """A user-facing error: bad input, an impossible schedule, an unknown name.

    The message is one line and says what was wrong and what would be accepted.
    """
