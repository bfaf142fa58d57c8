"""MySQL 8's column definitions of SHOW results (server/show_columns.py)."""

from mysql_mimic.types import ColumnType

from drydock.server.show_columns import NAME, show_column


def test_show_columns_are_their_information_schema_columns() -> None:
    field = show_column("COLUMNS", "Field")
    column_type = show_column("COLUMNS", "Type")
    assert field == NAME and (field.type, field.length) == (ColumnType.VAR_STRING, 256)
    assert column_type is not None and (column_type.type, column_type.length) == (
        ColumnType.BLOB,
        16777215 * 4,
    )
    assert show_column("TABLES", "Tables_in_shop") == NAME
    assert show_column("COLUMNS", "Nope") is None and show_column("STATUS", "Value") is None


def test_show_create_table_length_follows_the_text() -> None:
    short = show_column("CREATE TABLE", "Create Table", [("t", "CREATE TABLE t (a int)")])
    long = show_column("CREATE TABLE", "Create Table", [("t", "x" * 2000)])
    assert short is not None and short.length == 1024 * 4
    assert long is not None and long.length == 2000 * 4
