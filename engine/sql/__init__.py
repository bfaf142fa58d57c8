"""The plain-SQL pipeline: every statement the grammar does not own, run on DuckDB with MySQL's
semantics. In order: session limits and variables applied on the AST (``session_limits.py``,
``user_variables.py``), MySQL functions and DDL/DML forms rewritten (``mysql_functions.py``,
``mysql_ddl.py``, ``mysql_dml.py``), relations resolved for authorization (``sql_relations.py``),
then run (``query.py``, in steps: ``adapt.py`` to DuckDB's AST, ``count_pushdown.py``, binding in
``external_binding.py``, verification against DuckDB's own parse in ``verdict_cache.py``,
execution and streaming in ``execution.py``; strict-mode rules, keys under the collation,
foreign keys and checks of internal tables with a dictionary definition checked first in
``enforcement.py`` with ``enforce_values.py``, ``enforce_sql.py``, ``enforce_foreign_keys.py``,
``enforce_checks.py``) with MySQL's errors (``duckdb_errors.py``) and column origins
(``result_origins.py``). Around it: ``metadata.py`` (one view of databases, tables and
columns), ``info_schema.py``, ``transactions.py`` (and ``savepoints.py``), ``collation.py``,
``deadlines.py`` (max_execution_time), ``identifiers.py`` (identifiers in SQL text drydock
writes).

May import: `drydock.engine`, `drydock.engine.support`, `drydock.engine.store`,
`drydock.engine.security`, `drydock.grammar`, `drydock.engine.lakehouse`,
`drydock.engine.search`, `drydock.engine.dictionary`.
"""
