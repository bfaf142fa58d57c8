"""A MySQL-shaped information_schema answered from real metadata.

JDBC drivers and BI tools query information_schema with MySQL's column names and functions
(COLUMN_TYPE, EXTRA, LEAST, IF, ...). DuckDB's own information_schema lacks several of those
columns, so drydock attaches an in-memory database ``mysql_is`` holding MySQL-compatible views over
``duckdb_schemas()`` / ``duckdb_tables()`` / ``duckdb_columns()`` of the internal catalog, and the
query layer points every ``information_schema.X`` reference there. Tables drydock has nothing for
exist with their MySQL columns and no rows, so tools that probe them get an empty answer.
"""

from __future__ import annotations

import re

from typing import TYPE_CHECKING

import duckdb
from mysql_mimic.constants import INFO_SCHEMA

from drydock.engine.session import INTERNAL
from drydock.engine.sql import info_schema_dictionary as dictionary_views
from drydock.engine.sql.info_schema_dictionary import HIDDEN_SCHEMAS

if TYPE_CHECKING:
    import pyarrow as pa

ATTACHED_NAME = "mysql_is"

# DuckDB type -> MySQL DATA_TYPE, NUMERIC_PRECISION (decimal digits, not DuckDB's bits),
# NUMERIC_SCALE, DATETIME_PRECISION, COLUMN_TYPE. DECIMAL(p,s) and VARCHAR are spelled out in the
# view; any other type (lists, structs, maps, uuids, intervals) is shown as text, as results are.
_TYPES = [
    ("BOOLEAN", "tinyint", 3, 0, None, "tinyint(1)"),
    ("TINYINT", "tinyint", 3, 0, None, "tinyint"),
    ("UTINYINT", "tinyint", 3, 0, None, "tinyint unsigned"),
    ("SMALLINT", "smallint", 5, 0, None, "smallint"),
    ("USMALLINT", "smallint", 5, 0, None, "smallint unsigned"),
    ("INTEGER", "int", 10, 0, None, "int"),
    ("UINTEGER", "int", 10, 0, None, "int unsigned"),
    ("BIGINT", "bigint", 19, 0, None, "bigint"),
    ("UBIGINT", "bigint", 20, 0, None, "bigint unsigned"),
    ("HUGEINT", "decimal", 38, 0, None, "decimal(38,0)"),
    ("UHUGEINT", "decimal", 39, 0, None, "decimal(39,0)"),
    ("FLOAT", "float", 12, None, None, "float"),
    ("DOUBLE", "double", 22, None, None, "double"),
    ("DATE", "date", None, None, None, "date"),
    ("TIME", "time", None, None, 6, "time(6)"),
    ("TIMESTAMP", "datetime", None, None, 6, "datetime(6)"),
    ("TIMESTAMP_S", "datetime", None, None, 0, "datetime"),
    ("TIMESTAMP_MS", "datetime", None, None, 3, "datetime(3)"),
    ("TIMESTAMP_NS", "datetime", None, None, 6, "datetime(6)"),
    ("TIMESTAMP WITH TIME ZONE", "timestamp", None, None, 6, "timestamp(6)"),
    ("BLOB", "blob", None, None, None, "blob"),
    ("JSON", "json", None, None, None, "json"),
    ("VARCHAR", "varchar", None, None, None, None),
]


def _sql(value: object) -> str:
    return "NULL" if value is None else f"'{value}'" if isinstance(value, str) else str(value)


_TYPE_TABLE = (
    "(VALUES "
    + ", ".join("(" + ", ".join(_sql(v) for v in row) + ")" for row in _TYPES)
    + ") AS m(duck_type, my_type, my_precision, my_scale, my_datetime_precision, my_column_type)"
)

# Columns whose values MySQL compares case-insensitively and drivers test with lower-case
# literals (Connector/J: ``IF(IS_NULLABLE = 'yes', 1, 0)``); DuckDB compares case-sensitively.
_NOCASE = "COLLATE NOCASE"
# drydock's own column marks (engine/sql/mysql_ddl.py): an AUTO_INCREMENT column's default names a
# reserved sequence; an ON UPDATE CURRENT_TIMESTAMP column carries a reserved comment. Shown as
# MySQL shows them: in EXTRA, never as the default or the comment.
_AUTO_INCREMENT = "column_default LIKE 'nextval(%__drydock_ai_%'"
_ON_UPDATE = "coalesce(comment, '') LIKE '__drydock_on_update_current_timestamp%'"
_ON_UPDATE_TEXT = (
    "'on update CURRENT_TIMESTAMP' || replace(comment, '__drydock_on_update_current_timestamp', '')"
)

# SHOW FULL COLUMNS' Privileges / COLUMNS.PRIVILEGES: what a user holding every privilege on the
# table sees in MySQL 8.0 (drydock does not narrow it to the asking user's grants)
PRIVILEGES = "select,insert,update,references"

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
               'BASE TABLE' {_NOCASE} AS table_type, 'DuckDB' AS engine, 10 AS version,
               'Dynamic' AS row_format, t.estimated_size AS table_rows, 0 AS avg_row_length,
               0 AS data_length, 0 AS max_data_length, 0 AS index_length, 0 AS data_free,
               NULL::BIGINT AS auto_increment, NULL::TIMESTAMP AS create_time,
               NULL::TIMESTAMP AS update_time, NULL::TIMESTAMP AS check_time,
               coalesce(json_extract_string(d.definition, '$.collation'), 'utf8mb4_0900_ai_ci')
                   AS table_collation, NULL::BIGINT AS checksum, '' AS create_options,
               coalesce(json_extract_string(d.definition, '$.comment'), comment, '')
                   AS table_comment
        FROM duckdb_tables() AS t
        LEFT JOIN {dictionary_views.DEFINED} AS d USING (schema_name, table_name)
        WHERE database_name = '{INTERNAL}' AND schema_name NOT IN {HIDDEN_SCHEMAS}
        UNION ALL
        SELECT 'def', schema_name, view_name, 'VIEW', NULL, NULL, NULL, NULL, 0, 0, 0, 0, 0,
               NULL, NULL, NULL, NULL, NULL, NULL, '', coalesce(comment, '')
        FROM duckdb_views()
        WHERE database_name = '{INTERNAL}' AND schema_name NOT IN {HIDDEN_SCHEMAS}
          AND NOT internal
    """,
    # A column of a table with a definition answers from the dictionary's row (d.*), unless
    # its type is one MySQL has no name for (FLOAT[3]: d.mysql is false), whose type is DuckDB's;
    # a column without such a row answers from DuckDB's own type, default and constraints.
    "columns": f"""
        SELECT 'def' AS table_catalog, schema_name AS table_schema, table_name, column_name,
               column_index AS ordinal_position,
               CASE WHEN defined THEN d_default
                    WHEN {_AUTO_INCREMENT} THEN NULL ELSE column_default END AS column_default,
               (CASE WHEN defined THEN d_nullable WHEN is_nullable THEN 'YES' ELSE 'NO' END)
                   {_NOCASE} AS is_nullable,
               (CASE WHEN typed THEN d_data_type ELSE data_type_ END) {_NOCASE} AS data_type,
               -- BIGINT, as MySQL's: a LONGTEXT holds 4294967295 characters
               (CASE WHEN typed THEN d_char_length ELSE char_length END)::BIGINT
                   AS character_maximum_length,
               (CASE WHEN typed THEN d_octet_length ELSE char_length * 4 END)::BIGINT
                   AS character_octet_length,
               (CASE WHEN typed THEN d_precision ELSE numeric_precision_ END)::INTEGER
                   AS numeric_precision,
               (CASE WHEN typed THEN d_scale ELSE numeric_scale_ END)::INTEGER AS numeric_scale,
               (CASE WHEN typed THEN d_datetime_precision ELSE my_datetime_precision END)::INTEGER
                   AS datetime_precision,
               CASE WHEN typed THEN d_charset
                    WHEN char_length IS NOT NULL THEN 'utf8mb4' END AS character_set_name,
               CASE WHEN typed THEN d_collation
                    WHEN char_length IS NOT NULL THEN 'utf8mb4_0900_ai_ci' END AS collation_name,
               (CASE WHEN typed THEN d_column_type ELSE column_type_ END) {_NOCASE} AS column_type,
               (CASE WHEN defined THEN d_key ELSE coalesce(key_, '') END) {_NOCASE} AS column_key,
               (CASE WHEN defined THEN d_extra
                     WHEN {_AUTO_INCREMENT} THEN 'auto_increment'
                     WHEN {_ON_UPDATE} THEN
                         (CASE WHEN column_default IS NOT NULL AND upper(column_default) LIKE
                             '%CURRENT_TIMESTAMP%'
                               THEN 'DEFAULT_GENERATED ' ELSE '' END) || {_ON_UPDATE_TEXT}
                     ELSE '' END) {_NOCASE} AS extra,
               '{PRIVILEGES}' AS privileges,
               CASE WHEN defined THEN d_comment
                    WHEN {_ON_UPDATE} THEN '' ELSE coalesce(comment, '') END AS column_comment,
               '' AS generation_expression, NULL::VARCHAR AS srs_id
        FROM (
            SELECT c.*, m.*, k.key_,
                   d.column_name IS NOT NULL AS defined, coalesce(d.mysql, false) AS typed,
                   d.data_type AS d_data_type, d.column_type AS d_column_type,
                   d.character_maximum_length AS d_char_length,
                   d.character_octet_length AS d_octet_length,
                   d.numeric_precision AS d_precision, d.numeric_scale AS d_scale,
                   d.datetime_precision AS d_datetime_precision,
                   d.character_set_name AS d_charset, d.collation_name AS d_collation,
                   d.is_nullable AS d_nullable, d.column_default AS d_default,
                   d.column_key AS d_key, d.extra AS d_extra, d.column_comment AS d_comment,
                   coalesce(m.my_type, CASE WHEN c.data_type LIKE 'DECIMAL%' THEN 'decimal' ELSE
                       'text' END) AS data_type_,
                   CASE WHEN c.data_type = 'VARCHAR' THEN coalesce(c.character_maximum_length,
                       65535)
                        WHEN m.my_type IS NULL AND c.data_type NOT LIKE 'DECIMAL%' THEN 65535
                        END AS char_length,
                   CASE WHEN c.data_type LIKE 'DECIMAL%' THEN c.numeric_precision ELSE
                       m.my_precision END AS numeric_precision_,
                   CASE WHEN c.data_type LIKE 'DECIMAL%' THEN c.numeric_scale ELSE m.my_scale END AS
                       numeric_scale_,
                   CASE WHEN c.data_type = 'VARCHAR'
                            THEN 'varchar(' || coalesce(c.character_maximum_length, 65535) || ')'
                        WHEN c.data_type LIKE 'DECIMAL%' THEN lower(c.data_type)
                        ELSE coalesce(m.my_column_type, 'text') END AS column_type_
            FROM duckdb_columns() AS c LEFT JOIN {_TYPE_TABLE} ON m.duck_type = c.data_type
            LEFT JOIN (SELECT schema_name AS k_schema, table_name AS k_table, column_name AS
                k_column,
                              min(CASE WHEN key_type = 'PRIMARY KEY' THEN 'PRI' ELSE 'UNI' END) AS
                                  key_
                       FROM {dictionary_views.DUCK_KEY_COLUMNS} WHERE ordinal_position = 1
                       GROUP BY ALL) AS k
                   ON k.k_schema = c.schema_name AND k.k_table = c.table_name AND k.k_column =
                       c.column_name
            LEFT JOIN {dictionary_views.rows("columns_rows")} AS d
                   ON d.schema_name = c.schema_name AND d.table_name = c.table_name
                  AND lower(d.column_name) = lower(c.column_name)
            WHERE c.database_name = '{INTERNAL}' AND c.schema_name NOT IN {HIDDEN_SCHEMAS}
        )
    """,
    **dictionary_views.VIEWS,
}

_DUCK_TYPE = {"TEXT": "VARCHAR", "INT": "BIGINT"}


def _empty_view(columns: dict[str, str]) -> str:
    cols = ", ".join(
        f"NULL::{_DUCK_TYPE.get(t, 'VARCHAR')} AS {name}" for name, t in columns.items()
    )
    return f"SELECT {cols} WHERE false"


# Tables mysql-mimic's information_schema lacks, with MySQL 8.0's columns and no rows:
# FILES (tablespace files; mariadb-dump reads it for NDB log groups).
_FILES_BIGINT = {
    "file_id",
    "logfile_group_number",
    "free_extents",
    "total_extents",
    "extent_size",
    "initial_size",
    "maximum_size",
    "autoextend_size",
    "version",
    "data_free",
}
_FILES_COLUMNS = [
    "file_id",
    "file_name",
    "file_type",
    "tablespace_name",
    "table_catalog",
    "table_schema",
    "table_name",
    "logfile_group_name",
    "logfile_group_number",
    "engine",
    "fulltext_keys",
    "deleted_rows",
    "update_count",
    "free_extents",
    "total_extents",
    "extent_size",
    "initial_size",
    "maximum_size",
    "autoextend_size",
    "creation_time",
    "last_update_time",
    "last_access_time",
    "recover_time",
    "transaction_counter",
    "version",
    "row_format",
    "table_rows",
    "avg_row_length",
    "data_length",
    "max_data_length",
    "index_length",
    "data_free",
    "create_time",
    "update_time",
    "check_time",
    "checksum",
    "status",
    "extra",
]
EMPTY_EXTRA = {"files": {c: "INT" if c in _FILES_BIGINT else "TEXT" for c in _FILES_COLUMNS}}


def install(con: duckdb.DuckDBPyConnection) -> None:
    """Attach ``mysql_is`` and (re)create its views. Idempotent."""
    attached = {
        r[0] for r in con.execute("SELECT database_name FROM duckdb_databases()").fetchall()
    }
    if ATTACHED_NAME not in attached:
        con.execute(f"ATTACH ':memory:' AS {ATTACHED_NAME}")
    con.execute(
        f'CREATE OR REPLACE VIEW {ATTACHED_NAME}.main."__drydock_check_constraints" AS '
        f"{dictionary_views.CHECKS_BY_TABLE}"
    )
    for table, columns in INFO_SCHEMA["information_schema"].items():
        body = _REAL_VIEWS.get(table) or _empty_view(columns)
        con.execute(f"CREATE OR REPLACE VIEW {ATTACHED_NAME}.main.{table} AS {body}")
    for table in dictionary_views.VIEWS.keys() - INFO_SCHEMA["information_schema"].keys():
        # information_schema tables mysql-mimic does not list (CHECK_CONSTRAINTS)
        con.execute(f"CREATE OR REPLACE VIEW {ATTACHED_NAME}.main.{table} AS {_REAL_VIEWS[table]}")
    for table, columns in EMPTY_EXTRA.items():
        view = f"{ATTACHED_NAME}.main.{table}"
        con.execute(f"CREATE OR REPLACE VIEW {view} AS {_empty_view(columns)}")


# -- external catalogs
# ------------------------------------------------------------------------------
# information_schema.SCHEMATA/TABLES/COLUMNS while the session's catalog is external (JDBC's
# getTables/getColumns after ``USE c.db``): the rows come from the catalog's metadata, already
# filtered by what the user may see (engine/sql/metadata.py), as an Arrow table of the "raw" shape
# below; the query layer registers it and reads it through EXTERNAL_SELECT, which gives it exactly
# the columns, types and NOCASE collations of the internal views above.
EXTERNAL = ("schemata", "tables", "columns")

_EXTERNAL_RAW = {
    "schemata": [("schema_name", "string")],
    "tables": [
        ("table_schema", "string"),
        ("table_name", "string"),
        ("table_type", "string"),
        ("engine", "string"),
        ("table_comment", "string"),
    ],
    "columns": [
        ("table_schema", "string"),
        ("table_name", "string"),
        ("column_name", "string"),
        ("ordinal_position", "int32"),
        ("is_nullable", "string"),
        ("data_type", "string"),
        ("column_type", "string"),
        ("character_maximum_length", "int32"),
        ("numeric_precision", "int32"),
        ("numeric_scale", "int32"),
        ("datetime_precision", "int32"),
        ("column_key", "string"),
        ("column_comment", "string"),
    ],
}

EXTERNAL_SELECT = {
    "schemata": """
        SELECT 'def' AS catalog_name, schema_name, 'utf8mb4' AS default_character_set_name,
               'utf8mb4_0900_ai_ci' AS default_collation_name, NULL::VARCHAR AS sql_path
        FROM {source}
    """,
    "tables": f"""
        SELECT 'def' AS table_catalog, table_schema, table_name, table_type {_NOCASE} AS table_type,
               engine, 10::INTEGER AS version, 'Dynamic' AS row_format, NULL::BIGINT AS table_rows,
               0::INTEGER AS avg_row_length, 0::INTEGER AS data_length, 0::INTEGER AS
                   max_data_length,
               0::INTEGER AS index_length, 0::INTEGER AS data_free, NULL::BIGINT AS auto_increment,
               NULL::TIMESTAMP AS create_time, NULL::TIMESTAMP AS update_time,
               NULL::TIMESTAMP AS check_time, 'utf8mb4_0900_ai_ci' AS table_collation,
               NULL::BIGINT AS checksum, '' AS create_options, table_comment
        FROM {{source}}
    """,
    "columns": f"""
        SELECT 'def' AS table_catalog, table_schema, table_name, column_name, ordinal_position,
               NULL::VARCHAR AS column_default, is_nullable {_NOCASE} AS is_nullable,
               data_type {_NOCASE} AS data_type, character_maximum_length,
               character_maximum_length * 4 AS character_octet_length, numeric_precision,
               numeric_scale, datetime_precision,
               CASE WHEN character_maximum_length IS NOT NULL THEN 'utf8mb4' END AS
                   character_set_name,
               CASE WHEN character_maximum_length IS NOT NULL THEN 'utf8mb4_0900_ai_ci' END AS
                   collation_name,
               column_type {_NOCASE} AS column_type, column_key {_NOCASE} AS column_key,
               '' {_NOCASE} AS extra, 'select' AS privileges, column_comment,
               '' AS generation_expression, NULL::VARCHAR AS srs_id
        FROM {{source}}
    """,
}

# MySQL DATA_TYPE → (NUMERIC_PRECISION, NUMERIC_SCALE, DATETIME_PRECISION), from the type table
# above (its first row per MySQL type).
_MYSQL_NUMBERS: dict[str, tuple[int | None, int | None, int | None]] = {}
for _row in _TYPES:
    _MYSQL_NUMBERS.setdefault(_row[1], (_row[2], _row[3], _row[4]))
_TEXT_LENGTH = 65535  # what the internal view shows for an unbounded VARCHAR
_PARAMS = re.compile(r"\((\d+)(?:,(\d+))?\)")


def external_column_row(
    db: str,
    table: str,
    position: int,
    name: str,
    desc_type: str,
    mysql_type: str,
    nullable: bool,
    key: str,
    comment: str,
) -> tuple[object, ...]:
    """One raw information_schema.COLUMNS row of an external column (see _EXTERNAL_RAW)."""
    data_type = mysql_type.lower()
    params = _PARAMS.search(desc_type)
    char_length = precision = scale = dt_precision = None
    column_type = desc_type.lower()
    if data_type in ("varchar", "text"):
        char_length = _TEXT_LENGTH
        if data_type == "varchar" and not params:
            column_type = f"varchar({_TEXT_LENGTH})"
    elif data_type == "decimal" and params:
        precision, scale = int(params.group(1)), int(params.group(2) or 0)
    elif data_type in ("datetime", "timestamp", "time"):
        dt_precision = (
            int(params.group(1)) if params else _MYSQL_NUMBERS.get(data_type, (None, None, 0))[2]
        )
    elif data_type in _MYSQL_NUMBERS:
        precision, scale, dt_precision = _MYSQL_NUMBERS[data_type]
        column_type = "tinyint(1)" if desc_type.upper() == "BOOLEAN" else column_type
    return (
        db,
        table,
        name,
        position,
        "YES" if nullable else "NO",
        data_type,
        column_type,
        char_length,
        precision,
        scale,
        dt_precision,
        key,
        comment,
    )


def external_table(name: str, rows: list[tuple[object, ...]]) -> pa.Table:
    """The raw rows of information_schema.<name> for an external catalog, as Arrow."""
    import pyarrow as pa  # only sessions on an external catalog pay for the import

    fields = _EXTERNAL_RAW[name]
    schema = pa.schema([(column, getattr(pa, kind)()) for column, kind in fields])
    return pa.Table.from_pylist(
        [dict(zip((c for c, _ in fields), row)) for row in rows], schema=schema
    )
