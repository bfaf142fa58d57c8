"""Where a catalog may point, applied: engine/support/locations.py reads locations and holds the
rules; :class:`Placement` checks a catalog's properties with the live config."""

from __future__ import annotations

from pathlib import Path

from drydock.engine.errors import Errors
from drydock.engine.lakehouse.catalogs import paimon_metastores
from drydock.engine.security.privileges import Privilege
from drydock.engine.store.config import Config
from drydock.engine.support.locations import (
    LOCAL_ROOTS_KEY,
    OBJECT_PREFIXES_KEY,
    WAREHOUSE_KEYS,
    Location,
    is_allowed,
    local_roots,
    locate,
    object_prefixes,
    overlaps,
)


class Placement:
    """Applies the rules with the live config and the engine's data directory."""

    def __init__(self, config: Config, data_dir: Path):
        self._config = config
        self._data_dir = str(data_dir)

    def check(
        self, catalog: str, properties: dict[str, str], admin: bool, written: dict[str, str]
    ) -> None:
        """Raise unless every location in ``properties`` may be used by this user.

        ``written`` holds what the statement itself wrote: only those values are echoed back.
        """
        if properties.get("type", "").strip().lower() == "paimon":
            if paimon_metastores.needs_admin(properties) and not admin:
                raise Errors.SPECIFIC_ACCESS_DENIED.error(priv=Privilege.ADMIN.verb)
            if not paimon_metastores.uses_warehouse_path(properties):
                return  # a REST warehouse is a name its service resolves, not a location here
        for key in WAREHOUSE_KEYS:
            value = properties.get(key)
            if not value:
                continue
            location = locate(value)
            subject = (
                f"warehouse '{value}'"
                if written.get(key) == value
                else f"the warehouse of catalog '{catalog}'"
            )
            if not admin and not self._allowed(location):
                raise Errors.CATALOG_LOCATION_NOT_ALLOWED.error(
                    subject=subject, key=location.config_key
                )
            if overlaps(location, self._data_dir):
                raise Errors.CATALOG_LOCATION_RESERVED.error(subject=subject)

    def _allowed(self, location: Location) -> bool:
        return is_allowed(
            location,
            local_roots(self._config.get(LOCAL_ROOTS_KEY)),
            object_prefixes(self._config.get(OBJECT_PREFIXES_KEY)),
        )
