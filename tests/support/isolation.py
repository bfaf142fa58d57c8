"""What worker isolation this machine offers the tests, and why not when it does not.

Tests that need real cgroups skip with the reason instead of failing where the hierarchy is not
writable (not root, a container without delegation); tests that read cgroup v1 files say so too.
"""

from __future__ import annotations

import os

import pytest


def cgroups_unavailable() -> str | None:
    """None if drydock can make worker cgroups here (v1 memory or v2 unified), else why not."""
    if os.geteuid() != 0:
        return "not root: cgroup hierarchies are not writable"
    if not any(
        os.access(p, os.W_OK)
        for p in ("/sys/fs/cgroup/memory", "/sys/fs/cgroup/cgroup.controllers")
    ):
        return "no writable cgroup v1 memory or cgroup v2 hierarchy"
    return None


def cgroup_v1_unavailable() -> str | None:
    """None if the v1 memory and pids controllers are writable (the files some tests read)."""
    reason = cgroups_unavailable()
    if reason is None and not all(
        os.access(f"/sys/fs/cgroup/{c}", os.W_OK) for c in ("memory", "pids")
    ):
        reason = (
            "these assertions read cgroup v1 memory/pids files; "
            "this machine has no writable v1 hierarchy"
        )
    return reason


needs_cgroups = pytest.mark.skipif(
    cgroups_unavailable() is not None, reason=str(cgroups_unavailable())
)
needs_cgroup_v1 = pytest.mark.skipif(
    cgroup_v1_unavailable() is not None, reason=str(cgroup_v1_unavailable())
)
