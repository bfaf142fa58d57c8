"""drydock's data dictionary for internal tables: each table's MySQL definition as declared
(``model.py``), read from MySQL DDL (``declare.py``), kept in the internal DuckDB database in the
same transaction as the table's own DDL (``store.py``).

May import: `drydock.engine`, `drydock.engine.support`.
"""
