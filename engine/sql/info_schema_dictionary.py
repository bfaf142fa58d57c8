"""information_schema's key and constraint views, and the data dictionary's rows the COLUMNS and
TABLES views read (engine/sql/info_schema.py).

A table with a definition in the data dictionary is answered from the rows the store worked out
when the definition was saved (engine/dictionary/info_rows.py): they are unnested here, joined to
DuckDB's own listing so that names keep their spelling and only existing tables show. A table
without one (created before the dictionary, or by CREATE TABLE … AS SELECT) is answered from
DuckDB's PRIMARY KEY / UNIQUE constraints, as before the dictionary.
"""

from __future__ import annotations

from drydock.engine.dictionary import store as dictionary_store
from drydock.engine.session import INTERNAL

HIDDEN_SCHEMAS = ("information_schema", "pg_catalog", "main", dictionary_store.SCHEMA)
_NOCASE = "COLLATE NOCASE"

# the tables that have a definition, with DuckDB's spelling of their names
DEFINED = f"""(
    SELECT t.schema_name, t.table_name, t.estimated_size, d.definition, d.columns_rows,
           d.statistics_rows,
           d.constraint_rows, d.key_column_rows, d.referential_rows, d.check_rows
    FROM duckdb_tables() AS t JOIN {dictionary_store.TABLE} AS d
      ON d.schema_name = lower(t.schema_name) AND d.table_name = lower(t.table_name)
    WHERE t.database_name = '{INTERNAL}' AND t.schema_name NOT IN {HIDDEN_SCHEMAS}
)"""

# JSON structure of each kind of row (engine/dictionary/info_rows.py)
_STRUCTURES = {
    "columns_rows": {
        "column_name": "VARCHAR",
        "mysql": "BOOLEAN",
        "data_type": "VARCHAR",
        "column_type": "VARCHAR",
        "character_maximum_length": "BIGINT",
        "character_octet_length": "BIGINT",
        "numeric_precision": "INTEGER",
        "numeric_scale": "INTEGER",
        "datetime_precision": "INTEGER",
        "character_set_name": "VARCHAR",
        "collation_name": "VARCHAR",
        "is_nullable": "VARCHAR",
        "column_default": "VARCHAR",
        "column_key": "VARCHAR",
        "extra": "VARCHAR",
        "column_comment": "VARCHAR",
    },
    "statistics_rows": {
        "index_name": "VARCHAR",
        "non_unique": "INTEGER",
        "seq_in_index": "BIGINT",
        "column_name": "VARCHAR",
        "collation": "VARCHAR",
        "sub_part": "BIGINT",
        "nullable": "VARCHAR",
        "index_type": "VARCHAR",
        "index_comment": "VARCHAR",
    },
    "constraint_rows": {
        "constraint_name": "VARCHAR",
        "constraint_type": "VARCHAR",
        "enforced": "VARCHAR",
    },
    "key_column_rows": {
        "constraint_name": "VARCHAR",
        "column_name": "VARCHAR",
        "ordinal_position": "BIGINT",
        "position_in_unique_constraint": "BIGINT",
        "referenced_table_schema": "VARCHAR",
        "referenced_table_name": "VARCHAR",
        "referenced_column_name": "VARCHAR",
    },
    "referential_rows": {
        "constraint_name": "VARCHAR",
        "unique_constraint_schema": "VARCHAR",
        "referenced_table_name": "VARCHAR",
        "referenced_columns": "VARCHAR",
        "update_rule": "VARCHAR",
        "delete_rule": "VARCHAR",
    },
    "check_rows": {"constraint_name": "VARCHAR", "check_clause": "VARCHAR"},
}


def rows(kind: str) -> str:
    """The dictionary's ``kind`` rows of every defined table, with its schema and name."""
    structure = "[{" + ", ".join(f'"{k}": "{v}"' for k, v in _STRUCTURES[kind].items()) + "}]"
    return f"""(
        SELECT schema_name, table_name, estimated_size,
               unnest(from_json({kind}, '{structure}'), recursive := true)
        FROM {DEFINED}
    )"""


# DuckDB's PRIMARY KEY / UNIQUE constraints of the tables without a definition
_DUCK_KEYS = f"""(
    SELECT schema_name, table_name, constraint_column_names AS columns,
           CASE WHEN constraint_type = 'PRIMARY KEY' THEN 'PRIMARY KEY' ELSE 'UNIQUE' END AS
               key_type,
           CASE WHEN constraint_type = 'PRIMARY KEY' THEN 'PRIMARY'
                ELSE constraint_column_names[1] END AS key_name
    FROM duckdb_constraints() AS c
    WHERE database_name = '{INTERNAL}' AND schema_name NOT IN {HIDDEN_SCHEMAS}
      AND constraint_type IN ('PRIMARY KEY', 'UNIQUE')
      AND NOT EXISTS (SELECT 1 FROM {dictionary_store.TABLE} AS d
                      WHERE d.schema_name = lower(c.schema_name)
                        AND d.table_name = lower(c.table_name))
)"""
DUCK_KEY_COLUMNS = f"""(
    SELECT schema_name, table_name, key_name, key_type, u.column_name, u.ordinal_position
    FROM {_DUCK_KEYS} AS k,
         LATERAL (SELECT unnest(k.columns) AS column_name,
                         generate_subscripts(k.columns, 1) AS ordinal_position) AS u
)"""

VIEWS = {
    "table_constraints": f"""
        SELECT constraint_name, 'def' AS constraint_catalog, schema_name AS constraint_schema,
               schema_name AS table_schema, table_name,
               constraint_type {_NOCASE} AS constraint_type, enforced
        FROM {rows("constraint_rows")}
        UNION ALL
        SELECT key_name, 'def', schema_name, schema_name, table_name, key_type {_NOCASE}, 'YES'
        FROM {_DUCK_KEYS}
    """,
    "key_column_usage": f"""
        SELECT 'def' AS constraint_catalog, schema_name AS constraint_schema, constraint_name,
               'def' AS table_catalog, schema_name AS table_schema, table_name, column_name,
               ordinal_position, position_in_unique_constraint, referenced_table_schema,
               referenced_table_name, referenced_column_name
        FROM {rows("key_column_rows")}
        UNION ALL
        SELECT 'def', schema_name, key_name, 'def', schema_name, table_name, column_name,
               ordinal_position, NULL, NULL, NULL, NULL
        FROM {DUCK_KEY_COLUMNS}
    """,
    "statistics": f"""
        SELECT 'def' AS table_catalog, schema_name AS table_schema, table_name, non_unique,
               schema_name AS index_schema, index_name, seq_in_index, column_name, "collation",
               estimated_size::BIGINT AS cardinality, sub_part::VARCHAR AS sub_part,
               NULL::VARCHAR AS packed, nullable, index_type, '' AS comment, index_comment,
               'YES' AS is_visible, NULL::VARCHAR AS expression
        FROM {rows("statistics_rows")}
        UNION ALL
        SELECT 'def', schema_name, table_name, 0, schema_name, key_name, ordinal_position,
               column_name, 'A', NULL, NULL, NULL, '', 'BTREE', '', '', 'YES', NULL
        FROM {DUCK_KEY_COLUMNS}
    """,
    # CARDINALITY: an upper bound, the table's estimated row count (MySQL's is an estimate of
    # the distinct values, 0 for an empty table)
    # UNIQUE_CONSTRAINT_NAME: the referenced table's PRIMARY KEY or UNIQUE key on exactly the
    # referenced columns (MySQL 8.0 names it; NULL when there is none)
    "referential_constraints": f"""
        SELECT 'def' AS constraint_catalog, r.schema_name AS constraint_schema,
               r.constraint_name, 'def' AS unique_constraint_catalog,
               r.unique_constraint_schema,
               (SELECT min(k.constraint_name ORDER BY k.constraint_name <> 'PRIMARY')
                FROM (SELECT schema_name, table_name, constraint_name,
                             string_agg(lower(column_name), ',' ORDER BY ordinal_position)
                                 AS columns
                      FROM {rows("key_column_rows")}
                      WHERE referenced_table_name IS NULL GROUP BY ALL) AS k
                WHERE lower(k.schema_name) = lower(r.unique_constraint_schema)
                  AND lower(k.table_name) = lower(r.referenced_table_name)
                  AND k.columns = r.referenced_columns) AS unique_constraint_name,
               'NONE' AS match_option, r.update_rule, r.delete_rule, r.table_name,
               r.referenced_table_name
        FROM {rows("referential_rows")} AS r
    """,
    "check_constraints": """
        SELECT constraint_catalog, constraint_schema, constraint_name, check_clause
        FROM mysql_is.main.__drydock_check_constraints
    """,
}
# CHECK_CONSTRAINTS with the table each check belongs to, which MySQL's view does not show: what
# a user who may not see every table is filtered on (engine/sql/adapt.py)
CHECKS_BY_TABLE = f"""
    SELECT 'def' AS constraint_catalog, schema_name AS constraint_schema, constraint_name,
           check_clause, table_name
    FROM {rows("check_rows")}
"""
BY_TABLE = {
    "check_constraints": (
        ("constraint_catalog", "constraint_schema", "constraint_name", "check_clause"),
        "__drydock_check_constraints",
    )
}
