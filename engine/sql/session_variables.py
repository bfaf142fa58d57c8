"""System variables of a session: MySQL's rules for the values they may take.

Pure functions over names and values (character sets, collations, sql_mode); the SET statement
(engine/statements/variables.py) applies them before it stores anything.
"""

from __future__ import annotations

import codecs
from collections.abc import Callable
from typing import Any

from mysql_mimic.charset import CharacterSet, Collation
from mysql_mimic.variables import DEFAULT, SessionVariables, Variables

from drydock.engine.support.config_keys import Key
from drydock.engine.errors import Errors

MYSQL_DEFAULT_SQL_MODE = (
    "ONLY_FULL_GROUP_BY,STRICT_TRANS_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,"
    "ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION"
)


# -- character sets
# ---------------------------------------------------------------------------------
CHARSET_VARIABLES = (
    "character_set_client",
    "character_set_results",
    "character_set_connection",
    "character_set_database",
    "character_set_server",
)
COLLATION_VARIABLES = ("collation_connection", "collation_database", "collation_server")
# As in MySQL, the client character set must be ASCII-compatible (1231 for these).
_NOT_CLIENT_CHARSETS = ("ucs2", "utf16", "utf16le", "utf32")


def character_set(name: str, variable: str = "character_set_client") -> CharacterSet:
    """A character set by name, case-insensitively: 1115 when unknown; 1231 when the wire cannot
    use it for ``variable`` (no Python codec, or not ASCII-compatible for the client)."""
    found = next((c for c in CharacterSet if c.name == name.lower()), None)
    if found is None:
        raise Errors.UNKNOWN_CHARACTER_SET.error(name=name)
    if variable == "character_set_results" and found == CharacterSet.binary:
        return found  # no conversion: values as stored (utf8mb4); mariadb-dump asks for it
    if variable in ("character_set_client", "character_set_results"):
        try:
            codecs.lookup(found.codec)
        except LookupError:
            raise Errors.WRONG_VALUE_FOR_VAR.error(name=variable, value=name) from None
        if variable == "character_set_client" and found.name in _NOT_CLIENT_CHARSETS:
            raise Errors.WRONG_VALUE_FOR_VAR.error(name=variable, value=name)
    return found


def collation(name: str, charset: CharacterSet | None = None) -> Collation:
    """A collation by name, case-insensitively (1273 when unknown), of ``charset`` if given
    (1253)."""
    found = next((c for c in Collation if c.name == name.lower()), None)
    if found is None:
        raise Errors.UNKNOWN_COLLATION.error(name=name)
    if charset is not None and found.charset != charset:
        raise Errors.COLLATION_CHARSET_MISMATCH.error(collation=name, charset=charset.name)
    return found


# MySQL 8.0's sql_mode names in bit order (sys_vars.cc sql_mode_names, unused bits left out): a
# stored sql_mode always reads back in this order, whatever order it was set in.
SQL_MODES = (
    "REAL_AS_FLOAT",
    "PIPES_AS_CONCAT",
    "ANSI_QUOTES",
    "IGNORE_SPACE",
    "ONLY_FULL_GROUP_BY",
    "NO_UNSIGNED_SUBTRACTION",
    "NO_DIR_IN_CREATE",
    "ANSI",
    "NO_AUTO_VALUE_ON_ZERO",
    "NO_BACKSLASH_ESCAPES",
    "STRICT_TRANS_TABLES",
    "STRICT_ALL_TABLES",
    "NO_ZERO_IN_DATE",
    "NO_ZERO_DATE",
    "ALLOW_INVALID_DATES",
    "ERROR_FOR_DIVISION_BY_ZERO",
    "TRADITIONAL",
    "HIGH_NOT_PRECEDENCE",
    "NO_ENGINE_SUBSTITUTION",
    "PAD_CHAR_TO_FULL_LENGTH",
    "TIME_TRUNCATE_FRACTIONAL",
)
_SQL_MODE_BITS = {
    name: bit
    for name, bit in zip(
        SQL_MODES, (0, 1, 2, 3, 5, 6, 7, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 29, 30, 31, 32)
    )
}
# Combination modes turn on their members and, as in MySQL, stay in the value themselves.
_SQL_MODE_COMBINATIONS = {
    "ANSI": (
        "REAL_AS_FLOAT",
        "PIPES_AS_CONCAT",
        "ANSI_QUOTES",
        "IGNORE_SPACE",
        "ONLY_FULL_GROUP_BY",
    ),
    "TRADITIONAL": (
        "STRICT_TRANS_TABLES",
        "STRICT_ALL_TABLES",
        "NO_ZERO_IN_DATE",
        "NO_ZERO_DATE",
        "ERROR_FOR_DIVISION_BY_ZERO",
        "NO_ENGINE_SUBSTITUTION",
    ),
}


# Modes drydock cannot honour: each changes what a statement means (PIPES_AS_CONCAT: ``a || b`` is
# CONCAT(a, b), not OR; HIGH_NOT_PRECEDENCE: ``NOT a BETWEEN b AND c`` is ``(NOT a) BETWEEN …``)
# and drydock's parser reads the default meaning. Reporting them as set would have a client trust
# a meaning it does not get, so SET refuses them (and ANSI, which holds PIPES_AS_CONCAT).
# NO_BACKSLASH_ESCAPES and ANSI_QUOTES are honoured (grammar/lexer.py TextMode).
NOT_HONOURED_SQL_MODES = ("PIPES_AS_CONCAT", "HIGH_NOT_PRECEDENCE")


def sql_mode_names(ctx: Any) -> set[str]:
    """The modes of a session's sql_mode (MySQL 8's default when it has none)."""
    try:
        mode = ctx.variables.get("sql_mode") if ctx.variables is not None else None
    except Exception:  # noqa: BLE001 - a variables object without sql_mode: MySQL's default
        mode = None
    return set(str(MYSQL_DEFAULT_SQL_MODE if mode is None else mode).upper().split(","))


def sql_mode_for_set(value: Any) -> str:
    """``SET sql_mode = value``: the value stored (:func:`normalize_sql_mode`), or 1231 for an
    unknown mode and for a mode drydock does not honour (:data:`NOT_HONOURED_SQL_MODES`)."""
    stored = normalize_sql_mode(value)
    modes = stored.split(",")
    for name in NOT_HONOURED_SQL_MODES:
        if name in modes:
            raise Errors.SQL_MODE_NOT_HONOURED.error(mode="ANSI" if "ANSI" in modes else name)
    return stored


def normalize_sql_mode(value: Any) -> str:
    """A value for sql_mode → the value MySQL stores: items trimmed and upper-cased, empty items
    and duplicates dropped, combination modes expanded, canonical (bit) order. A number is a bit
    mask. An unknown mode, NULL or a boolean is 1231, as in MySQL."""
    if value is None or isinstance(value, (bool, float)):
        raise Errors.WRONG_VALUE_FOR_VAR.error(
            name="sql_mode", value="NULL" if value is None else value
        )
    if isinstance(value, int):
        names = [n for n, bit in _SQL_MODE_BITS.items() if value >> bit & 1]
        if value < 0 or sum(1 << _SQL_MODE_BITS[n] for n in names) != value:
            raise Errors.WRONG_VALUE_FOR_VAR.error(name="sql_mode", value=value)
    else:
        names = [item.strip().upper() for item in str(value).split(",")]
        names = [n for n in names if n]
        for name in names:
            if name not in _SQL_MODE_BITS:
                raise Errors.WRONG_VALUE_FOR_VAR.error(name="sql_mode", value=name)
    modes = set(names)
    for name in names:
        modes.update(_SQL_MODE_COMBINATIONS.get(name, ()))
    return ",".join(m for m in SQL_MODES if m in modes)


# -- switches dump files set (MySQL 8.0 manual 5.1.8) --------------------------------------------
# mariadb-dump / mysqldump write ``SET @OLD_UNIQUE_CHECKS=@@UNIQUE_CHECKS, UNIQUE_CHECKS=0`` and
# the like around a dump; the values are kept and read back as MySQL does. foreign_key_checks = 0
# turns foreign keys off (engine/sql/enforce_foreign_keys.py); the others change nothing yet
# (README "MySQL compatibility").
DUMP_SWITCHES: dict[str, tuple[type, Any, bool]] = {
    "unique_checks": (bool, True, True),
    "foreign_key_checks": (bool, True, True),
    "sql_notes": (bool, True, True),
    "sql_quote_show_create": (bool, True, True),
}

_ON = ("1", "ON", "TRUE")
_OFF = ("0", "OFF", "FALSE")


def switch_value(name: str, value: Any) -> bool:
    """A value for a boolean variable, as MySQL reads it: ON/OFF, TRUE/FALSE, 1/0 (case-insensitive,
    quoted or not); anything else is 1231. (mysql-mimic stores ``bool(value)``: 'OFF' was True.)"""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    text = str(int(value)) if isinstance(value, (bool, int)) else str(value).strip().upper()
    if text in _ON:
        return True
    if text in _OFF:
        return False
    raise Errors.WRONG_VALUE_FOR_VAR.error(name=name, value=value)


# -- variables whose global value is a frontend config key
# --------------------------------------------
# @@GLOBAL.x reads the config, SET GLOBAL x (ADMIN) sets it (engine/statements/sql.py), and a
# session starts with it, as MySQL copies global values into a new session.
GLOBAL_CONFIG: dict[str, Key] = {"max_execution_time": Key.MAX_EXECUTION_TIME}


class ConfiguredSessionVariables(SessionVariables):
    """A session's variables, with the global values of :data:`GLOBAL_CONFIG` read from the
    config: copied when the session starts, and what ``SET x = DEFAULT`` goes back to."""

    def __init__(self, global_variables: Variables, read_global: Callable[[Key], Any]):
        super().__init__(global_variables)
        self._read_global = read_global
        for name, key in GLOBAL_CONFIG.items():
            self._values[name] = read_global(key)

    def set(self, name: str, value: Any, force: bool = False) -> None:
        key = GLOBAL_CONFIG.get(name.lower())
        if value is DEFAULT and key is not None:
            value = self._read_global(key)
        super().set(name, value, force)

    def global_value(self, name: str) -> Any:
        key = GLOBAL_CONFIG.get(name.lower())
        return self._read_global(key) if key is not None else self.get(name)


def execution_time_value(value: Any) -> int:
    """A value for max_execution_time (ms): an integer; a negative one is 0, as MySQL clamps it."""
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise Errors.WRONG_TYPE_FOR_VAR.error(name="max_execution_time")
    try:
        number = int(value)
    except ValueError:
        raise Errors.WRONG_TYPE_FOR_VAR.error(name="max_execution_time") from None
    return max(number, 0)
