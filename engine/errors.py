"""Every error drydock can answer, in one table: MySQL code, SQLSTATE, message template.

Commands raise ``Errors.X.error(...)``; the server turns a :class:`DrydockError` into an
ERR packet. Tests assert on ``.code``, never on substrings alone.
"""

from __future__ import annotations

import os
import re
import tempfile
from dataclasses import dataclass
from typing import Any

from drydock.engine.results import Diagnostic
from drydock.engine.support.url_secrets import mask_text


@dataclass(frozen=True)
class ErrorSpec:
    code: int
    sqlstate: str
    template: str

    def error(self, **params: Any) -> DrydockError:
        return DrydockError(self, self.text(**params))

    def note(self, **params: Any) -> Diagnostic:
        """The same condition as a Note for SHOW WARNINGS (e.g. DROP TABLE IF EXISTS)."""
        return Diagnostic("Note", self.code, self.text(**params))

    def warning(self, **params: Any) -> Diagnostic:
        return Diagnostic("Warning", self.code, self.text(**params))

    def text(self, **params: Any) -> str:
        """The message; a URL it echoes (a property value, a library's words) loses its
        credentials (engine/support/url_secrets.py)."""
        return mask_text(self.template.format(**params))


class DrydockError(Exception):
    """An error with a MySQL code and SQLSTATE; its message is safe to show the client."""

    def __init__(self, spec: ErrorSpec, message: str):
        super().__init__(message)
        self.spec = spec
        self.message = message

    @property
    def code(self) -> int:
        return self.spec.code

    @property
    def sqlstate(self) -> str:
        return self.spec.sqlstate


class Errors:
    """The error table. Numbers 5100-5199 are reserved for Lance index jobs, 5200-5209 for search
    (docs/doris-compatibility.md)."""

    # -- standard MySQL codes ---------------------------------------------------------------
    HANDSHAKE = ErrorSpec(1043, "08S01", "Bad handshake: {detail}")
    TOO_MANY_CONNECTIONS = ErrorSpec(1040, "08004", "Too many connections")
    MALFORMED_PACKET = ErrorSpec(1835, "HY000", "Malformed communication packet: {detail}")
    SESSION_KILLED = ErrorSpec(3169, "HY000", "Session was killed")
    INSECURE_TRANSPORT = ErrorSpec(
        3159,
        "HY000",
        "Connections using insecure transport are prohibited while --require_secure_transport=ON.",
    )
    NET_PACKET_TOO_LARGE = ErrorSpec(
        1153, "08S01", "Got a packet bigger than 'max_allowed_packet' bytes"
    )
    NET_PACKETS_OUT_OF_ORDER = ErrorSpec(1156, "08S01", "Got packets out of order")
    NO_DB_SELECTED = ErrorSpec(1046, "3D000", "No database selected")
    ACCESS_DENIED = ErrorSpec(
        1045, "28000", "Access denied for user '{user}'@'{host}' (using password: {using})"
    )
    DB_ACCESS_DENIED = ErrorSpec(
        1044, "42000", "Access denied for user '{user}'@'{host}' to database '{db}'"
    )
    UNKNOWN_COMMAND = ErrorSpec(1047, "08S01", "Unknown command: {detail}")
    DB_CREATE_EXISTS = ErrorSpec(1007, "HY000", "Can't create database '{db}'; database exists")
    DB_DROP_EXISTS = ErrorSpec(1008, "HY000", "Can't drop database '{db}'; database doesn't exist")
    UNKNOWN_DATABASE = ErrorSpec(1049, "42000", "Unknown database '{db}'")
    TABLE_EXISTS = ErrorSpec(1050, "42S01", "Table '{table}' already exists")
    BAD_TABLE = ErrorSpec(1051, "42S02", "Unknown table '{table}'")
    CANT_DROP_KEY = ErrorSpec(1091, "42000", "Can't DROP '{key}'; check that column/key exists")
    DUP_KEYNAME = ErrorSpec(1061, "42000", "Duplicate key name '{key}'")
    KEY_COLUMN_MISSING = ErrorSpec(1072, "42000", "Key column '{column}' doesn't exist in table")
    TRANSACTION_ABORTED = ErrorSpec(
        3101,
        "40000",
        "The transaction was rolled back: a statement in it failed, and the storage engine "
        "(DuckDB) cannot undo only that statement. ROLLBACK, then retry the transaction",
    )
    SAVEPOINT_DOES_NOT_EXIST = ErrorSpec(1305, "42000", "SAVEPOINT {name} does not exist")
    SAVEPOINT_REPLAY_REFUSED = ErrorSpec(
        1213,
        "40001",
        "The transaction was rolled back: ROLLBACK TO SAVEPOINT {name} cannot restore it "
        "({reason}). Retry the transaction",
    )
    AUTO_INCREMENT_BEHIND = ErrorSpec(
        1105,
        "HY000",
        "AUTO_INCREMENT counter left {gap} values behind the largest explicit value; later "
        "generated values may collide with it",
    )
    PARSE = ErrorSpec(1064, "42000", "{detail}")
    EMPTY_QUERY = ErrorSpec(1065, "42000", "Query was empty")
    UNKNOWN_THREAD = ErrorSpec(1094, "HY000", "Unknown thread id: {id}")
    NOT_OWNER_OF_THREAD = ErrorSpec(1095, "HY000", "You are not owner of thread {id}")
    INTERNAL = ErrorSpec(1105, "HY000", "{detail}")
    BINARY_VALUE_NOT_ENCODABLE = ErrorSpec(
        1105,
        "HY000",
        "Column '{column}': value {value} cannot be sent as {type} in the binary protocol "
        "({detail}); CAST it to a type that holds it",
    )
    TABLE_ACCESS_DENIED = ErrorSpec(
        1142, "42000", "{priv} command denied to user '{user}'@'{host}' for table '{table}'"
    )
    UNKNOWN_TABLE = ErrorSpec(1146, "42S02", "Table '{table}' doesn't exist")
    UNKNOWN_SYSTEM_VARIABLE = ErrorSpec(1193, "HY000", "Unknown system variable '{name}'")
    UNKNOWN_CHARACTER_SET = ErrorSpec(1115, "42000", "Unknown character set: '{name}'")
    UNKNOWN_COLLATION = ErrorSpec(1273, "HY000", "Unknown collation: '{name}'")
    COLLATION_CHARSET_MISMATCH = ErrorSpec(
        1253, "42000", "COLLATION '{collation}' is not valid for CHARACTER SET '{charset}'"
    )
    WRONG_VALUE_FOR_VAR = ErrorSpec(
        1231, "42000", "Variable '{name}' can't be set to the value of '{value}'"
    )
    # a valid MySQL sql_mode whose meaning drydock does not implement: refused, never stored
    SQL_MODE_NOT_HONOURED = ErrorSpec(
        1231,
        "42000",
        "Variable 'sql_mode' can't be set to the value of '{mode}' "
        "(drydock does not implement sql_mode {mode})",
    )
    WRONG_TYPE_FOR_VAR = ErrorSpec(1232, "42000", "Incorrect argument type to variable '{name}'")
    NOT_SUPPORTED = ErrorSpec(1235, "42000", "This version of drydock doesn't yet support '{what}'")
    # ALTER TABLE … DISABLE/ENABLE KEYS on a table whose engine has no such switch (a Note)
    ENGINE_OPTION_IGNORED = ErrorSpec(
        1031, "HY000", "Table storage engine for '{table}' doesn't have this option"
    )
    SPECIFIC_ACCESS_DENIED = ErrorSpec(
        1227,
        "42000",
        "Access denied; you need (at least one of) the {priv} privilege(s) for this operation",
    )
    UNKNOWN_STMT_HANDLER = ErrorSpec(
        1243, "HY000", "Unknown prepared statement handler ({id}) given to {where}"
    )
    STMT_HAS_NO_OPEN_CURSOR = ErrorSpec(1421, "HY000", "The statement ({id}) has no open cursor.")
    WRONG_PARAM_COUNT = ErrorSpec(1210, "HY000", "Incorrect arguments to {where}: {detail}")
    QUERY_INTERRUPTED = ErrorSpec(1317, "70100", "Query execution was interrupted")
    WRONG_ARGUMENTS = ErrorSpec(1210, "HY000", "Incorrect arguments to {where}")
    # MySQL's JSON functions (engine/sql/mysql_json_doc.py raises them by name)
    INVALID_JSON_TEXT = ErrorSpec(
        3141,
        "22032",
        'Invalid JSON text in argument {argument} to function {function}: "{reason}" at '
        "position {position}.",
    )
    INVALID_JSON_PATH = ErrorSpec(
        3143,
        "42000",
        "Invalid JSON path expression. The error is around character position {position}.",
    )
    JSON_PATH_WILDCARD = ErrorSpec(
        3149, "42000", "In this situation, path expressions may not contain the * and ** tokens."
    )
    JSON_VACUOUS_PATH = ErrorSpec(
        3153, "42000", "The path expression '$' is not allowed in this context."
    )
    JSON_BAD_ONE_OR_ALL = ErrorSpec(
        3154, "42000", "The oneOrAll argument to {function} may take these values: 'one' or 'all'."
    )
    JSON_PATH_NOT_ARRAY_CELL = ErrorSpec(
        3165, "42000", "A path expression is not a path to a cell in an array."
    )
    UNSUPPORTED_PS = ErrorSpec(
        1295, "HY000", "This command is not supported in the prepared statement protocol yet"
    )
    MAX_PREPARED_STMT_COUNT = ErrorSpec(
        1461,
        "42000",
        "Can't create more than max_prepared_stmt_count statements (current value: {limit})",
    )
    QUERY_FAILED = ErrorSpec(1105, "HY000", "{detail}")
    # -- ALTER TABLE (engine/dictionary/alter.py, engine/sql/mysql_alter.py) -------------------
    DUP_FIELDNAME = ErrorSpec(1060, "42S21", "Duplicate column name '{column}'")
    MULTIPLE_PRI_KEY = ErrorSpec(1068, "42000", "Multiple primary key defined")
    WRONG_AUTO_KEY = ErrorSpec(
        1075,
        "42000",
        "Incorrect table definition; there can be only one auto column and it must be defined "
        "as a key",
    )
    CANT_REMOVE_ALL_FIELDS = ErrorSpec(
        1090, "42000", "You can't delete all columns with ALTER TABLE; use DROP TABLE instead"
    )
    INVALID_USE_OF_NULL = ErrorSpec(1138, "22004", "Invalid use of NULL value")
    KEY_DOES_NOT_EXIST = ErrorSpec(1176, "42000", "Key '{key}' doesn't exist in table '{table}'")
    DROP_INDEX_FK = ErrorSpec(
        1553, "HY000", "Cannot drop index '{key}': needed in a foreign key constraint"
    )
    FK_DUP_NAME = ErrorSpec(1826, "23000", "Duplicate foreign key constraint name '{name}'")
    FK_COLUMN_CANNOT_DROP = ErrorSpec(
        1828,
        "HY000",
        "Cannot drop column '{column}': needed in a foreign key constraint '{name}'",
    )
    CHECK_NOT_FOUND = ErrorSpec(
        3821, "HY000", "Check constraint '{name}' is not found in the table."
    )
    CHECK_DUP_NAME = ErrorSpec(3822, "HY000", "Duplicate check constraint name '{name}'.")
    CONSTRAINT_NOT_FOUND = ErrorSpec(3940, "HY000", "Constraint '{name}' does not exist.")
    DEPENDENT_BY_CHECK = ErrorSpec(
        3959,
        "HY000",
        "Check constraint '{name}' uses column '{column}', hence column cannot be dropped or "
        "renamed.",
    )
    # -- statement bounds (README "Statement bounds") -----------------------------------------
    # MySQL's ER_OUT_OF_RESOURCES: the statement fails, the server keeps serving everyone else
    OUT_OF_MEMORY = ErrorSpec(
        1041,
        "HY000",
        "Out of memory; the statement needs more than the {limit} all statements share (config "
        "'duckdb_memory_limit')",
    )
    OUT_OF_TEMP_SPACE = ErrorSpec(
        1041,
        "HY000",
        "Out of memory; the statement needs to spill more than the {limit} of temporary disk space "
        "all statements share (config 'duckdb_max_temp_directory_size')",
    )
    EXECUTION_TIME_EXCEEDED = ErrorSpec(
        3024, "HY000", "Query execution was interrupted, maximum statement execution time exceeded"
    )
    # MySQL answers REPEAT() & co. over max_allowed_packet with NULL and this code as a warning;
    # drydock refuses the value instead of building a row packet it may not send
    VALUE_OVER_MAX_ALLOWED_PACKET = ErrorSpec(
        1301,
        "HY000",
        "Result of column '{column}' was larger than max_allowed_packet ({limit}) - not sent",
    )
    SAFE_UPDATE = ErrorSpec(
        1175,
        "HY000",
        "You are using safe update mode and you tried to update a table without a WHERE that uses "
        "a KEY column.",
    )
    # -- DuckDB errors in MySQL's codes and wording (the mapping: engine/sql/duckdb_errors.py) ----
    DUP_ENTRY = ErrorSpec(1062, "23000", "Duplicate entry '{value}' for key '{key}'")
    BAD_NULL = ErrorSpec(1048, "23000", "Column '{column}' cannot be null")
    # strict-mode value rules on internal tables with a dictionary definition
    # (engine/sql/enforce_values.py): errors in strict mode, warnings otherwise
    DATA_TOO_LONG = ErrorSpec(1406, "22001", "Data too long for column '{column}' at row {row}")
    COLUMN_OUT_OF_RANGE = ErrorSpec(
        1264, "22003", "Out of range value for column '{column}' at row {row}"
    )
    DATA_TRUNCATED = ErrorSpec(1265, "01000", "Data truncated for column '{column}' at row {row}")
    WRONG_VALUE_FOR_COLUMN = ErrorSpec(
        1292, "22007", "Incorrect {type} value: '{value}' for column '{column}' at row {row}"
    )
    CHECK_VIOLATED = ErrorSpec(3819, "HY000", "Check constraint '{name}' is violated.")
    FK_REFERENCED_TABLE_DROP = ErrorSpec(
        3730,
        "HY000",
        "Cannot drop table '{table}' referenced by a foreign key constraint '{name}' on table "
        "'{child}'.",
    )
    NO_DEFAULT_FOR_FIELD = ErrorSpec(1364, "HY000", "Field '{column}' doesn't have a default value")
    BAD_FIELD = ErrorSpec(1054, "42S22", "Unknown column '{column}' in '{where}'")
    WRONG_FIELD_WITH_GROUP = ErrorSpec(
        1055,
        "42000",
        "Expression #{position} of {clause} is not in GROUP BY clause and contains nonaggregated "
        "column '{column}' which is not functionally dependent on columns in GROUP BY clause; "
        "this is incompatible with sql_mode=only_full_group_by",
    )
    # DuckDB does not say which column a value was for: MySQL's wording up to the column name
    OUT_OF_RANGE = ErrorSpec(1264, "22003", "Out of range value {value} for type {type}")
    DATA_OUT_OF_RANGE = ErrorSpec(1690, "22003", "{type} value is out of range in '{expr}'")
    TRUNCATED_WRONG_VALUE = ErrorSpec(1366, "HY000", "Incorrect {type} value: '{value}'")
    TRUNCATED_INCORRECT = ErrorSpec(1292, "22007", "Truncated incorrect {type} value: '{value}'")
    DIVISION_BY_ZERO = ErrorSpec(1365, "22012", "Division by 0")
    DATETIME_FUNCTION_OVERFLOW = ErrorSpec(
        1441, "22008", "Datetime function: {field} field overflow"
    )
    WRONG_DATETIME_VALUE = ErrorSpec(1292, "22007", "Incorrect {type} value: '{value}'")
    ROW_IS_REFERENCED = ErrorSpec(
        1451,
        "23000",
        "Cannot delete or update a parent row: a foreign key constraint fails ({detail})",
    )
    NO_REFERENCED_ROW = ErrorSpec(
        1452, "23000", "Cannot add or update a child row: a foreign key constraint fails ({detail})"
    )
    UNKNOWN_FUNCTION = ErrorSpec(1305, "42000", "FUNCTION {name} does not exist")
    WRONG_ARGUMENTS_TO_FUNCTION = ErrorSpec(
        1582, "42000", "Incorrect parameter count or types in the call to native function '{name}'"
    )
    # -- vector values (engine/search/vector_functions.py, engine/search/vectors.py) -------------
    # MySQL 9's ER_TO_VECTOR_CONVERSION wording; a NULL, NaN or infinite element is not valid
    INVALID_VECTOR = ErrorSpec(
        6138, "HY000", "Data cannot be converted to a valid vector: '{value}'"
    )
    # MySQL's ER_FT_MATCHING_KEY_NOT_FOUND: a full-text predicate no index answers
    FULLTEXT_INDEX_MISSING = ErrorSpec(
        1191, "HY000", "Can't find FULLTEXT index matching the column list ({detail})"
    )
    VECTOR_DIMENSIONS_DIFFER = ErrorSpec(
        1210,
        "HY000",
        "Vector dimensions differ: {first} has {first_dim}, {second} has {second_dim}",
    )
    # -- the plain-SQL pipeline (engine/sql/sql_relations.py) ------------------------------------
    TABLE_FUNCTION_NOT_ALLOWED = ErrorSpec(
        1142,
        "42000",
        "Table function '{name}' is not allowed; read tables by name (metadata: information_schema "
        "and SHOW)",
    )
    FUNCTION_NOT_ALLOWED = ErrorSpec(
        1305, "42000", "FUNCTION {name} does not exist or is not allowed"
    )
    RELATIONS_UNKNOWN = ErrorSpec(
        1105, "HY000", "Statement refused: the tables it reads could not be determined ({detail})"
    )
    STATEMENT_NOT_ALLOWED = ErrorSpec(
        1235, "42000", "This version of drydock doesn't yet support '{what}'"
    )
    STATEMENT_TOO_COMPLEX = ErrorSpec(
        1105,
        "HY000",
        "Statement has {tokens} tokens, more than 'max_statement_tokens' ({limit}); split it into "
        "smaller statements",
    )
    STATEMENT_TOO_LARGE = ErrorSpec(
        1153,
        "08S01",
        "Got a statement of {size} bytes, bigger than 'max_statement_bytes' ({limit} bytes)",
    )

    # -- users, roles, privileges -------------------------------------------------------------
    NO_SUCH_USER = ErrorSpec(
        1133, "42000", "Can't find any matching row in the user table for {user}"
    )
    NONEXISTING_GRANT = ErrorSpec(
        1141, "42000", "There is no such grant defined for user '{user}' on host '{host}'"
    )
    USER_EXISTS = ErrorSpec(1396, "HY000", "Operation {op} failed for {user}")
    INVALID_USER_NAME = ErrorSpec(1470, "HY000", "String '{name}' is not a valid user name")
    INVALID_HOST = ErrorSpec(
        1105,
        "HY000",
        "Invalid host '{host}': use a host name, an IP address or a pattern with % and _",
    )
    CANNOT_DROP_ROOT = ErrorSpec(1105, "HY000", "Can not drop user root")
    CANNOT_CHANGE_ROOT_GRANTS = ErrorSpec(
        1105,
        "HY000",
        "Can not grant/revoke privileges of user root: it always holds every privilege",
    )
    UNKNOWN_PRIVILEGE = ErrorSpec(
        1105,
        "HY000",
        "Unknown privilege '{name}'; use one of SELECT_PRIV, LOAD_PRIV, ALTER_PRIV, CREATE_PRIV, "
        "DROP_PRIV, SHOW_VIEW_PRIV, ADMIN_PRIV, GRANT_PRIV, USAGE_PRIV, ALL",
    )
    PRIVILEGE_LEVEL = ErrorSpec(1105, "HY000", "{priv} can only be granted on *.*.* (global level)")
    # 1227 like every refusal for a missing privilege, so the audit records it as a denial
    GRANT_ABOVE_OWN = ErrorSpec(
        1227,
        "42000",
        "Access denied; you can only grant privileges you hold yourself: {priv} on {target}",
    )
    # the account rule (engine/security/account_rule.py): acting on an account or role needs what it
    # holds
    ACCOUNT_ABOVE_OWN = ErrorSpec(
        1227,
        "42000",
        "Access denied; you need (at least one of) the {verb} privilege(s) for this operation: "
        "{subject} holds {priv} on {target}, which you do not hold (acting on an account or role "
        "needs every privilege it holds)",
    )
    ROOT_LOGIN_RESERVED = ErrorSpec(
        1227, "42000", "Access denied; only 'root'@'%' itself can {op} {user}"
    )
    INVALID_PRIVILEGE_TARGET = ErrorSpec(
        1105,
        "HY000",
        "Invalid privilege target '{target}': use *.*.*, ctl.*.*, ctl.db.*, db.*, db, ctl.db.tbl "
        "or db.tbl",
    )
    ROLE_EXISTS = ErrorSpec(1105, "HY000", "Role '{role}' already exists")
    ROLE_NOT_FOUND = ErrorSpec(1105, "HY000", "Role '{role}' does not exist")

    # -- catalogs ---------------------------------------------------------------------------
    UNKNOWN_CATALOG = ErrorSpec(1105, "HY000", "Unknown catalog '{name}'")
    CATALOG_EXISTS = ErrorSpec(1105, "HY000", "Catalog '{name}' already exists")
    CATALOG_BAD_PROPERTY = ErrorSpec(1105, "HY000", "{detail}")
    CATALOG_ACCESS_FAILED = ErrorSpec(1105, "HY000", "Catalog '{name}': {detail}")
    # A remote catalog call past catalog_call_timeout_second (engine/lakehouse/catalogs/calls.py);
    # as a Warning when a listing across catalogs skips the catalog instead.
    CATALOG_TIMEOUT = ErrorSpec(
        1105,
        "HY000",
        "Catalog '{name}' did not answer within {seconds:g} s ({what}); try again later",
    )
    CATALOG_OVERLOADED = ErrorSpec(
        1105, "HY000", "Catalog '{name}' is not answering: {detail}; try again later"
    )
    CATALOG_NOT_LISTED = ErrorSpec(
        1105, "HY000", "Catalog '{name}' was left out of this listing: {detail}"
    )
    CATALOG_BUSY = ErrorSpec(
        1105,
        "HY000",
        "Catalog '{name}' has unresolved Lance index job {job_id}; resolve it before {op}",
    )
    # 1227 like a missing privilege: the warehouse is what makes ADMIN necessary (never echo a path
    # the user did not write)
    CATALOG_LOCATION_NOT_ALLOWED = ErrorSpec(
        1227,
        "42000",
        "Access denied; you need (at least one of) the ADMIN privilege(s) for this operation: "
        "{subject} is not under a location listed in config '{key}'",
    )
    CATALOG_LOCATION_RESERVED = ErrorSpec(
        1227,
        "42000",
        "Access denied; {subject} overlaps drydock's own data directory, which no catalog may use",
    )
    UNKNOWN_EXTERNAL_TABLE = ErrorSpec(
        1146, "42S02", "Table '{table}' doesn't exist in catalog '{catalog}'"
    )
    UNKNOWN_EXTERNAL_DATABASE = ErrorSpec(
        1049, "42000", "Unknown database '{db}' in catalog '{catalog}'"
    )
    READ_ONLY_CATALOG = ErrorSpec(
        1105,
        "HY000",
        "Catalog '{catalog}' is read-only through SQL: only SELECT is supported on its tables",
    )
    TIME_TRAVEL_INVALID = ErrorSpec(1105, "HY000", "{detail}")
    UNKNOWN_TABLE_VERSION = ErrorSpec(
        1105, "HY000", "Version {version} of table '{table}' does not exist in catalog '{catalog}'"
    )
    UNKNOWN_TABLE_TAG = ErrorSpec(
        1105, "HY000", "Tag '{tag}' of table '{table}' does not exist in catalog '{catalog}'"
    )
    SYSTEM_TABLE_READ_ONLY = ErrorSpec(
        1105, "HY000", "System table '{table}' is read-only: only SELECT is supported on it"
    )
    UNKNOWN_TABLE_BRANCH = ErrorSpec(
        1105, "HY000", "Branch '{branch}' of table '{table}' does not exist in catalog '{catalog}'"
    )
    TABLE_NO_VERSION_AT_TIME = ErrorSpec(
        1105,
        "HY000",
        "Table '{table}' in catalog '{catalog}' has no version committed at or before "
        "'{timestamp}'",
    )

    # -- procedures -------------------------------------------------------------------------
    UNKNOWN_PROCEDURE = ErrorSpec(
        1305,
        "42000",
        "PROCEDURE {name} does not exist in catalog '{catalog}' (type {type}); see SHOW PROCEDURES "
        "FROM {catalog}",
    )
    PROCEDURE_BAD_ARGUMENT = ErrorSpec(
        1108, "HY000", "Incorrect arguments to PROCEDURE {procedure}: {detail}"
    )
    PROCEDURE_FAILED = ErrorSpec(1105, "HY000", "PROCEDURE {procedure} failed: {detail}")
    PROCEDURE_CONCURRENT_COMMIT = ErrorSpec(
        1105,
        "HY000",
        "PROCEDURE {procedure} stopped: concurrent commit on {table} (validated {expected}, found "
        "{actual}); nothing was deleted — retry the call",
    )
    PROCEDURE_FENCED = ErrorSpec(
        1105,
        "HY000",
        "PROCEDURE {procedure} refused: table {table} has unresolved Lance index job {job_id}; "
        "wait for it or resolve it first",
    )
    PROCEDURE_CANCELLED = ErrorSpec(
        1317, "70100", "Query execution was interrupted by {reason}; done before that: {done}"
    )
    PROCEDURE_NOT_SUPPORTED = ErrorSpec(1235, "42000", "{detail}")
    PROCEDURE_CONCURRENT_COMMIT_PARTIAL = ErrorSpec(
        1105,
        "HY000",
        "PROCEDURE {procedure} stopped: concurrent commit on {table} (validated {expected}, found "
        "{actual}); done before that: {done} — retry the call",
    )
    # a Warning row: a procedure stopped at a bound (max_deletes) and left the rest for the next
    # call
    PROCEDURE_LIMIT_REACHED = ErrorSpec(1105, "HY000", "{detail}")

    # -- drydock configuration (Doris answers config errors as 1105 / HY000) -----------------
    CONFIG_UNKNOWN = ErrorSpec(1105, "HY000", "Config '{name}' does not exist")
    CONFIG_NOT_MUTABLE = ErrorSpec(1105, "HY000", "Config '{name}' is not mutable")
    CONFIG_INVALID = ErrorSpec(
        1105, "HY000", "Invalid value '{value}' for config '{name}': {reason}"
    )

    # -- Lance index jobs (docs/doris-compatibility.md) -------------------------------------
    # -- search with Lance indexes (engine/search/)
    SEARCH_ARGUMENT = ErrorSpec(1210, "HY000", "Incorrect arguments to {where}: {detail}")
    SEARCH_NEEDS_LIMIT = ErrorSpec(
        1235,
        "42000",
        "ORDER BY {function}(...) needs a LIMIT: an approximate search returns the k nearest "
        "rows; add LIMIT k (k at most {max_k})",
    )
    SEARCH_K_TOO_LARGE = ErrorSpec(
        1235,
        "42000",
        "LIMIT {k} is above vector_search_max_k ({max_k}) for an approximate search; lower the "
        "LIMIT, or have an administrator raise vector_search_max_k",
    )
    SEARCH_MISPLACED = ErrorSpec(1235, "42000", "{detail}")
    # a Note: the query was answered, exactly, without the index it named
    SEARCH_EXACT = ErrorSpec(5200, "HY000", "Exact search on {table}: {reason}")
    LANCE_INDEX_INVALID = ErrorSpec(5100, "HY000", "{detail}")
    LANCE_INDEX_OPERATION_NOT_SUPPORTED = ErrorSpec(
        5101, "HY000", "{op} is not supported for Lance {target}"
    )
    LANCE_INDEX_MUTATION_DISABLED = ErrorSpec(5102, "HY000", "{detail}")
    LANCE_INDEX_JOB_NOT_FOUND = ErrorSpec(5103, "HY000", "Lance index job not found: {job_id}")
    LANCE_INDEX_JOB_NOT_UNKNOWN = ErrorSpec(
        5104,
        "HY000",
        "Lance index job {job_id} cannot be resolved: not in UNKNOWN state (state is {state})",
    )
    LANCE_INDEX_JOB_RESOLUTION_INCOMPLETE = ErrorSpec(
        5105, "HY000", "Lance index job {job_id} was not released: {detail}"
    )
    # drydock's code for the warning row of a successful FORCE_RELEASE (documented in README)
    LANCE_INDEX_JOB_FORCE_RELEASED = ErrorSpec(5106, "HY000", "{detail}")
    LANCE_INDEX_JOB_TERMINAL = ErrorSpec(
        5107, "HY000", "Lance index job {job_id} cannot be cancelled: it is already {state}"
    )
    # an internal invariant: the manager refused a move the state machine
    # (engine/jobs/control/states.py) forbids
    LANCE_INDEX_JOB_ILLEGAL_TRANSITION = ErrorSpec(
        5108, "HY000", "Lance index job {job_id}: illegal {move}"
    )
    # Internal tables on a store several frontends share (engine/statements/shared_store.py)
    INTERNAL_CATALOG_PER_FRONTEND = ErrorSpec(
        5300,
        "HY000",
        "{what} refused: the metadata store is a PostgreSQL store several frontends share, and "
        "internal tables live in each frontend's own DuckDB catalog, so the table would exist on "
        "one frontend only; keep shared tables in a Lance or Paimon catalog instead (written by "
        "Lance or Paimon, registered with CREATE CATALOG, read as catalog.db.table through any "
        "frontend)",
    )
    SHOW_JOBS_INVALID = ErrorSpec(1105, "HY000", "{detail}")
    # Fence and quota conflicts (Doris' DdlException texts: docs/doris-compatibility.md)
    LANCE_INDEX_FENCED = ErrorSpec(
        5100,
        "HY000",
        "lance index '{index}' is fenced by unresolved job {job_id}; resolve that job "
        "(FORCE_RELEASE) before reusing the name",
    )
    LANCE_INDEX_QUOTA = ErrorSpec(
        5100,
        "HY000",
        "unresolved lance index job quota exceeded for index '{index}'; resolve or finish existing "
        "jobs first",
    )


PATH_PLACEHOLDER = "<path>"
# An absolute POSIX path (optionally file://, or continuing a root already replaced), not part of a
# URI such as s3://bucket/key or of a
# relative name such as 'a/b'. Linear: one character class, no nested repetition.
_ABSOLUTE_PATH = re.compile(r"(?<![\w.:/~-])(?:file://)?(?:<path>)?/[^\s'\"`,;()<>\[\]{}]+")


def scrub_paths(text: str, *roots: str | os.PathLike[str]) -> str:
    """Library or OS error text → the same text without server paths.

    Each of ``roots`` (e.g. the data directory), the home and temp directories, and any other
    absolute path become ``<path>``. Use it on every exception text that may reach a client.
    """
    known = [
        str(r)
        for r in (*roots, os.path.expanduser("~"), tempfile.gettempdir())
        if str(r) not in ("", "/")
    ]
    for root in sorted(known, key=len, reverse=True):
        text = text.replace(root, PATH_PLACEHOLDER)
    return _ABSOLUTE_PATH.sub(PATH_PLACEHOLDER, text)


def exception_text(exc: BaseException, *roots: str | os.PathLike[str]) -> str:
    """``Type: first line`` of a library exception, paths scrubbed (callers still redact
    secrets)."""
    lines = str(exc).splitlines()
    return scrub_paths(f"{type(exc).__name__}: {lines[0] if lines else ''}", *roots)


def all_specs() -> dict[str, ErrorSpec]:
    return {k: v for k, v in vars(Errors).items() if isinstance(v, ErrorSpec)}


_SQLSTATE_OF_CODE = {spec.code: spec.sqlstate for spec in all_specs().values()}


def sqlstate_of(code: int) -> str:
    """The SQLSTATE the table gives ``code`` (one per code; tested), HY000 for a code it lacks —
    e.g. one mysql-mimic raises by itself."""
    return _SQLSTATE_OF_CODE.get(code, "HY000")
