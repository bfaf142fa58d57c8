"""Text → statement objects, for the statements drydock owns (see drydock.lark).

``parse(sql)`` returns a statement object, or ``None`` when the statement belongs to the SQL
passthrough (grammar/owned_prefixes.py ``owns``). A syntax error in an owned statement raises a
1064 DrydockError whose text is ANTLR-style, as Doris prints it (grammar/syntax_errors.py). Here:
the parse itself (grammar/lark_parser.py, grammar/to_statement.py) and its caches, by text and by
shape (grammar/statement_shapes.py).
"""

from __future__ import annotations

import dis
import re
import threading
import types
from dataclasses import fields, is_dataclass
from typing import Any

from lark import UnexpectedInput

from drydock.engine import ast
from drydock.engine.security.redact import SECRET_KEY
from drydock.engine.support.url_secrets import has_secret
from drydock.grammar.owned_prefixes import owns
from drydock.grammar.redact import redact_sql
from drydock.engine.support.lru import Lru
from drydock.grammar.lark_parser import PARSER, TERMINAL_PATTERNS, inline_parser
from drydock.grammar.statement_shapes import StatementShapeCache
from drydock.grammar.syntax_errors import syntax_error
from drydock.grammar.to_statement import ToStatement


def parse(sql: str) -> ast.Statement | None:
    with _cache_lock:
        cached = _cache.get(sql)
        if cached is not None:
            return cached
    if not owns(sql):
        return None
    keyed = _shapes().key(sql)
    if keyed is not None:
        shaped = _shapes().lookup(keyed)
        if shaped is not None:
            return shaped  # not kept by its text: a name in it may spell a secret's key
    statement = _parse_owned(sql)  # a syntax error raises: errors are never cached
    if len(sql) <= CACHE_MAX_SQL_CHARS and not carries_secret(sql, statement):
        with _cache_lock:
            _cache.put(sql, statement)
        if keyed is not None:
            _shapes().learn(sql, keyed, statement)
    return statement


# -- parse cache --------------------------------------------------------------------------------
# Clients repeat the same statement texts; statement objects are frozen dataclasses, so one parse
# is shared by every session that sends the same text. Bounded LRU, keyed on the exact text. A
# statement that carries a secret (anything grammar/redact.py would mask, a password field, a
# property whose key is secret, or a PREPARE's arbitrary text) is never kept in memory here.
CACHE_SIZE = 512
CACHE_MAX_SQL_CHARS = 4096
_cache: Lru[str, ast.Statement] = Lru(CACHE_SIZE)
_cache_lock = threading.Lock()
_NEVER_CACHED: tuple[type[ast.Statement], ...] = (ast.Prepare,)


def clear_cache() -> None:
    with _cache_lock:
        _cache.clear()
    _shapes().clear()


# Shapes (grammar/statement_shapes.py): texts that differ only in names and plain strings share
# one parse. Built on first use, from the grammar's own terminals.
_shape_cache: StatementShapeCache | None = None


def _shapes() -> StatementShapeCache:
    global _shape_cache
    if _shape_cache is None:
        keywords = frozenset(
            t.pattern.value.upper() for t in PARSER.terminals if t.pattern.type == "str"
        )
        # word-like terminals other than IDENTIFIER: a word one of them matches is never a slot
        others = tuple(
            re.compile(t.pattern.to_regexp())
            for t in PARSER.terminals
            if t.pattern.type == "re"
            and t.name != "IDENTIFIER"
            and re.fullmatch(t.pattern.to_regexp(), "abc_Z9$")
        )
        _shape_cache = StatementShapeCache(_parse_owned, keywords, others, reserved_spellings())
    return _shape_cache


_WORDLIKE = re.compile(r"[A-Za-z_$][A-Za-z0-9_$ ]*")


def reserved_spellings() -> frozenset[str]:
    """The grammar's own words, which a shape's slot value may not spell
    (grammar/statement_shapes.py).

    Every terminal's name and literal, every rule's name of several words, every run of keywords
    in a rule joined (IF NOT EXISTS → IF_NOT_EXISTS: what a transformer might stand for the clause
    by), and every word-like string the transformer (grammar/to_statement.py) holds (tags such as
    "PASSWORD" or "STRING", read from its code, so a tag added later is covered without a list to
    keep). A value equal to one of them may only mean a name, but a transformer that compared it
    with that word would read it as a clause.
    """
    words: set[str] = set()
    for terminal in PARSER.terminals:
        words.add(terminal.name)
        if terminal.pattern.type == "str":
            words.add(terminal.pattern.value)
    keyword_names = {t.name for t in PARSER.terminals if t.pattern.type == "str"}
    for rule in PARSER.rules:
        if "_" in rule.origin.name:
            # a rule of several words names a clause (if_exists), what a transformer might stand for
            # it by; a one-word rule (name, host, string, start) names a kind of value, and those
            # are common names — CREATE INDEX i ON t (name) keeps its shape
            words.add(str(rule.origin.name))
        run: list[str] = []
        for symbol in (*rule.expansion, None):
            if symbol is not None and symbol.name in keyword_names:
                run.append(str(TERMINAL_PATTERNS[symbol.name].value))
                continue
            for start in range(len(run)):  # every contiguous run of two or more keywords
                for end in range(start + 2, len(run) + 1):
                    words.add("_".join(run[start:end]))
            run = []
    words.update(_constants_of(ToStatement))
    return frozenset(w for w in words if _WORDLIKE.fullmatch(w))


def _constants_of(cls: type) -> set[str]:
    """The strings ``cls``'s methods (nested functions included) load as values: constants and the
    members of constant tuples and sets (``in ("TRUE", "FALSE")``) — not the names of keyword
    arguments (``DropCatalog(name=…)``), which Python keeps as constant tuples too."""
    found: set[str] = set()
    codes = [
        getattr(f, "__func__", f).__code__
        for f in vars(cls).values()
        if hasattr(getattr(f, "__func__", f), "__code__")
    ]
    while codes:
        code = codes.pop()
        codes.extend(c for c in code.co_consts if isinstance(c, types.CodeType))
        instructions = list(dis.get_instructions(code))
        for ins, after in zip(instructions, [*instructions[1:], None], strict=True):
            if ins.opname != "LOAD_CONST" or (after is not None and after.opname == "CALL_KW"):
                continue  # (3.13 loads keyword names for CALL_KW; 3.11 and 3.12 use KW_NAMES)
            value = ins.argval
            for item in value if isinstance(value, (tuple, frozenset)) else (value,):
                if isinstance(item, str):
                    found.add(item)
    return found


def carries_secret(sql: str, statement: ast.Statement) -> bool:
    if isinstance(statement, _NEVER_CACHED) or redact_sql(sql) != sql:
        return True
    return _secret_in(statement)


def _secret_in(value: Any) -> bool:
    if is_dataclass(value):
        for f in fields(value):
            item = getattr(value, f.name)
            if SECRET_KEY.search(f.name) and item:
                return True
            if _secret_in(item):
                return True
        return False
    if isinstance(value, tuple):
        if (
            len(value) == 2
            and isinstance(value[0], str)
            and (SECRET_KEY.search(value[0]) or isinstance(value[1], str) and has_secret(value[1]))
        ):
            # a ("key", "value") property pair with a secret key, or a credential in its value
            return True
        return any(_secret_in(v) for v in value)
    return False


def _parse_owned(sql: str) -> ast.Statement:
    try:
        statement = inline_parser().parse(sql)
    except Exception:  # noqa: BLE001 - re-parsed below, which raises the error it always raised
        statement = None
    if isinstance(statement, ast.Statement):
        return statement
    try:
        tree = PARSER.parse(sql)
    except UnexpectedInput as exc:
        raise syntax_error(exc, sql) from None
    result = ToStatement().transform(tree)
    assert isinstance(result, ast.Statement)
    return result
