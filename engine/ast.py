"""Statement objects: what the grammar produces and the engine executes.

Plain frozen dataclasses with declared fields, one per statement; no behaviour here. A statement's
handler registers itself on the class (``@handles`` in engine/statements/<family>.py), which this
module cannot import; its grammar rule's transformer method (grammar/to_statement.py) builds it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar


@dataclass(frozen=True)
class Statement:
    """A statement declares how it runs (server/session.py routes by these, the audit reads them):

    - ``inline``: answered on the event loop (cheap, no I/O); otherwise in a worker thread;
    - ``pool``: which worker pool runs it — ``"statements"`` for queries and session work,
      ``"maintenance"`` for procedures and index-job administration, so long CALLs cannot starve
      plain queries;
    - ``audited``: it changes something, so every execution gets an audit record (denied
      statements always get one);
    - ``by_session``: the server session runs it (SQL-level prepared statements: session state),
      so it has no engine handler.
    """

    inline: ClassVar[bool] = False
    pool: ClassVar[str] = "statements"
    audited: ClassVar[bool] = False
    by_session: ClassVar[bool] = False


@dataclass(frozen=True, eq=False)
class SqlStatement(Statement):
    """Plain SQL the grammar does not own: parsed once by grammar/sql.py into a sqlglot tree.

    ``text`` is the statement as the client wrote it (after grammar/lexer.py). Executors work on
    a copy of the tree, unless ``fresh``: the tree was built for this one execution (a new parse,
    or a statement shape bound to this text's literals, grammar/shapes.py) and is consumed by it."""

    text: str
    expression: Any
    fresh: bool = False


# -- admin ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class AdminSetFrontendConfig(Statement):
    audited: ClassVar[bool] = True

    pairs: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class AdminShowFrontendConfig(Statement):
    inline: ClassVar[bool] = True

    like: str | None = None


# -- diagnostics (SHOW WARNINGS / ERRORS) -----------------------------------------------------
@dataclass(frozen=True)
class ShowDiagnostics(Statement):
    inline: ClassVar[bool] = True

    errors_only: bool  # SHOW ERRORS vs SHOW WARNINGS
    count_only: bool = False  # SHOW COUNT(*) WARNINGS
    offset: int = 0
    limit: int | None = None


# -- session ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Kill(Statement):
    inline: ClassVar[bool] = True
    audited: ClassVar[bool] = True

    connection_id: int
    query_only: bool = False


# -- users, roles, privileges -------------------------------------------------------------------
@dataclass(frozen=True)
class UserSpec:
    name: str
    host: str = "%"


@dataclass(frozen=True)
class PrivilegeTarget:
    """As written: parts of ``ctl.db.tbl`` / ``db.tbl`` / ``db.*`` / ``db`` / ``*.*.*``;
    None is a bare ``*`` (wildcard), while a backticked `*` is the name ``*``."""

    parts: tuple[str | None, ...]


@dataclass(frozen=True)
class CreateUser(Statement):
    audited: ClassVar[bool] = True

    user: UserSpec
    password: str = ""
    if_not_exists: bool = False
    default_role: str | None = None


@dataclass(frozen=True)
class DropUser(Statement):
    audited: ClassVar[bool] = True

    user: UserSpec
    if_exists: bool = False


@dataclass(frozen=True)
class AlterUser(Statement):
    audited: ClassVar[bool] = True

    user: UserSpec
    password: str
    if_exists: bool = False


@dataclass(frozen=True)
class SetPassword(Statement):
    audited: ClassVar[bool] = True

    user: UserSpec | None  # None = the current user
    password: str


@dataclass(frozen=True)
class GrantPrivileges(Statement):
    audited: ClassVar[bool] = True

    privileges: tuple[str, ...]
    target: PrivilegeTarget
    user: UserSpec | None = None
    role: str | None = None


@dataclass(frozen=True)
class RevokePrivileges(Statement):
    audited: ClassVar[bool] = True

    privileges: tuple[str, ...]
    target: PrivilegeTarget
    user: UserSpec | None = None
    role: str | None = None


@dataclass(frozen=True)
class GrantRole(Statement):
    audited: ClassVar[bool] = True

    roles: tuple[str, ...]
    user: UserSpec


@dataclass(frozen=True)
class RevokeRole(Statement):
    audited: ClassVar[bool] = True

    roles: tuple[str, ...]
    user: UserSpec


@dataclass(frozen=True)
class CreateRole(Statement):
    audited: ClassVar[bool] = True

    name: str
    if_not_exists: bool = False


@dataclass(frozen=True)
class DropRole(Statement):
    audited: ClassVar[bool] = True

    name: str
    if_exists: bool = False


@dataclass(frozen=True)
class ShowGrants(Statement):
    user: UserSpec | None = None  # None = the current user
    all_users: bool = False


@dataclass(frozen=True)
class ShowRoles(Statement):
    pass


@dataclass(frozen=True)
class ShowAudit(Statement):
    limit: int = 100


# -- internal catalog ----------------------------------------------------------------------------
@dataclass(frozen=True)
class ShowCreateTable(Statement):
    parts: tuple[str, ...]  # [[catalog.]db.]table


# -- catalogs and metadata ----------------------------------------------------------------------
@dataclass(frozen=True)
class CreateCatalog(Statement):
    audited: ClassVar[bool] = True

    name: str
    properties: tuple[tuple[str, str], ...]
    comment: str = ""
    if_not_exists: bool = False


@dataclass(frozen=True)
class DropCatalog(Statement):
    audited: ClassVar[bool] = True

    name: str
    if_exists: bool = False


@dataclass(frozen=True)
class AlterCatalogRename(Statement):
    audited: ClassVar[bool] = True

    name: str
    new_name: str


@dataclass(frozen=True)
class AlterCatalogSetProperties(Statement):
    audited: ClassVar[bool] = True

    name: str
    properties: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class ShowCatalogs(Statement):
    like: str | None = None


@dataclass(frozen=True)
class ShowCreateCatalog(Statement):
    name: str


@dataclass(frozen=True)
class Switch(Statement):
    catalog: str


@dataclass(frozen=True)
class Use(Statement):
    parts: tuple[str, ...]  # (db,) or (catalog, db)


@dataclass(frozen=True)
class Refresh(Statement):
    pool: ClassVar[str] = "maintenance"
    audited: ClassVar[bool] = True

    kind: str  # CATALOG | DATABASE | TABLE
    parts: tuple[str, ...]


@dataclass(frozen=True)
class ShowDatabases(Statement):
    catalog: str | None = None
    like: str | None = None


@dataclass(frozen=True)
class ShowTables(Statement):
    parts: tuple[str, ...] = ()  # () current db, (db,) or (catalog, db)
    like: str | None = None
    full: bool = False


@dataclass(frozen=True)
class Describe(Statement):
    """DESC t ['pattern' | col]: the rows of SHOW COLUMNS FROM t [LIKE pattern]."""

    parts: tuple[str, ...]
    like: str | None = None


@dataclass(frozen=True)
class ShowColumns(Statement):
    """SHOW [FULL] COLUMNS: the rows of DESCRIBE (FULL adds Collation, Privileges, Comment)."""

    parts: tuple[str, ...]
    full: bool = False
    like: str | None = None


@dataclass(frozen=True)
class ShowIndex(Statement):
    parts: tuple[str, ...]


# -- Lance index jobs -----------------------------------------------------------------------------
@dataclass(frozen=True)
class CreateIndex(Statement):
    pool: ClassVar[str] = "maintenance"
    audited: ClassVar[bool] = True

    name: str
    table: tuple[str, ...]  # [[catalog.]db.]table
    columns: tuple[str, ...]
    using: str  # ANN | BTREE | BITMAP | INVERTED (validated by the engine)
    properties: tuple[tuple[str, str], ...] = ()
    or_replace: bool = False
    if_not_exists: bool = False


@dataclass(frozen=True)
class DropIndex(Statement):
    pool: ClassVar[str] = "maintenance"
    audited: ClassVar[bool] = True

    name: str
    table: tuple[str, ...]
    if_exists: bool = False


@dataclass(frozen=True)
class Predicate:
    """``left op right`` of a SHOW ... WHERE clause, as written (validated by the command)."""

    left: str
    op: str
    right: str
    left_is_column: bool
    right_is_string: bool


@dataclass(frozen=True)
class WhereClause:
    predicates: tuple[Predicate, ...]
    connectives: tuple[str, ...]  # AND / OR between predicates


@dataclass(frozen=True)
class ShowLanceIndexJobs(Statement):
    scope: tuple[str, ...] = ()  # FROM [catalog.]db
    where: WhereClause | None = None


@dataclass(frozen=True)
class ShowLanceIndexJob(Statement):
    job_id: int


@dataclass(frozen=True)
class ResolveLanceIndexJob(Statement):
    pool: ClassVar[str] = "maintenance"
    audited: ClassVar[bool] = True

    job_id: int
    note: str


@dataclass(frozen=True)
class CancelLanceIndexJob(Statement):
    pool: ClassVar[str] = "maintenance"
    audited: ClassVar[bool] = True

    job_id: int


# -- SQL-level prepared statements (PREPARE / EXECUTE / DEALLOCATE PREPARE)
# -------------------------
# Run by the server session (server/sql_prepared.py): EXECUTE re-enters the session's routing.
@dataclass(frozen=True)
class Prepare(Statement):
    by_session: ClassVar[bool] = True

    name: str  # statement names are case-insensitive
    text: str | None = None  # PREPARE s FROM 'text'
    from_variable: str | None = None  # PREPARE s FROM @var (the variable's name, without '@')


@dataclass(frozen=True)
class ExecutePrepared(Statement):
    by_session: ClassVar[bool] = True

    name: str
    using: tuple[str, ...] = ()  # EXECUTE s USING @a, @b: the variables' names, without '@'


@dataclass(frozen=True)
class DeallocatePrepare(Statement):
    by_session: ClassVar[bool] = True

    name: str  # DEALLOCATE PREPARE s | DROP PREPARE s


@dataclass(frozen=True)
class ShowBackends(Statement):
    pass


@dataclass(frozen=True)
class ShowFrontends(Statement):
    pass


# -- procedures -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class CallArgument:
    name: str | None  # None = positional
    value: str | None  # None = SQL NULL
    kind: str  # STRING | NUMBER | BOOLEAN | NULL (how it was written)


@dataclass(frozen=True)
class CallProcedure(Statement):
    pool: ClassVar[str] = "maintenance"
    audited: ClassVar[bool] = True

    parts: tuple[str, ...]  # [catalog.]sys.procedure
    arguments: tuple[CallArgument, ...] = ()


@dataclass(frozen=True)
class ShowProcedures(Statement):
    catalog: str | None = None


@dataclass(frozen=True)
class ShowProcedure(Statement):
    parts: tuple[str, ...]  # [catalog.]sys.procedure


# -- server information (engine/statements/server_info.py) --------------------------------------
@dataclass(frozen=True)
class ShowEngines(Statement):
    pass


@dataclass(frozen=True)
class ShowCharset(Statement):
    like: str | None = None


@dataclass(frozen=True)
class ShowCollation(Statement):
    like: str | None = None


@dataclass(frozen=True)
class ShowPlugins(Statement):
    pass


@dataclass(frozen=True)
class ShowProcesslist(Statement):
    full: bool = False


@dataclass(frozen=True)
class ShowTableStatus(Statement):
    parts: tuple[str, ...] | None = None  # [catalog.]db; None: the session's database
    like: str | None = None


@dataclass(frozen=True)
class ShowRoutineStatus(Statement):
    function: bool = False  # SHOW FUNCTION STATUS vs SHOW PROCEDURE STATUS
    like: str | None = None


# -- what dump tools send (engine/statements/dump_statements.py) ---------------------------------
@dataclass(frozen=True)
class ShowCreateDatabase(Statement):
    name: str
    if_not_exists: bool = False


@dataclass(frozen=True)
class ShowTriggers(Statement):
    db: str | None = None  # None: the session's database
    like: str | None = None


@dataclass(frozen=True)
class LockTables(Statement):
    tables: tuple[tuple[str, ...], ...]  # each [[catalog.]db.]table


@dataclass(frozen=True)
class UnlockTables(Statement):
    inline: ClassVar[bool] = True


@dataclass(frozen=True)
class Flush(Statement):
    """FLUSH TABLES [t, …] [WITH READ LOCK | FOR EXPORT], FLUSH PRIVILEGES | LOGS."""

    inline: ClassVar[bool] = True

    what: str  # TABLES, PRIVILEGES or LOGS
