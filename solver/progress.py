"""Progress bars on stderr (tqdm) whose elapsed time keeps moving while nothing is counted yet: the first
use compiles its kernels before the first step (10-40 s), a Kniffel 7 layer takes minutes between steps.
A frozen '0%' for half a minute looks like a hang; a clock that moves does not."""

from __future__ import annotations

import threading

from tqdm import tqdm

REDRAW = 1.0  # seconds without a redraw before the bar's own thread redraws it


class LiveBar(tqdm):
    """A tqdm bar redrawn by a thread of its own when it has not been redrawn for REDRAW seconds (shown only
    on a terminal, as tqdm's are); the thread ends with the bar."""

    def __init__(self, *args, **kwargs) -> None:
        self._done = threading.Event()  # before tqdm's own __init__, which may close a bar at once
        super().__init__(*args, **kwargs)
        if not self.disable:
            threading.Thread(target=self._redraw, daemon=True, name="kniffel-progress").start()

    def _redraw(self) -> None:
        while not self._done.wait(REDRAW):
            if not self.disable and self._time() - self.last_print_t >= REDRAW:
                self.refresh()

    def close(self) -> None:
        self._done.set()
        super().close()
