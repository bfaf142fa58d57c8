"""Fuzz: statements, packets and PROPERTIES maps the server has never seen must get an answer.

- Grammar fuzz (hypothesis): statements derived at random from grammar/drydock.lark's own rules
  (every keyword, identifiers of real objects, literals, punctuation), mutations of a valid example
  of every statement family and of the SQL passthrough (truncated, tokens swapped / duplicated /
  dropped, garbage bytes, unicode, NUL, very long identifiers, unbalanced quotes and comments) and
  token salads. Over the wire, on one long-lived raw connection per batch, every statement must
  answer a result set / OK or an ERR whose code is in KNOWN_CODES; an 1105 whose text starts with
  "internal error:" (an exception that reached server/connection.py's last line of defence) is a
  failure, and so is a connection the server closed. In process, ``grammar.parser.parse`` returns a
  statement or None, or raises DrydockError — nothing else.
- Protocol fuzz: malformed packets before login (random bytes, bad lengths, bad sequence ids,
  truncated / mutated handshake responses, oversized announced lengths, stalled half-packets) and
  after login as root (random commands and payloads, COM_STMT_EXECUTE garbage against a real
  prepared statement, bad sequence ids, truncated frames, fragmented writes). A well-formed pymysql
  client runs ``SELECT 1`` between batches and at the end and must be answered within
  WELL_FORMED_BOUND_SECONDS; the server process must stay alive; stalled pre-login sockets must be
  dropped by the handshake timeout.
- Property fuzz (hypothesis): random PROPERTIES maps (known and random keys, case variants,
  duplicates, unicode, empty and huge values) for CREATE INDEX ... USING ANN and CREATE CATALOG:
  success or a typed error, never an internal error; what succeeds is cleaned up (CANCEL, DROP).

Sizes (CI defaults in brackets): DRYDOCK_FUZZ_STATEMENTS [2000] statements over the wire,
DRYDOCK_FUZZ_PARSER_EXAMPLES [1500] in-process parses, DRYDOCK_FUZZ_PACKETS [300] malformed packets
before and again after login, DRYDOCK_FUZZ_PROPERTIES [120] maps each for CREATE INDEX and CREATE
CATALOG. DRYDOCK_FUZZ_SEED picks a new random exploration (default: derandomized, reproducible).
Full size of the robustness issue:

    DRYDOCK_FUZZ_STATEMENTS=10000 DRYDOCK_FUZZ_PARSER_EXAMPLES=10000 DRYDOCK_FUZZ_PACKETS=1000 \\
        DRYDOCK_FUZZ_PROPERTIES=500 scripts/test tests/wire/test_fuzz.py

Only 127.0.0.1; every socket operation has a timeout; catalogs point at local paths only.
"""

from __future__ import annotations

import os
import random
import re
import socket
import struct
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pymysql
import pytest
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

from drydock.engine import ast
from drydock.engine.errors import DrydockError, all_specs
from drydock.grammar import parser as grammar
from drydock.grammar.lark_parser import PARSER
from drydock.grammar.owned_prefixes import OWNED_PREFIXES
from tests.support import mysql_raw as raw
from tests.conftest import ServerProcess
from tests.support.lance_fixtures import local_warehouse, set_config, vector_table

STATEMENTS = int(os.environ.get("DRYDOCK_FUZZ_STATEMENTS", "2000"))
PARSER_EXAMPLES = int(os.environ.get("DRYDOCK_FUZZ_PARSER_EXAMPLES", "1500"))
PACKETS = int(os.environ.get("DRYDOCK_FUZZ_PACKETS", "300"))
PROPERTIES = int(os.environ.get("DRYDOCK_FUZZ_PROPERTIES", "120"))
SEED = os.environ.get("DRYDOCK_FUZZ_SEED")
BATCH = 500  # statements per long-lived connection
PACKET_BATCH = 50  # malformed packets between two well-formed checks
STATEMENT_TIMEOUT = 60.0  # a statement not answered within this has hung the connection
WELL_FORMED_BOUND_SECONDS = 10.0
HANDSHAKE_TIMEOUT = 2.0  # the server's DRYDOCK_HANDSHAKE_TIMEOUT_SECONDS in these tests
NO_KILL = 10**9  # KILL statements only ever name connection ids from here up (none exists)

# Every code of engine/errors.py's table, plus those mysql-mimic raises itself (its ErrorCode).
MIMIC_CODES = {
    1040,
    1043,
    1045,
    1046,
    1047,
    1064,
    1065,
    1105,
    1106,
    1193,
    1231,
    1235,
    1835,
    3162,
    3169,
}
KNOWN_CODES = {spec.code for spec in all_specs().values()} | MIMIC_CODES
INTERNAL = "internal error:"


def fuzz_settings(examples: int) -> Callable[[Any], Any]:
    """Hypothesis settings for these tests: no deadline (a server answers), no example database,
    reproducible unless DRYDOCK_FUZZ_SEED asks for another exploration."""

    def apply(fn: Any) -> Any:
        fn = settings(
            max_examples=examples,
            deadline=None,
            database=None,
            derandomize=SEED is None,
            suppress_health_check=list(HealthCheck),
            print_blob=True,
            phases=[Phase.explicit, Phase.generate, Phase.shrink]
            if fn.__name__.startswith("parse")
            else [Phase.explicit, Phase.generate],
        )(fn)
        return seed(int(SEED))(fn) if SEED is not None else fn

    return apply


# =================================================================================================
# Statements: the grammar's own rules, real object names, examples of every statement family
# =================================================================================================
_LARK = PARSER
RULES: dict[str, list[list[tuple[str, bool]]]] = {}
for _rule in _LARK.rules:
    RULES.setdefault(_rule.origin.name, []).append([(s.name, s.is_term) for s in _rule.expansion])
TERMINALS = {t.name: t.pattern for t in _LARK.terminals}
KEYWORDS = sorted(
    {p.value for p in TERMINALS.values() if p.type == "str" and re.fullmatch(r"[A-Z_]+", p.value)}
)
PUNCTUATION = sorted(
    {
        p.value
        for p in TERMINALS.values()
        if p.type == "str" and not re.fullmatch(r"[A-Z_]+", p.value)
    }
)


def _min_depth() -> dict[str, int]:
    """Fewest derivation steps to a terminal string, per rule (the generator's way out)."""
    depth = {name: 10**6 for name in RULES}
    changed = True
    while changed:
        changed = False
        for name, expansions in RULES.items():
            for expansion in expansions:
                d = 1 + max((0 if term else depth[sym] for sym, term in expansion), default=0)
                if d < depth[name]:
                    depth[name], changed = d, True
    return depth


MIN_DEPTH = _min_depth()
STATEMENT_RULES = sorted(sym for expansion in RULES["statement"] for sym, _ in expansion)

WAREHOUSE_PLACEHOLDER = "<warehouse>"
IDENTIFIERS = [
    "lc",
    "db",
    "t",
    "s",
    "demo",
    "emb",
    "id",
    "name",
    "body",
    "sys",
    "fz",
    "x",
    "information_schema",
    "internal",
    "create_tag",
    "delete_tag",
    "compact",
    "expire_snapshots",
    "remove_orphan_files",
    "rollback_to",
    "create_branch",
    "nope",
    "IF",
    "select",
    "ROOT",
    "_",
    "$a",
    "a1" * 40,
    "ix_" + "i" * 300,
]
BACKTICKED = [
    "`lc`",
    "`db`",
    "`t`",
    "`we``ird`",
    "`ünï cødé`",
    "`日本`",
    "`a.b`",
    "` `",
    "`" + "b" * 2000 + "`",
]
STRINGS = [
    "'lance'",
    "'paimon'",
    f"'{WAREHOUSE_PLACEHOLDER}'",
    "'/nonexistent/wh'",
    "'relative/path'",
    "'file:///nonexistent'",
    "'db.t'",
    "'db.s'",
    "'db.*'",
    "'t'",
    "'type'",
    "'warehouse'",
    "'index_type'",
    "'IVF_PQ'",
    "'IVF_FLAT'",
    "'metric'",
    "'l2'",
    "'num_partitions'",
    "'4'",
    "'0'",
    "'-1'",
    "'99999999999999999999'",
    "'num_sub_vectors'",
    "'sample_rate'",
    "'max_iters'",
    "'lance_index_job_max_unresolved_per_table'",
    "'procedure_max_deletes'",
    "'enable_lance_index_mutation'",
    "'no_such_config'",
    "'true'",
    "'false'",
    "'%'",
    "'u_fz'",
    "'localhost'",
    "'r_fz'",
    "'pw'",
    "''",
    "'it''s'",
    "'back\\\\slash'",
    "'new\\nline'",
    "'ünïcødé ✓'",
    "'\U0001f600'",
    "'NULL'",
    "'lance_%'",
    "'2020-01-01 00:00:00'",
    "'1700000000000'",
    "'PENDING'",
    "'UNKNOWN'",
    "'tag1'",
    "'b1'",
    "'SELECT 1'",
    "'SELECT ?'",
    "'SHOW WARNINGS'",
    "'x' 'y'",
    "'" + "s" * 3000 + "'",
    '"lance"',
    '"dq ""quoted"""',
    '"TableName"',
    '"t"',
    '"PENDING"',
    '""',
]
INTS = ["0", "1", "2", "3", "7", "42", "255", "65535", "2147483648", "99999999999999999999999"]
SIGNED = ["-1", "+1", "-0", "-99999999999999999999"]
DECIMALS = ["1.5", "-0.0", ".5", "1e3", "-2.5E-3", "1.", "3.14159265358979323846264338327950288"]
USER_VARIABLES = ["@v", "@`v`", "@'v'", '@"v"', "@nope", "@a.b"]


def terminal_text(name: str, pick: Callable[[list[str]], str], context: tuple[str, ...]) -> str:
    pattern = TERMINALS[name]
    if name == "INT":
        return str(NO_KILL + len(context)) if "kill" in context else pick(INTS)
    if name == "SIGNED_INT":
        return pick(SIGNED)
    if name == "DECIMAL":
        return pick(DECIMALS)
    if name == "IDENTIFIER":
        return pick(IDENTIFIERS)
    if name == "BACKTICKED":
        return pick(BACKTICKED)
    if name in ("SINGLE_QUOTED", "DOUBLE_QUOTED"):
        return pick([s for s in STRINGS if s[0] == ("'" if name == "SINGLE_QUOTED" else '"')])
    if name == "USER_VARIABLE":
        return pick(USER_VARIABLES)
    if name == "NE":
        return pick(["!=", "<>"])
    assert pattern.type == "str", name
    value = pattern.value
    return pick([value, value.lower(), value.capitalize()]) if value.isalpha() else value


def derive(
    rule: str, choose: Callable[[int], int], pick: Callable[[list[str]], str], budget: int = 14
) -> str:
    """A random sentence of ``rule``: expansions chosen by ``choose`` while the depth budget lasts,
    then the shallowest ones."""
    out: list[str] = []

    def walk(name: str, depth: int, context: tuple[str, ...]) -> None:
        expansions = RULES[name]
        if depth >= budget:
            best = min(MIN_DEPTH.get(s, 0) if not t else 0 for e in expansions for s, t in e[:1])
            candidates = [
                e
                for e in expansions
                if max((MIN_DEPTH[s] for s, t in e if not t), default=0) <= max(best, 1) + 1
            ] or expansions
            expansion = min(
                candidates, key=lambda e: max((MIN_DEPTH[s] for s, t in e if not t), default=0)
            )
        else:
            expansion = expansions[choose(len(expansions))]
        for symbol, is_term in expansion:
            if is_term:
                out.append(terminal_text(symbol, pick, context))
            else:
                walk(symbol, depth + 1, (*context, name))

    walk(rule, 0, ())
    return " ".join(out)


# One or more valid examples of every statement family the grammar owns (checked against the
# grammar below, so a new family without examples fails test_examples_cover_every_statement_family).
EXAMPLES: dict[str, list[str]] = {
    "admin_set_frontend_config": [
        "ADMIN SET FRONTEND CONFIG ('procedure_max_deletes' = '1000')",
        (
            "ADMIN SET FRONTEND CONFIG ('lance_index_job_max_unresolved_per_table' = '9', "
            "'lance_index_max_num_partitions' = 64)"
        ),
    ],
    "admin_show_frontend_config": [
        "ADMIN SHOW FRONTEND CONFIG",
        "ADMIN SHOW FRONTEND CONFIG LIKE 'lance_%'",
    ],
    "show_warnings": ["SHOW WARNINGS", "SHOW WARNINGS LIMIT 1, 2"],
    "show_errors": ["SHOW ERRORS LIMIT 5"],
    "show_count_warnings": ["SHOW COUNT(*) WARNINGS"],
    "show_count_errors": ["SHOW COUNT(*) ERRORS"],
    "kill": [f"KILL QUERY {NO_KILL}", f"KILL CONNECTION {NO_KILL + 1}"],
    "create_user": ["CREATE USER IF NOT EXISTS 'u_fz'@'%' IDENTIFIED BY 'pw' DEFAULT ROLE 'r_fz'"],
    "drop_user": ["DROP USER IF EXISTS 'u_fz2'@'localhost'"],
    "alter_user": ["ALTER USER IF EXISTS 'u_fz'@'%' IDENTIFIED BY 'pw2'"],
    "set_password": ["SET PASSWORD FOR 'u_fz'@'%' = PASSWORD('pw3')"],
    "grant_privileges": [
        "GRANT SELECT_PRIV, ALTER_PRIV ON lc.db.t TO 'u_fz'@'%'",
        "GRANT ALL ON *.*.* TO ROLE 'r_fz'",
    ],
    "revoke_privileges": ["REVOKE SELECT_PRIV ON lc.db.* FROM 'u_fz'@'%'"],
    "grant_role": ["GRANT 'r_fz' TO 'u_fz'@'%'"],
    "revoke_role": ["REVOKE 'r_fz' FROM 'u_fz'@'%'"],
    "create_role": ["CREATE ROLE IF NOT EXISTS r_fz"],
    "drop_role": ["DROP ROLE IF EXISTS r_fz2"],
    "show_grants": [
        "SHOW GRANTS",
        "SHOW ALL GRANTS",
        "SHOW GRANTS FOR 'u_fz'@'%'",
        "SHOW GRANTS FOR CURRENT_USER()",
    ],
    "show_roles": ["SHOW ROLES"],
    "show_engines": ["SHOW ENGINES", "SHOW STORAGE ENGINES"],
    "show_charset": ["SHOW CHARSET", "SHOW CHARACTER SET LIKE 'utf8%'"],
    "show_collation": ["SHOW COLLATION LIKE 'utf8mb4%'"],
    "show_plugins": ["SHOW PLUGINS"],
    "show_processlist": ["SHOW PROCESSLIST", "SHOW FULL PROCESSLIST"],
    "show_table_status": ["SHOW TABLE STATUS FROM demo", "SHOW TABLE STATUS FROM demo LIKE 't%'"],
    "show_routine_status": ["SHOW PROCEDURE STATUS", "SHOW FUNCTION STATUS WHERE Db = 'demo'"],
    "show_audit": ["SHOW AUDIT LIMIT 3"],
    "show_create_table": ["SHOW CREATE TABLE demo.t", "SHOW CREATE TABLE lc.db.s"],
    "create_catalog": [
        f"CREATE CATALOG IF NOT EXISTS lc PROPERTIES ('type' = 'lance', 'warehouse' = "
        f"'{WAREHOUSE_PLACEHOLDER}')",
        (
            f"CREATE CATALOG fz COMMENT 'c' PROPERTIES ('type' = 'lance', 'warehouse' = "
            f"'{WAREHOUSE_PLACEHOLDER}', 'meta.cache.ttl-second' = '0')"
        ),
    ],
    "drop_catalog": ["DROP CATALOG IF EXISTS fz"],
    "alter_catalog_rename": ["ALTER CATALOG fz RENAME fz2"],
    "alter_catalog_set_properties": [
        "ALTER CATALOG fz SET PROPERTIES ('meta.cache.ttl-second' = '5')"
    ],
    "show_catalogs": ["SHOW CATALOGS", "SHOW CATALOGS LIKE 'l%'"],
    "show_create_catalog": ["SHOW CREATE CATALOG lc"],
    "switch": ["SWITCH internal", "SWITCH lc"],
    "use": ["USE demo", "USE lc.db", "USE internal.demo"],
    "refresh": ["REFRESH CATALOG lc", "REFRESH DATABASE lc.db", "REFRESH TABLE lc.db.t"],
    "show_databases": ["SHOW DATABASES", "SHOW DATABASES FROM lc LIKE 'd%'"],
    "show_tables": ["SHOW FULL TABLES FROM lc.db LIKE 't%'", "SHOW TABLES IN demo"],
    "describe": ["DESCRIBE lc.db.t", "DESC demo.t", "DESC demo.t 'i%'", "DESCRIBE demo.t id"],
    "show_columns": ["SHOW COLUMNS FROM lc.db.t", "SHOW FULL FIELDS FROM t IN demo LIKE 'i%'"],
    "show_index": ["SHOW INDEX FROM lc.db.t", "SHOW KEYS IN demo.t", "SHOW INDEX FROM t FROM demo"],
    "show_create_database": ["SHOW CREATE DATABASE demo", "SHOW CREATE SCHEMA IF NOT EXISTS demo"],
    "show_triggers": ["SHOW TRIGGERS", "SHOW TRIGGERS FROM demo LIKE 't%'"],
    "lock_tables": ["LOCK TABLES demo.t READ", "LOCK TABLES demo.t AS x WRITE, demo.t READ LOCAL"],
    "unlock_tables": ["UNLOCK TABLES"],
    "flush": ["FLUSH TABLES", "FLUSH LOCAL TABLES WITH READ LOCK", "FLUSH PRIVILEGES"],
    "prepare": ["PREPARE s1 FROM 'SELECT id FROM demo.t WHERE id = ?'", "PREPARE s2 FROM @v"],
    "execute_prepared": ["EXECUTE s1 USING @v", "EXECUTE s2"],
    "deallocate_prepare": ["DEALLOCATE PREPARE s1", "DROP PREPARE s2"],
    "create_index": [
        (
            "CREATE INDEX fz_i ON lc.db.t (emb) USING ANN PROPERTIES ('index_type' = 'IVF_FLAT', "
            "'num_partitions' = '2', 'sample_rate' = '16', 'max_iters' = '5')"
        ),
        "CREATE OR REPLACE INDEX fz_b ON lc.db.t (id) USING BTREE",
        "CREATE INDEX IF NOT EXISTS fz_n ON lc.db.t (name) USING BITMAP",
    ],
    "drop_index": ["DROP INDEX IF EXISTS fz_b ON lc.db.t"],
    "show_lance_index_jobs": [
        "SHOW LANCE INDEX JOBS",
        "SHOW LANCE INDEX JOBS FROM lc.db WHERE TableName = 't' AND State = 'PENDING'",
    ],
    "show_lance_index_job": ["SHOW LANCE INDEX JOB 1"],
    "resolve_lance_index_job": ["RESOLVE LANCE INDEX JOB 1 AS FORCE_RELEASE COMMENT 'fuzz'"],
    "cancel_lance_index_job": ["CANCEL LANCE INDEX JOB 2"],
    "show_backends": ["SHOW BACKENDS"],
    "show_frontends": ["SHOW FRONTENDS"],
    "call_procedure": [
        "CALL lc.sys.create_tag('db.s', 'tag1')",
        "CALL lc.sys.delete_tag(table => 'db.s', tag => 'tag1')",
        "CALL lc.sys.expire_snapshots('db.s', 1, 1, NULL, 10)",
        "CALL lc.sys.remove_orphan_files(table => 'db.s', dry_run => true)",
        "CALL sys.compact('db.s')",
    ],
    "show_procedures": ["SHOW PROCEDURES", "SHOW PROCEDURES FROM lc"],
    "show_procedure": ["SHOW PROCEDURE lc.sys.create_tag"],
}
# The SQL passthrough (DuckDB via sqlglot): only small tables, so no mutation can make a huge join.
PASSTHROUGH = [
    "SELECT 1 + 1",
    "SELECT * FROM lc.db.s LIMIT 3",
    "SELECT count(*), max(id) FROM lc.db.s WHERE id > 5",
    "SELECT id FROM demo.t ORDER BY id DESC",
    "INSERT INTO demo.t VALUES (3, 'c')",
    "CREATE TABLE IF NOT EXISTS demo.t2 (id INT, v VARCHAR(10))",
    "DROP TABLE IF EXISTS demo.nope",
    "SET @v = 'SELECT 1'",
    "SELECT @v, @@version_comment",
    "SHOW VARIABLES LIKE 'version%'",
    "SET sql_mode = 'ANSI'",
    "SET NAMES utf8mb4",
    "EXPLAIN SELECT 1",
    "CREATE DATABASE IF NOT EXISTS d2",
    "SELECT table_name FROM information_schema.tables LIMIT 2",
    "SELECT * FROM lc.db.s FOR VERSION AS OF 1 LIMIT 1",
    "SELECT id FROM lc.db.s@tag('tag1') LIMIT 1",
    "UPDATE demo.t SET name = 'z' WHERE id = 1",
    "DELETE FROM demo.t WHERE id = 3",
    "SELECT DATABASE()",
    "SELECT sqrt(4), CAST(1 AS DECIMAL(5,2))",
    "SELECT id, l2_distance(emb, [0.5, -0.25, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0.125]) AS d "
    "FROM lc.db.t ORDER BY d LIMIT 3",
    "SELECT cosine_distance('[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1]', emb), emb FROM lc.db.t LIMIT 2",
    "SELECT id FROM lc.db.t WHERE body MATCH_ANY 'word1 word2' LIMIT 2",
    "SELECT STRING_TO_VECTOR('[1, 2.5]'), VECTOR_TO_STRING([0.1, 2]), [1, -2]",
    "SHOW STATUS LIKE 'x'",
    "BEGIN",
    "COMMIT",
    "ROLLBACK",
]
ALL_EXAMPLES = [s for family in EXAMPLES.values() for s in family] + PASSTHROUGH
SALAD = (
    KEYWORDS
    + PUNCTUATION
    + IDENTIFIERS[:20]
    + [
        "'x'",
        '"y"',
        "1",
        "-2",
        "3.5",
        "@v",
        "?",
        "`b`",
        "--",
        "/*",
        "*/",
        "#",
        ";",
        "SELECT",
        "FROM",
        "WHERE",
        "VALUES",
        "INSERT",
    ]
)
GARBAGE = [
    "\x00",
    "\ufeff",
    "\u202e",
    "\u0301",
    "\U0001f600",
    "日本語",
    "\\",
    "'",
    '"',
    "`",
    "/*",
    "*/",
    "-- ",
    "#",
    ";",
    "\n",
    "\t",
    "\r\n",
    "%",
    "?",
    "@",
    "@@",
    "${x}",
    "\x1a",
    "ÿ",
    "\u2028",
]
_TOKEN = re.compile(
    r"'(?:[^'\\]|\\.|'')*'|\"(?:[^\"\\]|\\.|\"\")*\"|`(?:[^`]|``)+`|\w+|=>|!=|<>|<=|>=|\S",
    re.DOTALL,
)


def tokens(sql: str) -> list[str]:
    return _TOKEN.findall(sql)


@dataclass
class Fuzzed:
    """One fuzzed statement: its text, or raw bytes for the wire (invalid UTF-8 included)."""

    text: str
    extra: bytes = b""  # appended raw to the encoded text
    how: str = ""

    @property
    def payload(self) -> bytes:
        return self.text.encode("utf-8", "surrogatepass") + self.extra

    def __repr__(self) -> str:
        return f"{self.how}: {self.payload[:300]!r}{'...' if len(self.payload) > 300 else ''}"


def mutate(sql: str, draw: Callable[[Any], Any]) -> Fuzzed:
    toks = tokens(sql) or [sql]
    kind = draw(
        st.sampled_from(
            [
                "truncate",
                "truncate_chars",
                "swap",
                "duplicate",
                "drop",
                "insert_token",
                "insert_garbage",
                "raw_bytes",
                "long_identifier",
                "case",
                "huge_number",
                "unicode_identifier",
                "stack",
            ]
        )
    )
    i = draw(st.integers(0, len(toks) - 1))
    j = draw(st.integers(0, len(toks) - 1))
    if kind == "truncate":
        toks = toks[:i]
    elif kind == "truncate_chars":
        text = " ".join(toks)
        return Fuzzed(text[: draw(st.integers(0, len(text)))], how=kind)
    elif kind == "swap":
        toks[i], toks[j] = toks[j], toks[i]
    elif kind == "duplicate":
        toks.insert(i, toks[i])
    elif kind == "drop":
        del toks[i]
    elif kind == "insert_token":
        toks.insert(i, draw(st.sampled_from(SALAD)))
    elif kind == "insert_garbage":
        toks.insert(
            i, draw(st.sampled_from(GARBAGE)) if draw(st.booleans()) else draw(st.text(max_size=8))
        )
    elif kind == "raw_bytes":  # bytes that are not UTF-8 at all
        return Fuzzed(
            " ".join(toks[:i]),
            extra=draw(st.binary(min_size=1, max_size=16)) + " ".join(toks[i:]).encode(),
            how=kind,
        )
    elif kind == "long_identifier":
        toks.insert(
            i,
            draw(st.sampled_from(["x", "`y", "'z", "ü"]))
            * draw(st.sampled_from([256, 4096, 70000])),
        )
    elif kind == "case":
        toks = [t.swapcase() if draw(st.booleans()) else t for t in toks]
    elif kind == "huge_number":
        toks.insert(
            i,
            draw(
                st.sampled_from(
                    ["1" * 40, "-" + "9" * 30, "1e999", "0x" + "f" * 40, "1.7976931348623157e309"]
                )
            ),
        )
    elif kind == "unicode_identifier":
        toks.insert(
            i, draw(st.text(alphabet=st.characters(codec="utf-8"), min_size=1, max_size=12))
        )
    else:  # several mutations at once
        for _ in range(draw(st.integers(2, 4))):
            toks = tokens(mutate(" ".join(toks), draw).text) or toks
    return Fuzzed(" ".join(toks), how=kind)


@st.composite
def fuzzed_statements(draw: Callable[[Any], Any], warehouse: str = "/nonexistent/wh") -> Fuzzed:
    source = draw(
        st.sampled_from(["derived", "derived", "mutated", "mutated", "mutated", "example", "salad"])
    )
    choose = lambda n: draw(st.integers(0, n - 1))
    pick = lambda options: options[choose(len(options))]
    if source == "derived":
        rule = draw(st.sampled_from(STATEMENT_RULES))
        fuzzed = Fuzzed(derive(rule, choose, pick), how=f"derived {rule}")
        if draw(st.integers(0, 9)) == 0:
            fuzzed = mutate(fuzzed.text, draw)
            fuzzed.how = f"mutated derived {rule} ({fuzzed.how})"
    elif source in ("mutated", "example"):
        base = draw(st.sampled_from(ALL_EXAMPLES))
        fuzzed = mutate(base, draw) if source == "mutated" else Fuzzed(base, how="example")
        fuzzed.how = f"{source} {fuzzed.how}"
    else:
        fuzzed = Fuzzed(" ".join(draw(st.lists(st.sampled_from(SALAD), max_size=12))), how="salad")
        if draw(
            st.booleans()
        ):  # behind the leading keywords of an owned family: the grammar parses it
            fuzzed.text = " ".join(draw(st.sampled_from(OWNED_PREFIXES))) + " " + fuzzed.text
    fuzzed.text = fuzzed.text.replace(WAREHOUSE_PLACEHOLDER, warehouse)
    return fuzzed


def hazardous(sql: str) -> bool:
    """Statements the fuzz must not send as root: they end this very test's ability to go on
    (KILL of a live connection, a password or a new account for root). Decided by the real
    parser."""
    try:
        statement = grammar.parse(sql)
    # a syntax error is harmless; the in-process test catches crashes
    except Exception:  # noqa: BLE001
        return False
    if isinstance(statement, ast.Kill):
        return statement.connection_id < NO_KILL
    if isinstance(statement, ast.SetPassword):
        return statement.user is None or statement.user.name.lower() == "root"
    if isinstance(statement, (ast.AlterUser, ast.CreateUser, ast.DropUser)):
        return statement.user.name.lower() == "root"
    if isinstance(statement, ast.Prepare) and statement.text:
        return hazardous(statement.text)
    return False


# =================================================================================================
# The wire
# =================================================================================================
@dataclass
class Reply:
    kind: str  # "ok" | "rows" | "err"
    code: int = 0
    message: str = ""


def send_query(client: raw.RawClient, payload: bytes) -> Reply:
    """COM_QUERY with raw bytes; reads the whole answer (OK, ERR, or a text result set)."""
    client.command(raw.COM_QUERY, payload)
    first = client.read_packet()
    if first[:1] == b"\xff":
        err = raw.parse_err(first)
        return Reply("err", err.code, err.message)
    if first[:1] == b"\x00":
        return Reply("ok")
    count, _ = raw.read_lenenc_int(first, 0)
    for _ in range(count or 0):
        client.read_packet()
    assert raw.is_eof(client.read_packet()), "expected the EOF after column definitions"
    while True:
        data = client.read_packet()
        if data[:1] == b"\xff":
            err = raw.parse_err(data)
            return Reply("err", err.code, f"(inside a result set) {err.message}")
        if raw.is_eof(data):
            return Reply("rows")


def bad_reply(reply: Reply) -> str | None:
    if reply.kind != "err":
        return None
    if reply.message.startswith(INTERNAL) or INTERNAL in reply.message[:40]:
        return f"internal error {reply.code}: {reply.message[:500]}"
    if reply.code not in KNOWN_CODES:
        return f"unknown error code {reply.code}: {reply.message[:500]}"
    return None


class WireFuzzer:
    """One long-lived raw connection per batch; reconnects only after a failure was recorded."""

    def __init__(self, server: ServerProcess):
        self.server = server
        self.client: raw.RawClient | None = None
        self.sent_in_batch = 0
        self.failures: list[str] = []
        self.replies: Counter[str] = Counter()
        self.shapes: Counter[str] = Counter()  # 1105 messages, quoted text and numbers blanked
        self.skipped = 0
        self.well_formed_checks = 0

    def connection(self) -> raw.RawClient:
        if self.client is None or self.sent_in_batch >= BATCH:
            if self.client is not None:
                self.client.close()
                check_well_formed(self.server)
                self.well_formed_checks += 1
            self.client = raw.connect(self.server.host, self.server.port)
            self.client.sock.settimeout(STATEMENT_TIMEOUT)
            self.sent_in_batch = 0
        return self.client

    def send(self, fuzzed: Fuzzed) -> None:
        if hazardous(fuzzed.text):
            self.skipped += 1
            return
        client = self.connection()
        self.sent_in_batch += 1
        try:
            reply = send_query(client, fuzzed.payload)
        except (raw.Closed, OSError, AssertionError) as exc:
            self.failures.append(
                f"{fuzzed!r} -> connection lost or hung: {type(exc).__name__}: {exc}"
            )
            client.close()
            self.client = None
            assert self.server.alive(), (
                f"the server died on {fuzzed!r}:\n{self.server.log_text()[-3000:]}"
            )
            return
        self.replies[reply.kind if reply.kind != "err" else f"err {reply.code}"] += 1
        if reply.code == 1105:
            self.shapes[re.sub(r"'[^']*'|\"[^\"]*\"|\d+", "_", reply.message)[:70]] += 1
        problem = bad_reply(reply)
        if problem:
            self.failures.append(f"{fuzzed!r} -> {problem}")

    def close(self) -> None:
        if self.client is not None:
            self.client.close()


def check_well_formed(server: ServerProcess) -> float:
    """A well-formed client is served within the bound; returns how long SELECT 1 took."""
    assert server.alive(), server.log_text()[-3000:]
    started = time.monotonic()
    conn = pymysql.connect(
        host=server.host,
        port=server.port,
        user="root",
        password="",
        autocommit=True,
        connect_timeout=WELL_FORMED_BOUND_SECONDS,
        read_timeout=WELL_FORMED_BOUND_SECONDS,
        write_timeout=WELL_FORMED_BOUND_SECONDS,
    )
    try:
        with conn.cursor() as cur:
            cur.execute("SELECT 1")
            assert cur.fetchall() == ((1,),)
    finally:
        conn.close()
    elapsed = time.monotonic() - started
    assert elapsed < WELL_FORMED_BOUND_SECONDS, f"SELECT 1 took {elapsed:.1f} s"
    return elapsed


def distinct(failures: list[str]) -> list[str]:
    """One failure per kind (the answer with quoted text and numbers blanked out)."""
    kinds: dict[str, str] = {}
    for failure in failures:
        answer = failure.rsplit(" -> ", 1)[-1] if " -> " in failure else failure.split("] ", 1)[-1]
        kinds.setdefault(re.sub(r"'[^']*'|\d+", "_", answer)[:120], failure)
    return list(kinds.values())


def log_problems(server: ServerProcess) -> list[str]:
    """Lines of the server log that mean an exception escaped a handler."""
    marks = ("statement failed", "ended with an error", "Traceback", "COM_CHANGE_USER failed")
    return [line for line in server.log_text().splitlines() if any(m in line for m in marks)]


# =================================================================================================
# Fixtures
# =================================================================================================
@dataclass
class Rig:
    server: ServerProcess
    warehouse: str
    tmp: Path


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[Rig]:
    wh = local_warehouse(tmp_path / "wh")
    wh.write("db", "t", vector_table(n=300))
    wh.write(
        "db",
        "s",
        pa.table({"id": pa.array(range(20), pa.int64()), "v": [f"v{i}" for i in range(20)]}),
    )
    server = ServerProcess(
        data_dir=tmp_path / "data",
        env={"DRYDOCK_HANDSHAKE_TIMEOUT_SECONDS": str(HANDSHAKE_TIMEOUT)},
    )
    server.start()
    try:
        # admissions must not start builds; quotas high enough that admission paths stay reachable
        set_config(
            server,
            lance_index_job_dispatcher_paused=True,
            lance_index_job_max_unresolved_per_table=1000,
            lance_index_job_max_unresolved_per_catalog=10000,
            lance_index_job_max_unresolved_global=100000,
        )
        server.query(f"CREATE CATALOG lc PROPERTIES ('type' = 'lance', 'warehouse' = '{wh.root}')")
        server.query("CREATE DATABASE demo")
        server.query("CREATE TABLE demo.t (id INT, name VARCHAR(20))")
        server.query("INSERT INTO demo.t VALUES (1, 'a'), (2, 'b')")
        yield Rig(server, wh.root, tmp_path)
    finally:
        server.stop()


# =================================================================================================
# Grammar fuzz
# =================================================================================================
def test_examples_cover_every_statement_family() -> None:
    """Every alternative of the grammar's ``statement`` rule has valid examples, and they parse."""
    assert sorted(EXAMPLES) == STATEMENT_RULES
    for family, examples in EXAMPLES.items():
        for sql in examples:
            statement = grammar.parse(sql.replace(WAREHOUSE_PLACEHOLDER, "/wh"))
            assert statement is not None, (family, sql)
    for sql in PASSTHROUGH:
        assert grammar.parse(sql) is None, sql


@st.composite
def parser_inputs(draw: Callable[[Any], Any]) -> str:
    kind = draw(st.sampled_from(["fuzzed", "fuzzed", "fuzzed", "text", "prefixed_text"]))
    if kind == "fuzzed":
        fuzzed = draw(fuzzed_statements())
        return fuzzed.payload.decode("utf-8", "replace")
    text = draw(st.text(alphabet=st.characters(codec="utf-8"), max_size=80))
    if kind == "prefixed_text":
        return " ".join(draw(st.sampled_from(OWNED_PREFIXES))) + " " + text
    return text


@fuzz_settings(PARSER_EXAMPLES)
@given(sql=parser_inputs())
def parse_never_crashes(sql: str) -> None:
    try:
        statement = grammar.parse(sql)
    except DrydockError as exc:
        assert exc.code in KNOWN_CODES, (exc.code, exc.message)
        return
    assert statement is None or isinstance(statement, ast.Statement), statement


def test_parser_in_process_answers_a_statement_none_or_a_typed_error() -> None:
    grammar.clear_cache()
    parse_never_crashes()


@pytest.mark.timeout(900)
def test_grammar_fuzz_over_the_wire(rig: Rig, capsys: pytest.CaptureFixture[str]) -> None:
    fuzzer = WireFuzzer(rig.server)
    sent: list[Fuzzed] = []

    @fuzz_settings(STATEMENTS)
    @given(fuzzed=fuzzed_statements(warehouse=rig.warehouse))
    def run(fuzzed: Fuzzed) -> None:
        sent.append(fuzzed)
        fuzzer.send(fuzzed)

    started = time.monotonic()
    try:
        run()
    finally:
        fuzzer.close()
    elapsed = time.monotonic() - started
    check_well_formed(rig.server)
    hows = Counter(f.how.split(" ")[0] for f in sent)
    with capsys.disabled():
        print(
            f"\ngrammar fuzz: {len(sent)} statements ({fuzzer.skipped} hazardous skipped) in "
            f"{elapsed:.1f} s, "
            f"{dict(hows)}; replies {dict(fuzzer.replies.most_common())}; most frequent 1105 texts "
            f"{fuzzer.shapes.most_common(12)}"
        )
    assert len(sent) >= STATEMENTS * 0.9, f"hypothesis generated only {len(sent)} statements"
    assert not fuzzer.failures, (
        f"{len(fuzzer.failures)} failures; one example of each kind:\n"
        + "\n".join(distinct(fuzzer.failures))
    )
    assert rig.server.alive()
    assert not log_problems(rig.server), log_problems(rig.server)[:20]


# =================================================================================================
# Protocol fuzz
# =================================================================================================
def handshake_payload(
    client: raw.RawClient, user: str = "root", caps: int = raw.BASE_CAPS
) -> bytes:
    return raw.handshake_response(user, raw.native_password("", client.handshake.nonce), caps)


def settle(sock: socket.socket, seconds: float) -> tuple[bytes, bool]:
    """What the server sends within ``seconds``, and whether it closed the socket."""
    received = b""
    deadline = time.monotonic() + seconds
    try:
        while time.monotonic() < deadline:
            sock.settimeout(max(0.005, deadline - time.monotonic()))
            try:
                chunk = sock.recv(65536)
            except TimeoutError:
                break
            if not chunk:
                return received, True
            received += chunk
    except OSError:
        return received, True
    return received, False


def err_packets(data: bytes) -> list[raw.Err]:
    errors, pos = [], 0
    while pos + 4 <= len(data):
        length = int.from_bytes(data[pos : pos + 3], "little")
        payload = data[pos + 4 : pos + 4 + length]
        if payload[:1] == b"\xff" and len(payload) >= 3:
            errors.append(raw.parse_err(payload))
        pos += 4 + length
    return errors


@dataclass
class ProtocolTally:
    cases: Counter[str] = field(default_factory=Counter)
    closed: Counter[str] = field(default_factory=Counter)
    failures: list[str] = field(default_factory=list)
    stalled: list[socket.socket] = field(default_factory=list)
    well_formed: list[float] = field(default_factory=list)

    def check_errors(self, case: str, data: bytes) -> None:
        for err in err_packets(data):
            if err.message.startswith(INTERNAL) or err.code not in KNOWN_CODES:
                self.failures.append(f"{case} {err.code} {err.message[:300]}")


PRE_LOGIN_CASES = [
    "random_bytes",
    "random_payload",
    "bad_sequence",
    "oversized_length",
    "truncated_response",
    "short_frame",
    "mutated_response",
    "partial_header",
    "ssl_request",
    "zero_length",
    "bad_attrs",
    "two_responses",
    "stall_half_packet",
]


def pre_login_case(server: ServerProcess, rng: random.Random, tally: ProtocolTally) -> None:
    case = rng.choice(PRE_LOGIN_CASES)
    tally.cases[case] += 1
    client = raw.RawClient(server.host, server.port)
    good = handshake_payload(client)
    data: bytes
    if case == "random_bytes":
        data = rng.randbytes(rng.randint(1, 300))
    elif case == "random_payload":
        data = raw.frame(rng.randbytes(rng.randint(0, 300)), 1)
    elif case == "bad_sequence":
        data = raw.frame(good, rng.choice([0, 2, 3, 7, 255]))
    elif case == "oversized_length":
        length = rng.choice([0x020001, 0x100000, 0xFFFFFF])
        data = length.to_bytes(3, "little") + b"\x01" + rng.randbytes(rng.randint(0, 64))
    elif case == "truncated_response":
        data = raw.frame(good[: rng.randint(0, len(good) - 1)], 1)
    elif case == "short_frame":  # announces more than it sends, then the client goes away
        data = raw.frame(good, 1)[: rng.randint(5, len(good) + 3)]
    elif case == "mutated_response":
        body = bytearray(good)
        for _ in range(rng.randint(1, 6)):
            body[rng.randrange(len(body))] = rng.randrange(256)
        data = raw.frame(bytes(body), 1)
    elif case == "partial_header":
        data = raw.frame(good, 1)[: rng.randint(1, 3)]
    elif case == "ssl_request":
        data = raw.frame(
            struct.pack("<IIB", raw.BASE_CAPS | raw.CLIENT_SSL, 1 << 24, 45) + b"\x00" * 23, 1
        )
    elif case == "zero_length":
        data = raw.frame(b"", 1)
    elif case == "bad_attrs":
        caps = raw.BASE_CAPS | raw.CLIENT_CONNECT_ATTRS
        attrs = (
            raw.lenenc_int(rng.choice([5, 1000, 0xFFFF]))
            + b"\x03key"
            + rng.randbytes(rng.randint(0, 20))
        )
        data = raw.frame(raw.handshake_response("root", b"", caps) + attrs, 1)
    elif case == "two_responses":
        data = raw.frame(good, 1) + raw.frame(good, 2)
    # a valid header, half a payload, and the socket kept open: the handshake timeout drops it
    else:
        data = raw.frame(good, 1)[: 4 + len(good) // 2]
    client.send_quietly(data)
    received, closed = settle(client.sock, 0.05)
    tally.check_errors(f"pre-login {case} [{data[:64].hex()}]", received)
    if closed:
        tally.closed[case] += 1
    if case == "stall_half_packet" and not closed:
        tally.stalled.append(client.sock)
        return
    client.close()


POST_LOGIN_CASES = [
    "random_command",
    "random_command",
    "stmt_execute",
    "stmt_execute",
    "long_data",
    "known_command_garbage",
    "bad_sequence",
    "short_frame",
    "fragmented_query",
    "zero_length",
    "change_user_garbage",
    "fetch_garbage",
]
NO_REPLY_COMMANDS = {0x01, 0x18, 0x19}  # COM_QUIT, COM_STMT_SEND_LONG_DATA, COM_STMT_CLOSE


def sync(client: raw.RawClient, marker: str, tally: ProtocolTally, case: str) -> bool:
    """After a fuzzed command: a well-formed query on the same connection is answered. Packets the
    fuzzed command produced come first; every ERR among them is checked."""
    client.command(raw.COM_QUERY, f"SELECT '{marker}'".encode())
    target = raw.lenenc_str(marker.encode())
    deadline = time.monotonic() + WELL_FORMED_BOUND_SECONDS
    while time.monotonic() < deadline:
        try:
            packet = client.read_packet()
        except (raw.Closed, OSError) as exc:
            tally.failures.append(f"{case}: connection lost after a well-framed command: {exc}")
            return False
        if packet[:1] == b"\xff":
            tally.check_errors(case, raw.frame(packet))
        if packet == target:
            assert raw.is_eof(client.read_packet())
            return True
    tally.failures.append(
        f"{case}: no answer to a well-formed query within {WELL_FORMED_BOUND_SECONDS} s"
    )
    return False


def post_login_case(
    server: ServerProcess, rng: random.Random, tally: ProtocolTally, n: int
) -> None:
    case = rng.choice(POST_LOGIN_CASES)
    tally.cases[case] += 1
    client = raw.connect(server.host, server.port)
    client.sock.settimeout(WELL_FORMED_BOUND_SECONDS)
    try:
        client.command(raw.COM_STMT_PREPARE, b"SELECT ?, ?")  # statement 0 of this connection
        for _ in range(3 + 1):  # PREPARE_OK, two parameter definitions, EOF
            client.read_packet()
        keeps_open = True
        sent = b""

        def command(code: int, payload: bytes) -> None:
            nonlocal sent
            sent = bytes([code]) + payload
            client.command(code, payload)

        if case == "random_command":
            code = rng.choice([rng.randrange(256), *range(0x20)])
            keeps_open = code not in (0x01, 0x11)
            command(code, rng.randbytes(rng.randint(0, 64)))
        elif case == "stmt_execute":  # statement 0 is the connection's prepared SELECT ?, ?
            body = struct.pack(
                "<IBI", rng.choice([0, 0, 1, 0xFFFFFFFF]), rng.choice([0, 1, 2, 8, 255]), 1
            )
            command(0x17, body + rng.randbytes(rng.randint(0, 48)))
        elif case == "long_data":
            command(
                0x18,
                struct.pack("<IH", rng.choice([0, 7]), rng.choice([0, 1, 2, 500]))
                + rng.randbytes(rng.randint(0, 32)),
            )
        elif case == "known_command_garbage":
            command(
                rng.choice([0x02, 0x04, 0x0D, 0x0E, 0x16, 0x19, 0x1A, 0x1C, 0x1F]),
                rng.randbytes(rng.randint(0, 64)),
            )
        elif case == "fetch_garbage":
            command(
                0x1C,
                rng.choice([b"", b"\x00", struct.pack("<II", 0, 5)])
                + rng.randbytes(rng.randint(0, 12)),
            )
        elif case == "change_user_garbage":
            keeps_open = False
            command(raw.COM_CHANGE_USER, rng.randbytes(rng.randint(0, 80)))
        elif case == "fragmented_query":  # well-formed, written a few bytes at a time
            packet = raw.frame(b"\x03SELECT 'fragmented'", 0)
            for i in range(0, len(packet), 3):
                client.sock.sendall(packet[i : i + 3])
                time.sleep(0.001)
            client.seq = 1
        elif case == "zero_length":  # no command byte at all: the server may close
            keeps_open = False
            client.sock.sendall(raw.frame(b"", 0))
        elif case == "bad_sequence":
            keeps_open = False
            client.sock.sendall(raw.frame(b"\x03SELECT 1", rng.choice([1, 2, 9, 255])))
        else:  # short_frame: announces a payload it never completes, then goes away
            keeps_open = False
            client.sock.sendall(raw.frame(b"\x03SELECT " + b"1" * 200, 0)[: rng.randint(4, 100)])
        label = f"post-login {case} [{sent[:64].hex()}]"
        if keeps_open:
            sync(client, f"sync-{n}", tally, label)
        else:
            received, closed = settle(client.sock, 0.05)
            tally.check_errors(label, received)
            tally.closed[case] += int(closed)
    finally:
        client.close()


@pytest.mark.timeout(900)
def test_protocol_fuzz_before_and_after_login(rig: Rig, capsys: pytest.CaptureFixture[str]) -> None:
    server = rig.server
    rng = random.Random(int(SEED) if SEED is not None else 20240611)
    tally = ProtocolTally()
    started = time.monotonic()
    for phase, run_case in (
        ("pre-login", lambda n: pre_login_case(server, rng, tally)),
        ("post-login", lambda n: post_login_case(server, rng, tally, n)),
    ):
        for n in range(PACKETS):
            run_case(n)
            if (n + 1) % PACKET_BATCH == 0 or n + 1 == PACKETS:
                tally.well_formed.append(
                    check_well_formed(server)
                )  # stalled sockets are still open
        # a client that never finishes logging in is dropped by the handshake timeout
        deadline = time.monotonic() + HANDSHAKE_TIMEOUT + 10
        for sock in tally.stalled:
            _, closed = settle(sock, max(0.01, deadline - time.monotonic()))
            if not closed:
                tally.failures.append(f"{phase}: a stalled pre-login socket was not dropped")
            sock.close()
        tally.stalled.clear()
    # one oversized command after login: four full 16 MiB continuation packets (64 MiB - 4 bytes),
    # then the header of a fifth that crosses max_allowed_packet; its payload is never sent, so
    # the server closes with nothing unread and its 1153 is not lost to a reset
    client = raw.connect(server.host, server.port)
    client.sock.settimeout(30)
    chunk = b"\x03" + b" " * (0xFFFFFF - 1)
    for seq in range(4):
        client.sock.sendall(raw.frame(chunk if seq == 0 else b" " * 0xFFFFFF, seq))
    client.sock.sendall((16).to_bytes(3, "little") + bytes([4]))
    received, closed = settle(client.sock, 10)
    client.close()
    assert closed, "an oversized command did not end the connection"
    assert any(e.code == 1153 for e in err_packets(received)), received[:200]
    tally.well_formed.append(check_well_formed(server))
    elapsed = time.monotonic() - started
    with capsys.disabled():
        print(
            f"\nprotocol fuzz: {PACKETS} malformed packets before and {PACKETS} after login in "
            f"{elapsed:.1f} s; "
            f"cases {dict(tally.cases)}; closed by the server {dict(tally.closed)}; well-formed "
            f"SELECT 1 "
            f"{len(tally.well_formed)} times, slowest {max(tally.well_formed) * 1000:.0f} ms"
        )
    assert not tally.failures, (
        f"{len(tally.failures)} failures; one example of each kind:\n"
        + "\n".join(distinct(tally.failures))
    )
    assert server.alive()
    assert not log_problems(server), log_problems(server)[:20]


# =================================================================================================
# Property fuzz
# =================================================================================================
# (key, plausible values): the vocabulary of valid maps, perturbed by the fuzz
INDEX_VOCABULARY = {
    "index_type": [
        "IVF_FLAT",
        "ivf_flat",
        "IVF_PQ",
        "IVF_SQ",
        "IVF_HNSW_SQ",
        "IVF_HNSW_PQ",
        "HNSW",
        "FLAT",
        "",
    ],
    "metric": ["l2", "COSINE", "dot", "hamming", "euclidean", ""],
    "num_partitions": [
        "1",
        "2",
        "4",
        "0",
        "-1",
        "300",
        "301",
        "4097",
        "1.5",
        "99999999999999999999",
    ],
    "num_sub_vectors": ["2", "4", "8", "3", "0", "16", "256", "257"],
    "num_bits": ["4", "8", "7", "0"],
    "sample_rate": ["16", "1", "0", "-5", "256"],
    "max_iters": ["5", "1", "0", "100000"],
    "m": ["8", "0", "65536"],
    "ef_construction": ["50", "0", "-1"],
    "replace": ["true", "false", "maybe"],
}
INDEX_BASE = [
    ("index_type", "IVF_FLAT"),
    ("num_partitions", "2"),
    ("sample_rate", "16"),
    ("max_iters", "5"),
]
CATALOG_VOCABULARY = {
    "lance.catalog.type": ["filesystem", "FILESYSTEM", "rest", "dir", ""],
    "meta.cache.ttl-second": ["0", "60", "-1", "1.5", "x", "99999999999999999999"],
    "s3.endpoint": ["http://127.0.0.1:1", "127.0.0.1:9000", "ftp://x", "not a url", ""],
    "s3.access_key": ["AKIA", ""],
    "s3.secret_key": ["secret", ""],
    "s3.session_token": ["tok"],
    "s3.region": ["us-east-1", ""],
    "use_path_style": ["true", "false", "yes", ""],
    "paimon.catalog.type": ["filesystem", "rest", "hive"],
    "uri": ["http://127.0.0.1:1"],
}
ODD_KEYS = [
    "",
    " ",
    "k" * 5000,
    "\x00",
    "ключ",
    "t\u0301ype",
    "TYPE",
    "Type",
    " type ",
    "WAREHOUSE",
    "index_type ",
]
ODD_VALUES = [
    "",
    " ",
    "\x00",
    "ünï",
    "\U0001f600",
    "'",
    "\\",
    '"',
    "x" * 10000,
    "1e999",
    "NaN",
    "-0",
]


def quote(value: str) -> str:
    return "'" + value.replace("\\", "\\\\").replace("'", "''") + "'"


def case_variant(draw: Callable[[Any], Any], key: str) -> str:
    style = draw(st.sampled_from(["same", "same", "same", "upper", "title", "spaced"]))
    return {"same": key, "upper": key.upper(), "title": key.title(), "spaced": f" {key} "}[style]


@st.composite
def property_maps(
    draw: Callable[[Any], Any], vocabulary: dict[str, list[str]], base: list[tuple[str, str]]
) -> list[tuple[str, str]]:
    """A valid base map perturbed (most often), or a map of random pairs: known keys (in letter
    case variants) with plausible or odd values, odd keys, random unicode, and duplicated keys."""
    text = st.text(alphabet=st.characters(codec="utf-8"), max_size=24)
    known = st.sampled_from(sorted(vocabulary)).flatmap(
        lambda k: st.tuples(
            st.just(k), st.sampled_from(vocabulary[k]) | st.sampled_from(ODD_VALUES) | text
        )
    )
    odd = st.tuples(st.sampled_from(ODD_KEYS) | text, st.sampled_from(ODD_VALUES) | text)
    shape = draw(st.sampled_from(["base", "perturbed", "perturbed", "perturbed", "random"]))
    if shape == "random":
        pairs = draw(st.lists(known | odd, min_size=1, max_size=10))
    else:
        pairs = list(base)
        if shape == "perturbed":
            for _ in range(draw(st.integers(1, 3))):
                action = draw(st.sampled_from(["add", "add", "replace", "drop", "odd"]))
                if action == "add":
                    pairs.append(draw(known))
                elif action == "replace" and pairs:
                    i = draw(st.integers(0, len(pairs) - 1))
                    pairs[i] = (
                        pairs[i][0],
                        draw(st.sampled_from(vocabulary.get(pairs[i][0], ODD_VALUES)) | text),
                    )
                elif action == "drop" and pairs:
                    del pairs[draw(st.integers(0, len(pairs) - 1))]
                else:
                    pairs.append(draw(odd))
    if pairs and draw(st.integers(0, 3)) == 0:  # a key in another letter case
        i = draw(st.integers(0, len(pairs) - 1))
        pairs[i] = (case_variant(draw, pairs[i][0]), pairs[i][1])
    if pairs and draw(st.integers(0, 3)) == 0:  # a duplicated key, same or another value
        k, v = draw(st.sampled_from(pairs))
        pairs.insert(
            draw(st.integers(0, len(pairs))),
            (k, draw(st.sampled_from([v, *vocabulary.get(k, ["x"])]))),
        )
    return pairs or [("index_type", "IVF_FLAT")]


def run_sql(
    conn: pymysql.connections.Connection, sql: str
) -> tuple[list[tuple[Any, ...]] | None, tuple[int, str] | None]:
    try:
        with conn.cursor() as cur:
            cur.execute(sql)
            return (list(cur.fetchall()) if cur.description else []), None
    except pymysql.err.MySQLError as exc:
        code = exc.args[0] if exc.args and isinstance(exc.args[0], int) else -1
        if code == -1 or 2000 <= code < 3000:
            raise AssertionError(f"connection lost on {sql[:300]!r}: {exc!r}") from None
        return None, (code, str(exc.args[1]))


def typed(error: tuple[int, str] | None, sql: str, allowed: set[int]) -> None:
    if error is None:
        return
    code, message = error
    assert not message.startswith(INTERNAL), f"{sql[:400]!r} -> {code} {message[:500]}"
    assert code in allowed, f"{sql[:400]!r} -> unexpected {code} {message[:500]}"


@pytest.mark.timeout(900)
def test_property_fuzz_create_index_and_create_catalog(
    rig: Rig, capsys: pytest.CaptureFixture[str]
) -> None:
    server = rig.server
    conn = server.connect()
    names = iter(range(10**9))
    tally: Counter[str] = Counter()
    local_paths = [
        rig.warehouse,
        str(rig.tmp / "missing"),
        f"file://{rig.warehouse}",
        "s3://fuzz-bucket/wh",
        "relative/wh",
        "",
        "/",
    ]

    @fuzz_settings(PROPERTIES)
    @given(
        pairs=property_maps(INDEX_VOCABULARY, INDEX_BASE),
        using=st.sampled_from(["ANN", "ANN", "ann", "BTREE"]),
    )
    def create_index(pairs: list[tuple[str, str]], using: str) -> None:
        name = f"fzp{next(names)}"
        column = "emb" if using.upper() == "ANN" else "id"
        props = ", ".join(f"{quote(k)} = {quote(v)}" for k, v in pairs)
        sql = f"CREATE INDEX {name} ON lc.db.t ({column}) USING {using} PROPERTIES ({props})"
        rows, error = run_sql(conn, sql)
        typed(error, sql, {5100, 5101, 5102, 1105, 1064})
        tally[f"index {'ok' if error is None else error[0]}"] += 1
        if rows:
            [(job_id,)] = rows
            detail, error = run_sql(conn, f"SHOW LANCE INDEX JOB {job_id}")
            assert error is None and detail and detail[0][6] == "PENDING", (sql, detail, error)
            _, error = run_sql(conn, f"CANCEL LANCE INDEX JOB {job_id}")
            assert error is None, (sql, error)

    catalog_vocabulary = {
        **CATALOG_VOCABULARY,
        "type": ["lance", "LANCE", "paimon", "hive", ""],
        "warehouse": local_paths,
    }

    @fuzz_settings(PROPERTIES)
    @given(warehouse=st.sampled_from(local_paths), data=st.data())
    def create_catalog(warehouse: str, data: st.DataObject) -> None:
        name = f"fzc{next(names)}"
        pairs = data.draw(
            property_maps(catalog_vocabulary, [("type", "lance"), ("warehouse", warehouse)])
        )
        props = ", ".join(f"{quote(k)} = {quote(v)}" for k, v in pairs)
        sql = f"CREATE CATALOG {name} PROPERTIES ({props})"
        _, error = run_sql(conn, sql)
        typed(error, sql, {1105, 1064, 1227})  # 1227: a warehouse over drydock's data dir ('/')
        tally[f"catalog {'ok' if error is None else error[0]}"] += 1
        if error is None:
            _, error = run_sql(conn, f"SHOW CREATE CATALOG {name}")
            typed(error, f"SHOW CREATE CATALOG {name}", set())
            alter = ", ".join(f"{quote(k)} = {quote(v)}" for k, v in pairs[-2:])
            _, error = run_sql(conn, f"ALTER CATALOG {name} SET PROPERTIES ({alter})")
            typed(error, f"ALTER CATALOG {name} SET PROPERTIES ({alter})", {1105, 1227})
            if warehouse == rig.warehouse and dict(pairs).get("warehouse") == rig.warehouse:
                _, error = run_sql(conn, f"SHOW DATABASES FROM {name}")  # local storage only
                typed(error, f"SHOW DATABASES FROM {name}", {1105, 1049})
            _, error = run_sql(conn, f"DROP CATALOG {name}")
            assert error is None, error

    started = time.monotonic()
    try:
        create_index()
        create_catalog()
        listed, _ = run_sql(conn, "SHOW CATALOGS")
        assert listed is not None and not [r for r in listed if str(r[1]).startswith("fzc")], listed
        jobs, _ = run_sql(conn, "SHOW LANCE INDEX JOBS WHERE State = 'PENDING'")
        assert jobs == [], jobs  # every admitted job was cancelled
    finally:
        conn.close()
    with capsys.disabled():
        print(
            f"\nproperty fuzz: {PROPERTIES} maps each for CREATE INDEX and CREATE CATALOG in "
            f"{time.monotonic() - started:.1f} s: {dict(sorted(tally.items()))}"
        )
    assert server.alive()
    assert not log_problems(server), log_problems(server)[:20]


# =================================================================================================
# Regressions: the minimal inputs the fuzz found
# =================================================================================================
def test_invalid_utf8_in_a_command_is_a_typed_error_not_an_internal_one(
    shared_server: ServerProcess,
) -> None:
    """COM_QUERY / COM_STMT_PREPARE / COM_INIT_DB text that is not valid in the client character
    set reached the last line of defence as 'internal error: UnicodeDecodeError'."""
    server = shared_server
    with raw.connect(server.host, server.port) as client:
        for command, payload in (
            (raw.COM_QUERY, b"SELECT \xff"),
            (raw.COM_STMT_PREPARE, b"SELECT \xfe 1"),
            (0x02, b"\xff\xfe"),
        ):
            client.command(command, payload)
            err = raw.parse_err(client.read_packet())
            assert (err.code, err.sqlstate) == (1835, "HY000"), err
            assert (
                err.message
                == "Malformed communication packet: string is not valid in the client character set"
            )
        assert isinstance(client.query("SELECT 1"), raw.ResultSet)  # the connection goes on
    assert not log_problems(server)


def answers(client: raw.RawClient, sql: str) -> tuple[int, str] | str:
    reply = client.query(sql)
    return (reply.code, reply.message) if isinstance(reply, raw.Err) else type(reply).__name__


# (statement, what it answers); each was 'internal error: ...' before
STATEMENT_REGRESSIONS = [
    ("SET NAMES", (1115, "Unknown character set: ''")),
    ("SET NAMES foo", (1115, "Unknown character set: 'foo'")),
    ("SET NAMES UTF8MB4", "Ok"),  # character set names are case-insensitive
    ("SET NAMES utf8mb4 COLLATE nope", (1273, "Unknown collation: 'nope'")),
    (
        "SET NAMES utf8mb4 COLLATE latin1_swedish_ci",
        (1253, "COLLATION 'latin1_swedish_ci' is not valid for CHARACTER SET 'utf8mb4'"),
    ),
    (
        "SET NAMES binary",
        (1231, "Variable 'character_set_client' can't be set to the value of 'binary'"),
    ),
    (
        "SET CHARACTER SET foo",
        (1115, "Unknown character set: 'foo'"),
    ),  # was stored: every later statement failed
    ("SET character_set_client = 'foo'", (1115, "Unknown character set: 'foo'")),  # likewise
    (
        "SET character_set_results = 'ucs2'",
        (1231, "Variable 'character_set_results' can't be set to the value of 'ucs2'"),
    ),
    ("SET collation_connection = 'nope'", (1273, "Unknown collation: 'nope'")),
    ("SET 'ANSI' = sql_mode", (1193, "Unknown system variable 'ANSI'")),
    ("SHOW CREATE", (1064, "line 1:0 syntax error: the statement is incomplete or not valid SQL")),
    ("SHOW FULL", (1064, "line 1:0 syntax error: the statement is incomplete or not valid SQL")),
    ("SELECT 1 /* x", (1064, "line 1:0 Error tokenizing 'SELECT 1 /* '")),
    (
        "SHOW LANCE INDEX JOB 99999999999999999999999",
        (5103, "Lance index job not found: 99999999999999999999999"),
    ),
    (
        "CANCEL LANCE INDEX JOB 99999999999999999999999",
        (5103, "Lance index job not found: 99999999999999999999999"),
    ),
    (
        "RESOLVE LANCE INDEX JOB 99999999999999999999999 AS FORCE_RELEASE COMMENT 'x'",
        (5103, "Lance index job not found: 99999999999999999999999"),
    ),
    ("SHOW AUDIT LIMIT 99999999999999999999999", "ResultSet"),
]


@pytest.mark.parametrize(
    ("sql", "expected"), STATEMENT_REGRESSIONS, ids=[s for s, _ in STATEMENT_REGRESSIONS]
)
def test_statements_the_fuzz_broke(shared_server: ServerProcess, sql: str, expected: Any) -> None:
    with raw.connect(shared_server.host, shared_server.port) as client:
        assert answers(client, sql) == expected
        # the session is still usable, in its character set
        assert (
            answers(client, "SELECT @@character_set_client, @@character_set_results") == "ResultSet"
        )
        assert client.query("SELECT 'é'").rows == [["é".encode()]]  # type: ignore[union-attr]
    assert not log_problems(shared_server)


def test_prepared_statement_commands_with_short_or_odd_packets(
    shared_server: ServerProcess,
) -> None:
    """COM_STMT_FETCH / COM_STMT_CLOSE / COM_STMT_SEND_LONG_DATA with a short payload failed with
    'internal error: error: unpack requires a buffer of 4 bytes'; FETCH without a cursor with an
    AssertionError; and FETCH dropped one row at every batch boundary."""
    with raw.connect(shared_server.host, shared_server.port) as client:
        client.command(
            raw.COM_STMT_PREPARE, b"SELECT x FROM (VALUES (1), (2), (3), (4), (5)) t(x) ORDER BY x"
        )
        ok = client.read_packet()
        stmt_id, columns, params = struct.unpack_from("<IHH", ok, 1)
        for _ in range(columns + params + (columns > 0) + (params > 0)):
            client.read_packet()
        client.command(0x1C, struct.pack("<II", stmt_id, 2))  # FETCH before any cursor: 1421
        err = raw.parse_err(client.read_packet())
        assert (err.code, err.message) == (1421, f"The statement ({stmt_id}) has no open cursor.")
        client.command(0x17, struct.pack("<IBI", stmt_id, 1, 1))  # EXECUTE with a read-only cursor
        assert client.read_packet() == b"\x01"
        client.read_packet()  # the column definition
        assert raw.is_eof(client.read_packet())
        fetched = []
        for _ in range(3):
            client.command(0x1C, struct.pack("<II", stmt_id, 2))
            while not raw.is_eof(packet := client.read_packet()):
                fetched.append(packet)
        assert [int.from_bytes(p[2:], "little") for p in fetched] == [1, 2, 3, 4, 5]  # no row lost
        for command, payload in ((0x1C, b"\x01"), (0x1C, b"")):
            client.command(command, payload)
            err = raw.parse_err(client.read_packet())
            assert err.code == 1835 and err.message.startswith("Malformed communication packet"), (
                err
            )
        for command, payload in (
            (0x19, b"\x01"),
            (0x18, b"\x01\x00"),
            (0x18, struct.pack("<IH", 999, 0)),
        ):
            client.command(command, payload)  # no response, not even an error (as in MySQL)
        assert client.query("SELECT 'in sync'").rows == [[b"in sync"]]  # type: ignore[union-attr]
    assert not log_problems(shared_server)


def test_listing_tags_retries_a_ref_deleted_under_it() -> None:
    """pylance's tags.list() reads each ref file after listing the directory: a tag deleted by a
    concurrent CALL delete_tag in between failed create_tag / delete_tag with 'Not found' (load
    test)."""
    from drydock.engine.lakehouse.procedures.lance_common import list_refs

    class Refs:
        def __init__(self, failures: int):
            self.failures = failures

        def list(self) -> dict[str, dict[str, Any]]:
            if self.failures:
                self.failures -= 1
                raise ValueError(
                    "Not found: wh/db/p.lance/_refs/tags/gone.json, "
                    "rust/lance-io/src/local.rs:273:40"
                )
            return {"kept": {"version": 1}}

    assert list_refs(Refs(3)) == {"kept": {"version": 1}}
    with pytest.raises(ValueError, match="Not found"):
        list_refs(Refs(10**6))  # bounded: a listing that keeps failing propagates

    class Broken:
        def list(self) -> dict[str, dict[str, Any]]:
            raise ValueError("something else")

    with pytest.raises(ValueError, match="something else"):
        list_refs(Broken())


def test_concurrent_create_and_delete_tag_never_fail_on_a_vanished_tag(tmp_path: Path) -> None:
    """The same race over the wire: clients creating and deleting tags on one table get a result
    or a concurrent-commit error, never 'PROCEDURE ... failed: ... Not found'."""
    wh = local_warehouse(tmp_path / "wh")
    wh.write("db", "p", pa.table({"id": pa.array(range(5), pa.int64())}))
    server = ServerProcess(data_dir=tmp_path / "data").start()
    try:
        server.query(f"CREATE CATALOG lc PROPERTIES ('type' = 'lance', 'warehouse' = '{wh.root}')")
        problems: list[str] = []
        deadline = time.monotonic() + 4

        def churn(k: int) -> None:
            with server.connect() as conn:
                i = 0
                while time.monotonic() < deadline:
                    i += 1
                    for sql in (
                        f"CALL lc.sys.create_tag('db.p', 'c{k}_{i}')",
                        f"CALL lc.sys.delete_tag('db.p', 'c{k}_{i}')",
                    ):
                        _, error = run_sql(conn, sql)
                        if error and not re.search(
                            r"stopped: concurrent commit|does not exist", error[1]
                        ):
                            problems.append(f"{sql}: {error}")

        threads = [threading.Thread(target=churn, args=(k,), daemon=True) for k in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        assert not any(t.is_alive() for t in threads)
        assert not problems, problems[:5]
    finally:
        server.stop()
