"""The package's version, at the bottom: the table files record which solver wrote them (solver/store), and
solver/__init__.py hands it on as solver.__version__."""

__version__ = "0.1.0"
