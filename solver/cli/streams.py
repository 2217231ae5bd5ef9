"""The process's own streams: one-line error text, a stream that refused a write, input that is not UTF-8."""

from __future__ import annotations

import os
import re
import sys

from ..i18n.texts import CATALOGUES, language


def silence(stream) -> None:
    """Python's recipe (docs: signal, "Note on SIGPIPE"): point a stream that refused a write at devnull, so
    that the interpreter's last flush of what is still buffered cannot fail again ("Exception ignored ...")."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stream.fileno())
    except (OSError, ValueError, AttributeError):  # a stream without a file descriptor: nothing to flush into
        pass


CONTROL_CHARACTERS = [*range(0x20), 0x7F, *range(0x80, 0xA0)]
ESCAPED = str.maketrans({c: repr(chr(c))[1:-1] for c in CONTROL_CHARACTERS})  # "\n", "\x1b", "\x07"


# a byte of an argument that is not UTF-8 (Python's surrogateescape: U+DC80-U+DCFF), also as a quoted ({x!r})
# value writes it: a backslash escape
NOT_UTF8 = re.compile(r"[\udc80-\udcff]|\\udc[89a-f][0-9a-f]")


def error_line(message: str, lang: str | None = None, kind: str = "error_line") -> str:
    """`kniffel: error: ...` with the word in the language (`lang`, else the current one: a usage error's
    message speaks the command line's language before any command has set it; `kind` "warning_line" for a
    warning). One line, whatever the message quotes (a folder name may hold a line break), nothing a terminal
    would act on (an escape sequence or a bell in a file name is shown, not sent), and each byte of an
    argument that is not UTF-8 shown as �, as such a byte typed at a prompt is (tolerant_streams)."""
    shown = NOT_UTF8.sub("\ufffd", message.translate(ESCAPED))
    return "kniffel: " + CATALOGUES[lang or language()][kind].format(message=shown)


def tolerant_streams() -> None:
    """Input that is not UTF-8 is read with each bad byte as � (errors='replace'), and what stdout cannot
    encode is written as a backslash escape, whatever the locale: never a UnicodeError."""
    for stream, errors in ((sys.stdin, "replace"), (sys.stdout, "backslashreplace")):
        if getattr(stream, "errors", None) in ("strict", "surrogateescape") and hasattr(stream, "reconfigure"):
            try:
                stream.reconfigure(errors=errors)
            except (ValueError, OSError):  # a stream closed or not reconfigurable: it keeps its own rule
                pass
