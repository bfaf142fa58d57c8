"""Packaging: the repository's folders installed under one top-level name, ``drydock``.

``engine/`` becomes ``drydock.engine`` and so on (``drydock`` itself is a namespace package; an
editable install maps it onto the repository root). Everything else is in pyproject.toml.
"""

from setuptools import find_packages, setup

FOLDERS = ("engine", "server", "grammar", "regression")

setup(
    packages=[
        "drydock." + name for name in find_packages(include=[f"{folder}*" for folder in FOLDERS])
    ],
    package_dir={"drydock": "."},
)
