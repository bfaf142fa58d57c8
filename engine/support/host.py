"""Which machine this process runs on, as recorded with each index worker.

A worker's pid and start time mean something only on its own host: another frontend sharing the
metadata store must not read them against its own /proc (a pid absent here proves nothing about a
process there). The id is the systemd/D-Bus machine id (stable across reboots and renames), or the
host name where there is none.
"""

from __future__ import annotations

import functools
import socket
from pathlib import Path

_MACHINE_ID_FILES = (Path("/etc/machine-id"), Path("/var/lib/dbus/machine-id"))


@functools.cache
def host_id() -> str:
    for path in _MACHINE_ID_FILES:
        try:
            text = path.read_text().strip()
        except OSError:
            continue
        if text:
            return f"machine:{text}"
    return f"host:{socket.gethostname()}"
