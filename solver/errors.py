"""The one error base class for everything a user can get wrong.

The CLI turns exactly these (and OSError) into one line on stderr and exit code 2; any other
exception is a bug and keeps its traceback.
"""


class KniffelError(ValueError):
    """Bad input or a bad file: says what was wrong and what is allowed."""
