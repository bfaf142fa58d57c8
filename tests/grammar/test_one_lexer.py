"""No code outside grammar/ recognises MySQL comment or quote syntax: grammar/lexer.py is the one
place that knows where a comment starts and what a quote is, so that every reader of statement
text agrees on where a literal ends (two readers that disagree are how injections happen).

The check reads every module of engine/ and server/ and reports each place that looks for a
comment start (``--``, ``/*``, ``#``) or a quote character (``'``, ``"``, a backtick): a comparison
or membership test with such a string, a string method that searches for one (``startswith``,
``find``, ``split``, ``strip`` …), or a regular expression that holds one. Producing quotes
(``"'" + value + "'"``, ``replace("'", "''")``) is not reading them and is not reported.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = ("engine", "server")
_SYNTAX = ("'", '"', "`", "--", "/*", "#")
_REGEX_SYNTAX = ("'", '"', "`", "--", "/\\*", "#")
_SEARCHES = frozenset(
    {
        "startswith",
        "endswith",
        "find",
        "rfind",
        "index",
        "rindex",
        "count",
        "split",
        "rsplit",
        "partition",
        "rpartition",
        "strip",
        "lstrip",
        "rstrip",
    }
)
_REGEX_CALLS = frozenset(
    {"compile", "match", "fullmatch", "search", "finditer", "findall", "sub", "subn", "split"}
)
# Places that read text that is not MySQL statement text, each with why.
_DUCKDB = "text DuckDB prints (a column default, an error message), never a client's statement"
_DSN = "a PostgreSQL connection string or a URL, never statement text"
ALLOWED = {
    (
        "engine/store/metastore_pg.py",
        "to_postgres",
    ): "the store's own SQLite statements respelt for PostgreSQL, never a client's text",
    ("engine/store/metastore_pg.py", "_scrub"): _DSN,
    ("engine/store/metastore_pg.py", "_KEY_PASSWORD"): _DSN,
    ("engine/store/metastore_pg.py", "_raw_passwords"): _DSN,
    ("engine/support/url_secrets.py", "_TEXT_WORD"): _DSN,
    ("engine/support/url_secrets.py", "_SCHEMELESS"): _DSN,
    ("engine/statements/internal_catalog.py", "_default_text"): _DUCKDB,
    ("engine/sql/metadata.py", "_QUOTED_DEFAULT"): _DUCKDB,
    (
        "engine/search/full_text.py",
        "_BOOLEAN_TERM",
    ): "the words of a MATCH … AGAINST (… IN BOOLEAN MODE) value, a string's content",
    (
        "engine/search/full_text.py",
        "needs_positions",
    ): "a boolean-mode search string holds a phrase: a string's content, not statement text",
    ("engine/sql/execution.py", "_MISSING_TABLE"): _DUCKDB,
    ("engine/sql/group_by_keys.py", "_NOT_GROUPED"): _DUCKDB,
    (
        "engine/sql/mysql_json.py",
        "_STEP",
    ): "a JSON path argument's value (MySQL's path syntax), never statement text",
    (
        "engine/sql/mysql_json_info.py",
        "json_unquote",
    ): "a JSON_UNQUOTE argument's value (a JSON string's quotes), never statement text",
    (
        "engine/sql/sql_relations.py",
        "verify_with_duckdb",
    ): "'#' marks a table function among drydock's own relation names, not a comment",
    ("engine/errors.py", "_ABSOLUTE_PATH"): "a path in an error message ends at a quote",
    ("engine/jobs/runtime/protocol.py", "_JSON_STRING"): "JSON between drydock's own processes",
    ("engine/security/users.py", "_NAME_RE"): "an account name as stored, without its quotes",
}


def findings(source: str, path: str = "<planted>") -> Iterator[tuple[str, str, int, str]]:
    """(path, enclosing function, line, what) for each place ``source`` reads comment or quote
    syntax (module docstring)."""
    tree = ast.parse(source)
    for function, node in _walk(tree, "<module>"):
        what = _reads_syntax(node)
        if what is not None:
            yield path, function, node.lineno, what


def _walk(node: ast.AST, where: str) -> Iterator[tuple[str, ast.AST]]:
    """Each node with where it is: the enclosing function, or the module-level name assigned."""
    for child in ast.iter_child_nodes(node):
        name = where
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
            name = child.name
        elif (
            where == "<module>"
            and isinstance(child, ast.Assign)
            and isinstance(child.targets[0], ast.Name)
        ):
            name = child.targets[0].id
        yield name, child
        yield from _walk(child, name)


def _syntax_in(node: ast.AST, syntax: tuple[str, ...] = _SYNTAX) -> bool:
    values: list[str] = []
    if isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes)):
        value = node.value
        values.append(value.decode("latin-1") if isinstance(value, bytes) else value)
    elif isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return any(_syntax_in(e, syntax) for e in node.elts)
    return any(s in v for v in values for s in syntax)


def _reads_syntax(node: ast.AST) -> str | None:
    if (
        isinstance(node, ast.Compare)
        and any(isinstance(op, (ast.Eq, ast.NotEq, ast.In, ast.NotIn)) for op in node.ops)
        and any(_syntax_in(operand) for operand in (node.left, *node.comparators))
    ):
        return "compares with comment or quote syntax"
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        name = node.func.attr
        owner = node.func.value
        if name in _REGEX_CALLS and isinstance(owner, ast.Name) and owner.id == "re":
            if node.args and _syntax_in(node.args[0], _REGEX_SYNTAX):
                return f"re.{name} with comment or quote syntax"
        elif name in _SEARCHES and any(_syntax_in(arg) for arg in node.args):
            return f".{name}() for comment or quote syntax"
    return None


def product_findings() -> list[tuple[str, str, int, str]]:
    found = []
    for folder in FOLDERS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            rel = str(path.relative_to(ROOT))
            found += [f for f in findings(path.read_text(), rel) if (f[0], f[1]) not in ALLOWED]
    return found


def test_no_code_outside_grammar_reads_comment_or_quote_syntax() -> None:
    assert product_findings() == []


def test_every_allowed_place_still_reads_syntax() -> None:
    """An allowance whose code is gone (or no longer reads syntax) is removed, not kept."""
    seen = set()
    for folder in FOLDERS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            rel = str(path.relative_to(ROOT))
            seen |= {(f[0], f[1]) for f in findings(path.read_text(), rel)}
    assert set(ALLOWED) <= seen


PLANTED = {
    "dashes": 'def f(sql, i):\n    return sql.startswith("--", i)\n',
    "block comment": 'def f(sql):\n    return sql.find("/*")\n',
    "hash": 'def f(sql, i):\n    return sql[i] == "#"\n',
    "quote membership": 'def f(ch):\n    return ch in "\'\\"`"\n',
    "quote in a regex": "import re\nSTRING = re.compile(r\"'(?:[^']|'')*'\")\n",
    "comment in a regex": 'import re\nNOISE = re.compile(r"/\\*.*?\\*/")\n',
    "strip quotes": 'def f(text):\n    return text.strip("\'")\n',
    "bytes": 'def f(raw):\n    return raw.split(b"\'")\n',
}


def test_the_check_catches_each_planted_scanner() -> None:
    missed = [name for name, source in PLANTED.items() if not list(findings(source))]
    assert missed == []


def test_the_check_leaves_producing_quotes_alone() -> None:
    source = (
        "def quote(name):\n    return '`' + name.replace('`', '``') + '`'\n"
        "def literal(v):\n    return f\"'{v}'\"\n"
        "def words(sql):\n    return sql.split()\n"
    )
    assert list(findings(source)) == []
