"""A MySQL-shaped information_schema answered from real metadata.

JDBC drivers and BI tools query information_schema with MySQL's column names and functions
(COLUMN_TYPE, EXTRA, LEAST, IF, ...). DuckDB's own information_schema lacks several of those
columns, so drydock attaches an in-memory database ``mysql_is`` holding MySQL-compatible views over
``duckdb_schemas()`` / ``duckdb_tables()`` / ``duckdb_columns()`` of the internal catalog, and the
query layer points every ``information_schema.X`` reference there. Tables drydock has nothing for
exist with their MySQL columns and no rows, so tools that probe them get an empty answer.
"""

from __future__ import annotations

import duckdb
from mysql_mimic.constants import INFO_SCHEMA

ATTACHED_NAME = "mysql_is"
INTERNAL = "internal"  # the internal catalog's DuckDB database name
HIDDEN_SCHEMAS = ("information_schema", "pg_catalog", "main")

# MySQL's DATA_TYPE / COLUMN_TYPE spelling of DuckDB's types.
_MYSQL_TYPE = """
CASE
  WHEN data_type IN ('VARCHAR') THEN 'varchar'
  WHEN data_type = 'BOOLEAN' THEN 'tinyint'
  WHEN data_type = 'TINYINT' THEN 'tinyint'
  WHEN data_type = 'SMALLINT' THEN 'smallint'
  WHEN data_type = 'INTEGER' THEN 'int'
  WHEN data_type = 'BIGINT' THEN 'bigint'
  WHEN data_type = 'HUGEINT' THEN 'decimal'
  WHEN data_type IN ('UTINYINT','USMALLINT','UINTEGER','UBIGINT') THEN 'bigint'
  WHEN data_type = 'FLOAT' THEN 'float'
  WHEN data_type = 'DOUBLE' THEN 'double'
  WHEN data_type LIKE 'DECIMAL%' THEN 'decimal'
  WHEN data_type = 'DATE' THEN 'date'
  WHEN data_type LIKE 'TIMESTAMP%' THEN 'datetime'
  WHEN data_type LIKE 'TIME%' THEN 'time'
  WHEN data_type = 'BLOB' THEN 'blob'
  WHEN data_type = 'JSON' THEN 'json'
  ELSE 'text'
END
"""

_REAL_VIEWS = {
    "schemata": f"""
        SELECT 'def' AS catalog_name, schema_name, 'utf8mb4' AS default_character_set_name,
               'utf8mb4_0900_ai_ci' AS default_collation_name, NULL::VARCHAR AS sql_path
        FROM (
            SELECT schema_name FROM duckdb_schemas()
            WHERE database_name = '{INTERNAL}' AND schema_name NOT IN {HIDDEN_SCHEMAS}
            UNION ALL SELECT 'information_schema'
        )
    """,
    "tables": f"""
        SELECT 'def' AS table_catalog, schema_name AS table_schema, table_name,
               'BASE TABLE' AS table_type, 'DuckDB' AS engine, 10 AS version,
               'Dynamic' AS row_format, estimated_size AS table_rows, 0 AS avg_row_length,
               0 AS data_length, 0 AS max_data_length, 0 AS index_length, 0 AS data_free,
               NULL::BIGINT AS auto_increment, NULL::TIMESTAMP AS create_time,
               NULL::TIMESTAMP AS update_time, NULL::TIMESTAMP AS check_time,
               'utf8mb4_0900_ai_ci' AS table_collation, NULL::BIGINT AS checksum,
               '' AS create_options, coalesce(comment, '') AS table_comment
        FROM duckdb_tables()
        WHERE database_name = '{INTERNAL}' AND schema_name NOT IN {HIDDEN_SCHEMAS}
        UNION ALL
        SELECT 'def', schema_name, view_name, 'VIEW', NULL, NULL, NULL, NULL, 0, 0, 0, 0, 0,
               NULL, NULL, NULL, NULL, NULL, NULL, '', coalesce(comment, '')
        FROM duckdb_views()
        WHERE database_name = '{INTERNAL}' AND schema_name NOT IN {HIDDEN_SCHEMAS}
          AND NOT internal
    """,
    "columns": f"""
        SELECT 'def' AS table_catalog, schema_name AS table_schema, table_name, column_name,
               column_index AS ordinal_position, column_default,
               CASE WHEN is_nullable THEN 'YES' ELSE 'NO' END AS is_nullable,
               {_MYSQL_TYPE} AS data_type,
               CASE WHEN data_type = 'VARCHAR' THEN coalesce(character_maximum_length, 65535)
                    END AS character_maximum_length,
               CASE WHEN data_type = 'VARCHAR' THEN coalesce(character_maximum_length, 65535) * 4
                    END AS character_octet_length,
               numeric_precision, numeric_scale,
               CASE WHEN data_type LIKE 'TIMESTAMP%' THEN 0 END AS datetime_precision,
               CASE WHEN data_type = 'VARCHAR' THEN 'utf8mb4' END AS character_set_name,
               CASE WHEN data_type = 'VARCHAR' THEN 'utf8mb4_0900_ai_ci' END AS collation_name,
               CASE WHEN data_type LIKE 'DECIMAL%' THEN lower(data_type)
                    WHEN data_type = 'VARCHAR' THEN 'varchar(' || coalesce(character_maximum_length, 65535) || ')'
                    WHEN data_type IN ('UTINYINT','USMALLINT','UINTEGER','UBIGINT')
                         THEN {_MYSQL_TYPE} || ' unsigned'
                    ELSE {_MYSQL_TYPE} END AS column_type,
               '' AS column_key, '' AS extra, 'select' AS privileges,
               coalesce(comment, '') AS column_comment, '' AS generation_expression,
               NULL::VARCHAR AS srs_id
        FROM duckdb_columns()
        WHERE database_name = '{INTERNAL}' AND schema_name NOT IN {HIDDEN_SCHEMAS}
    """,
}

_DUCK_TYPE = {"TEXT": "VARCHAR", "INT": "BIGINT"}


def _empty_view(columns: dict[str, str]) -> str:
    cols = ", ".join(f"NULL::{_DUCK_TYPE.get(t, 'VARCHAR')} AS {name}" for name, t in columns.items())
    return f"SELECT {cols} WHERE false"


def install(con: duckdb.DuckDBPyConnection) -> None:
    """Attach ``mysql_is`` and (re)create its views. Idempotent."""
    attached = {r[0] for r in con.execute("SELECT database_name FROM duckdb_databases()").fetchall()}
    if ATTACHED_NAME not in attached:
        con.execute(f"ATTACH ':memory:' AS {ATTACHED_NAME}")
    for table, columns in INFO_SCHEMA["information_schema"].items():
        body = _REAL_VIEWS.get(table) or _empty_view(columns)
        con.execute(f"CREATE OR REPLACE VIEW {ATTACHED_NAME}.main.{table} AS {body}")
