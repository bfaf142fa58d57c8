"""The metadata store — the journal of every durable fact — on SQLite or PostgreSQL
(``metastore.py``, ``metastore_pg.py``, opened by ``open.py``), the typed frontend config kept in
it (``config.py``), and the lease frontends sharing one store elect a dispatcher with
(``frontends.py``).

May import: `drydock.engine`, `drydock.engine.support`.
"""
