"""The built-in procedures of each catalog type (modules register like extensions would)."""

from __future__ import annotations

import importlib
import logging

from drydock.engine.lakehouse.procedures.base import Registry

logger = logging.getLogger(__name__)
BUILTIN_MODULES = {
    "lance": "drydock.engine.lakehouse.procedures.lance",
    "paimon": "drydock.engine.lakehouse.procedures.paimon",
}


def default_registry() -> Registry:
    registry = Registry()
    for catalog_type, module_name in BUILTIN_MODULES.items():
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name != module_name:
                raise
            logger.warning("no procedures for %s catalogs (%s missing)", catalog_type, module_name)
            continue
        for procedure in module.PROCEDURES:
            registry.register(catalog_type, procedure)
    return registry
