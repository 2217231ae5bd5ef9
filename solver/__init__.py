"""kniffel: exact optimal-strategy solver and advisor for solitaire Kniffel and its variants."""

__version__ = "0.1.0"
