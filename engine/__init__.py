"""The engine: everything with meaning, reachable without a socket.

Loose here are the foundation every layer shares — ``errors.py`` (the one error table: code,
SQLSTATE, message), ``results.py`` (what every statement returns), ``ast.py`` (the statement
objects the grammar produces), ``session.py`` (per-connection state) — and ``core.py``, the
composition root that builds every collaborator once (it declares its own imports). The layers,
lowest first:

- ``support/``   pure helpers: names, instants, LIKE, locations, URL secrets, config key names,
metrics
- ``store/``     the metadata store (SQLite, PostgreSQL), the frontends' lease, the typed config
- ``security/``  users, privileges, the account rule, audit, redaction
- ``lakehouse/`` Lance and Paimon: catalog connectors and manager, placement, procedures per format
- ``dictionary/`` the data dictionary: internal tables' MySQL definitions, kept beside them
- ``sql/``       the plain-SQL pipeline: MySQL semantics over DuckDB, session variables, metadata
- ``jobs/``      Lance index jobs: ``control/`` (states, records, manager, dispatcher…),
``runtime/``
                 (the backends that run builds: local supervisor, Ray) and the worker process
- ``statements/`` one module per statement family, and ``execute()``

Each package's docstring says which packages it may import (tests/unit/test_layers.py enforces
it, and that no import circle exists).

May import: `drydock.engine.support`.
"""
