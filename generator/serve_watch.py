"""Wake `cadence serve`'s loop as soon as a watched file changes, not at its next look.

The loop still finds what changed by comparing snapshots of the watched folders; this only ends its wait
early, so a save is staged at once rather than up to a look's interval later (0.15 s on average). The events
come from watchdog, the watcher MkDocs' own server uses (inotify on Linux, the native API elsewhere). Where no
watcher can be started (no inotify watches left, a folder that vanished) the loop looks at its interval, as
it did before.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType

from watchdog import events
from watchdog.observers import Observer
from watchdog.observers.api import BaseObserver

#: The events watched: writes only. The staging reads every data file after each edit, and an event for each
#: of those reads would be handled in Python, beside the staging (a tenth of a second at 10x).
WRITES: list[type[events.FileSystemEvent]] = [
    events.FileCreatedEvent,
    events.DirCreatedEvent,
    events.FileModifiedEvent,
    events.FileClosedEvent,
    events.FileDeletedEvent,
    events.DirDeletedEvent,
    events.FileMovedEvent,
    events.DirMovedEvent,
]


class _Changed(events.FileSystemEventHandler):
    def __init__(self, changed: threading.Event) -> None:
        self.changed = changed

    def on_any_event(self, event: events.FileSystemEvent) -> None:
        self.changed.set()


class Wakeup:
    """An event set by any write under the watched folders or in the project's own folder."""

    def __init__(self, root: Path, folders: Sequence[str]) -> None:
        self._changed = threading.Event()
        self._observer: BaseObserver | None = None
        handler = _Changed(self._changed)
        observer = Observer()
        try:
            observer.schedule(handler, str(root), recursive=False, event_filter=WRITES)  # mkdocs.yml
            for folder in folders:
                if (root / folder).is_dir():
                    observer.schedule(handler, str(root / folder), recursive=True, event_filter=WRITES)
            observer.daemon = True
            observer.start()
        except (OSError, RuntimeError):
            return
        self._observer = observer

    @property
    def watching(self) -> bool:
        return self._observer is not None

    def wait(self, timeout: float) -> bool:
        """Return when a file changed since the last return (True), or after `timeout` seconds (False)."""
        if self._observer is None:
            time.sleep(timeout)
            return False
        changed = self._changed.wait(timeout)
        self._changed.clear()
        return changed

    def close(self) -> None:
        if self._observer is not None:
            self._observer.stop()
            self._observer.join(timeout=2)
            self._observer = None

    def __enter__(self) -> Wakeup:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None) -> None:
        self.close()
