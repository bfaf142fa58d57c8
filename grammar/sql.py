"""The passthrough parser: statements the Lark grammar does not own, parsed once with sqlglot.

drydock's additions to MySQL's syntax are grammar here, never rewrites of the text:

- ``t FOR TIME AS OF '2024-01-01 00:00:00'`` (Doris) parses like ``FOR TIMESTAMP AS OF``;
- ``t@tag('v1')`` (Doris) parses as a version clause naming a tag;
- ``FOR VERSION AS OF n`` / ``FOR TIMESTAMP AS OF '…'`` are sqlglot's own;
- ``col MATCH_ANY 'words'`` / ``MATCH_ALL`` / ``MATCH_PHRASE`` (Doris full-text) parse as
  :class:`TextMatch`; ``[0.1, -0.2]`` is an array literal (``exp.Array``, a vector value);
  MySQL's ``MATCH (a, b) AGAINST ('…' IN BOOLEAN MODE)`` is sqlglot's ``exp.MatchAgainst``.

``parse(sql)`` gives exactly one sqlglot expression or a MySQL error (1064 with the position,
1065 for an empty query). ``projection_labels`` gives the MySQL column labels of a SELECT: the
alias as written, or the item's own text as the client wrote it (``COUNT(*)``, ``IFNULL(a,b)``).
"""

from __future__ import annotations

import logging
from typing import Any, ClassVar

from sqlglot import exp
from sqlglot.dialects.mysql import MySQL
from sqlglot.errors import ParseError, SqlglotError
from sqlglot.tokens import Token, TokenType

from drydock.engine.errors import DrydockError, Errors
from drydock.grammar.lexer import COMMENT_STARTS, QUOTES, comment_end, quoted_end

# sqlglot logs unsupported syntax with the statement text in it; statement text never goes to
# drydock's logs (it may carry secrets, and any user could write lines there).
logging.getLogger("sqlglot").setLevel(logging.CRITICAL)


class RenameTables(exp.Expression):
    """MySQL's ``RENAME TABLE a TO b [, c TO d …]``: one ``ALTER TABLE … RENAME TO`` per pair,
    applied together (engine/sql/mysql_ddl.py)."""

    arg_types: ClassVar[dict[str, bool]] = {"expressions": True}


class TextMatch(exp.Expression):
    """Doris' full-text predicates ``col MATCH_ANY 'words'``, ``col MATCH_ALL '…'`` and
    ``col MATCH_PHRASE '…'``: ``this`` the column, ``expression`` the query text (a string
    literal or a ``?`` placeholder), ``kind`` "ANY", "ALL" or "PHRASE". Only the search planner
    (engine/search) can answer one: DuckDB SQL is never generated for it (sqlglot's generator
    refuses a node it has no method for)."""

    arg_types: ClassVar[dict[str, bool]] = {"this": True, "expression": True, "kind": True}


TEXT_MATCH_KINDS = {"MATCH_ANY": "ANY", "MATCH_ALL": "ALL", "MATCH_PHRASE": "PHRASE"}


class AlterKeys(exp.Expression):
    """``ALTER TABLE t DISABLE KEYS`` / ``ENABLE KEYS`` (dump files write them around the rows):
    ``this`` is DISABLE or ENABLE. MyISAM's switch for non-unique index upkeep; drydock answers
    it as MySQL does for an engine without it (engine/statements/dump_statements.py)."""

    arg_types: ClassVar[dict[str, bool]] = {"this": True}


class Savepoint(exp.Expression):
    """``SAVEPOINT name`` (MySQL 15.3.4): ``this`` is the name (engine/sql/savepoints.py)."""

    arg_types: ClassVar[dict[str, bool]] = {"this": True}


class ReleaseSavepoint(exp.Expression):
    """``RELEASE SAVEPOINT name`` (MySQL 15.3.4): ``this`` is the name."""

    arg_types: ClassVar[dict[str, bool]] = {"this": True}


class DrydockMySQL(MySQL):
    """MySQL as drydock reads it: sqlglot's MySQL dialect plus Doris' time-travel spellings, and
    REPLACE INTO / RENAME TABLE as statements (sqlglot leaves both as opaque commands)."""

    class Tokenizer(MySQL.Tokenizer):
        COMMANDS = MySQL.Tokenizer.COMMANDS - {TokenType.REPLACE, TokenType.RENAME}
        # SAVEPOINT and RELEASE SAVEPOINT are parsed (Parser._parse_statement), not opaque commands
        KEYWORDS: ClassVar[dict[str, Any]] = {
            k: v for k, v in MySQL.Tokenizer.KEYWORDS.items() if k not in ("SAVEPOINT", "RELEASE")
        }

    # # sqlglot builds dialect classes at run time
    class Parser(MySQL.Parser):  # type: ignore[misc,valid-type]
        VERSION_PHRASES: ClassVar[dict[tuple[str, ...], str]] = {
            **MySQL.Parser.VERSION_PHRASES,
            ("FOR", "TIME"): "TIMESTAMP",
        }
        STATEMENT_PARSERS: ClassVar[dict[Any, Any]] = {
            **MySQL.Parser.STATEMENT_PARSERS,
            TokenType.REPLACE: lambda self: self._parse_replace(),
            TokenType.RENAME: lambda self: self._parse_rename_tables(),
        }
        # FLOAT UNSIGNED is MySQL (deprecated in 8.0.17, still accepted); sqlglot has no UFLOAT
        SIGNED_TO_UNSIGNED_TYPE_TOKEN: ClassVar[dict[Any, Any]] = {
            **MySQL.Parser.SIGNED_TO_UNSIGNED_TYPE_TOKEN,
            TokenType.FLOAT: TokenType.FLOAT,
        }
        ALTER_PARSERS: ClassVar[dict[str, Any]] = {
            **MySQL.Parser.ALTER_PARSERS,
            "DISABLE": lambda self: self._parse_alter_keys(),
            "ENABLE": lambda self: self._parse_alter_keys(),
        }

        def _parse_statement(self) -> Any:
            """``SAVEPOINT name`` and ``RELEASE SAVEPOINT name`` (their words are plain names
            elsewhere); every other statement as sqlglot parses it."""
            word = self._curr.text.upper() if self._curr else ""
            if word == "SAVEPOINT" and self._curr.token_type == TokenType.VAR:
                self._advance()
                return Savepoint(this=self._savepoint_name())
            if word == "RELEASE" and self._next and self._next.text.upper() == "SAVEPOINT":
                self._advance(2)
                return ReleaseSavepoint(this=self._savepoint_name())
            return super()._parse_statement()

        def _parse_create(self) -> Any:
            """``CREATE FULLTEXT INDEX i ON t (cols)``: the CREATE INDEX sqlglot parses, marked
            ``meta["fulltext"]`` (engine/statements/internal_index.py records a FULLTEXT key)."""
            fulltext = self._match_text_seq("FULLTEXT", "INDEX", advance=False)
            if fulltext:
                self._advance()
            create = super()._parse_create()
            if fulltext and isinstance(create, exp.Create):
                create.meta["fulltext"] = True
            return create

        def _savepoint_name(self) -> Any:
            name = self._parse_id_var(any_token=True)  # MySQL: words it reserves too
            if name is None:
                self.raise_error("expected a savepoint name")
            return name

        def _parse_alter_table_add(self) -> Any:
            """``ADD …[, ADD …]``, one item per ADD: a column, ``(c1 def, c2 def)`` (several
            columns in one clause), a key or foreign key, or ``[CONSTRAINT [name]] CHECK (expr)
            [[NOT] ENFORCED]`` (manual 15.1.9; sqlglot leaves the last two as opaque commands)."""
            items: list[Any] = []
            while True:
                items.extend(self._parse_add_item())
                index = self._index
                if not (self._match(TokenType.COMMA) and self._match_text_seq("ADD")):
                    self._retreat(index)
                    return items

        def _parse_add_item(self) -> list[Any]:
            if self._match(TokenType.L_PAREN):
                columns = self._parse_csv(self._parse_column_def_with_exists)
                if not columns or not self._match(TokenType.R_PAREN):
                    self.raise_error("expected column definitions in ADD (…)")
                return list(columns)
            check = self._parse_add_check()
            if check is not None:
                return [check]
            if self._match_set(self.ADD_CONSTRAINT_TOKENS, advance=False) or self._match_texts(
                self.ADD_CONSTRAINT_KEYWORDS, advance=False
            ):
                return [self.expression(exp.AddConstraint(expressions=[self._parse_constraint()]))]
            column = self._parse_column_def_with_exists()
            if column is None:
                self.raise_error("expected a column or a constraint after ADD")
            return [column]

        def _parse_add_check(self) -> Any:
            start = self._index
            name = None
            if self._match(TokenType.CONSTRAINT) and not (
                self._curr and self._curr.text.upper() == "CHECK"
            ):
                name = self._parse_id_var()
            if not self._match_text_seq("CHECK"):
                self._retreat(start)
                return None
            condition = self._parse_wrapped(self._parse_assignment)
            enforced = not self._match_text_seq("NOT", "ENFORCED")
            self._match_text_seq("ENFORCED")
            check: exp.Expr = exp.CheckColumnConstraint(this=condition, enforced=enforced)
            if name is not None:
                check = exp.Constraint(this=name, expressions=[check])
            return exp.AddConstraint(expressions=[check])

        def _parse_alter_table_rename(self) -> Any:
            """``RENAME AS t2`` is MySQL's spelling of ``RENAME TO t2``."""
            if self._match(TokenType.ALIAS):
                return self.expression(exp.AlterRename(this=self._parse_table(schema=True)))
            return super()._parse_alter_table_rename()

        def _parse_alter_keys(self) -> Any:
            switch = self._prev.text.upper()
            if not self._match_text_seq("KEYS"):
                self.raise_error(f"expected {switch} KEYS")
            return AlterKeys(this=exp.var(switch))

        def _parse_transaction(self) -> Any:
            """``START TRANSACTION [WITH CONSISTENT SNAPSHOT] [, READ ONLY | READ WRITE]`` (MySQL
            15.3.1): sqlglot stops at WITH. A DuckDB transaction reads one snapshot from its
            start, which is what CONSISTENT SNAPSHOT asks for."""
            self._match_texts(("TRANSACTION", "WORK"))
            modes = []
            while True:
                if self._match_text_seq("WITH", "CONSISTENT", "SNAPSHOT"):
                    modes.append("WITH CONSISTENT SNAPSHOT")
                else:
                    words = []
                    while self._match(TokenType.VAR) or self._match(TokenType.NOT):
                        words.append(self._prev.text)
                    if words:
                        modes.append(" ".join(words))
                if not self._match(TokenType.COMMA):
                    break
            return self.expression(exp.Transaction(this=None, modes=modes))

        def _parse_replace(self) -> Any:
            """``REPLACE [INTO] t …`` is an INSERT whose rows replace the rows they collide with."""
            insert = self._parse_insert()
            insert.set("alternative", "REPLACE")
            return insert

        def _parse_rename_tables(self) -> Any:
            if not self._match(TokenType.TABLE):
                self.raise_error("expected RENAME TABLE")
            pairs = []
            while True:
                old = self._parse_table_parts()
                if not self._match_text_seq("TO"):
                    self.raise_error("expected TO")
                new = self._parse_table_parts()
                pairs.append(exp.Alter(this=old, kind="TABLE", actions=[exp.AlterRename(this=new)]))
                if not self._match(TokenType.COMMA):
                    break
            return RenameTables(expressions=pairs)

        def _parse_range(self, this: Any = None, parse_is: bool = False) -> Any:
            """MySQL's comparisons, and Doris' ``col MATCH_ANY|MATCH_ALL|MATCH_PHRASE 'text'``
            at the same precedence. The words are keywords only before a string or a ``?``:
            ``SELECT a match_any FROM t`` still aliases ``a``."""
            this = super()._parse_range(this, parse_is)
            kind = self._text_match_ahead()
            if kind is None:
                return this
            self._advance()
            query = self._parse_string() or self._parse_placeholder()
            return super()._parse_range(TextMatch(this=this, expression=query, kind=kind))

        def _text_match_ahead(self) -> str | None:
            if not (self._curr and self._next) or self._curr.token_type != TokenType.VAR:
                return None
            if self._next.token_type not in (TokenType.STRING, TokenType.PLACEHOLDER):
                return None
            return TEXT_MATCH_KINDS.get(self._curr.text.upper())

        def _parse_version(self) -> Any:
            if self._at_tag():
                self._advance(3)  # @ tag (
                value = self._parse_string()
                if value is None or not self._match(TokenType.R_PAREN):
                    self.raise_error("expected @tag('<name>')")
                return self.expression(exp.Version(this="VERSION", kind="AS OF", expression=value))
            return super()._parse_version()

        def _parse_table_alias(self, *args: Any, **kwargs: Any) -> Any:
            if self._at_tag():
                return None  # t@tag('x') is a version clause (below), not an alias '@tag'
            return super()._parse_table_alias(*args, **kwargs)

        def _at_tag(self) -> bool:
            return bool(
                self._curr
                and self._curr.token_type == TokenType.PARAMETER
                and self._next
                and self._next.text.lower() == "tag"
                and self._index + 2 < len(self._tokens)
                and self._tokens[self._index + 2].token_type == TokenType.L_PAREN
            )

    class Generator(MySQL.Generator):  # type: ignore[misc,valid-type]
        """Prints what the parser above adds (grammar/render.py renders plain SQL with it)."""

        TRANSFORMS: ClassVar[dict[Any, Any]] = {
            **MySQL.Generator.TRANSFORMS,
            TextMatch: lambda self, e: (
                f"{self.sql(e, 'this')} MATCH_{e.args['kind']} {self.sql(e, 'expression')}"
            ),
            # an array literal as written: [1, -0.5] (sqlglot's MySQL prints ARRAY(1, -0.5))
            exp.Array: lambda self, e: f"[{self.expressions(e, flat=True)}]",
            AlterKeys: lambda self, e: f"{e.name} KEYS",
            Savepoint: lambda self, e: f"SAVEPOINT {self.sql(e, 'this')}",
            ReleaseSavepoint: lambda self, e: f"RELEASE SAVEPOINT {self.sql(e, 'this')}",
            RenameTables: lambda self, e: (
                "RENAME TABLE "
                + ", ".join(
                    f"{self.sql(alter, 'this')} TO {self.sql(alter.args['actions'][0], 'this')}"
                    for alter in e.expressions
                )
            ),
        }

        def insert_sql(self, expression: exp.Insert) -> str:
            """MySQL's ``REPLACE INTO`` (the parser's ``alternative``), not SQLite's ``INSERT OR
            REPLACE``."""
            if expression.args.get("alternative") != "REPLACE":
                return str(super().insert_sql(expression))
            plain = expression.copy()
            plain.set("alternative", None)
            return "REPLACE" + str(super().insert_sql(plain))[len("INSERT") :]


DIALECT = DrydockMySQL()


def tokenize(sql: str) -> list[Token]:
    try:
        return DIALECT.tokenize(sql)
    except SqlglotError as exc:  # an unterminated string, comment or identifier
        raise Errors.PARSE.error(detail=f"line 1:0 {_plain(exc)}") from None


def parse(sql: str, max_tokens: int | None = None) -> exp.Expr:
    """Exactly one statement of ``sql`` as a sqlglot expression (see module docstring).

    ``max_tokens`` is the parse budget: parsing costs time in proportion to the tokens, so a
    statement with more is refused before the parse starts."""
    return parse_counted(sql, max_tokens)[0]


def check_budget(tokens: int, max_tokens: int | None) -> None:
    if max_tokens is not None and tokens > max_tokens:
        raise Errors.STATEMENT_TOO_COMPLEX.error(tokens=tokens, limit=max_tokens)


def parse_counted(sql: str, max_tokens: int | None = None) -> tuple[exp.Expr, int]:
    """:func:`parse`, and the number of tokens the statement has."""
    tokens = tokenize(sql)
    check_budget(len(tokens), max_tokens)
    try:
        expressions = [e for e in DIALECT.parser().parse(tokens, sql) if e is not None]
    except ParseError as exc:
        raise _parse_error(exc) from None
    except SqlglotError as exc:
        raise Errors.PARSE.error(detail=f"line 1:0 {_plain(exc)}") from None
    except (IndexError, KeyError, ValueError, TypeError, AttributeError, RecursionError):
        # sqlglot's own parser crashes this way on some incomplete statements ('SHOW CREATE')
        raise Errors.PARSE.error(
            detail="line 1:0 syntax error: the statement is incomplete or not valid SQL"
        ) from None
    if not expressions:
        raise Errors.EMPTY_QUERY.error()
    if len(expressions) > 1:
        raise Errors.PARSE.error(
            detail="multiple statements in one query are not supported; send one statement at a "
            "time"
        )
    expression = expressions[0]
    if isinstance(expression, exp.Command) and expression.name.upper() == "SET":
        expression = _set_items_one_by_one(expression)
    label_projections(sql, tokens, expression)
    return expression, len(tokens)


def parse_one_set(text: str) -> exp.Expr | None:
    parsed = [e for e in DIALECT.parse(text) if e is not None]
    return parsed[0] if len(parsed) == 1 else None


def _set_items_one_by_one(command: exp.Command) -> exp.Expr:
    """sqlglot gives up on ``SET @a = (SELECT ...), @b = 2`` (a subquery before a comma) and
    returns a Command; parsed item by item, it is an ordinary SET. Anything else stays a Command."""
    items: list[exp.Expr] = []
    for text in _top_level_items(command.text("expression")):
        try:
            parsed = parse_one_set(f"SET {text}")
        except ParseError:
            return command
        if not isinstance(parsed, exp.Set):
            return command
        items.extend(parsed.expressions)
    return exp.Set(expressions=items) if items else command


def _top_level_items(text: str) -> list[str]:
    """``text`` split at the commas outside parentheses, quotes and comments (grammar/lexer.py)."""
    items, depth, start, i, n = [], 0, 0, 0, len(text)
    while i < n:
        ch = text[i]
        skipped = comment_end(text, i) if ch in COMMENT_STARTS else None
        if ch in QUOTES or skipped is not None:
            i = quoted_end(text, i)[0] if skipped is None else skipped
            continue
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "," and depth == 0:
            items.append(text[start:i])
            start = i + 1
        i += 1
    items.append(text[start:])
    return [item.strip() for item in items]


def _plain(exc: Exception) -> str:
    """sqlglot's message without its ANSI colour codes."""
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return text.replace("\x1b[4m", "").replace("\x1b[0m", "")


def _parse_error(exc: ParseError) -> DrydockError:
    err = exc.errors[0] if exc.errors else {}
    description = str(err.get("description") or "syntax error")
    line = err.get("line") or 1
    col = max(int(err.get("col") or 1) - 1, 0)
    highlight = _plain(Exception(err.get("highlight") or "")) if err.get("highlight") else ""
    near = f" near '{highlight}'" if highlight else ""
    return Errors.PARSE.error(detail=f"line {line}:{col} {description}{near}")


# -- column labels ------------------------------------------------------------------------------
_SELECT_MODIFIERS = {
    "DISTINCT",
    "ALL",
    "DISTINCTROW",
    "HIGH_PRIORITY",
    "STRAIGHT_JOIN",
    "SQL_SMALL_RESULT",
    "SQL_BIG_RESULT",
    "SQL_BUFFER_RESULT",
    "SQL_NO_CACHE",
    "SQL_CACHE",
    "SQL_CALC_FOUND_ROWS",
}
_PROJECTION_END = {
    TokenType.FROM,
    TokenType.WHERE,
    TokenType.GROUP_BY,
    TokenType.HAVING,
    TokenType.ORDER_BY,
    TokenType.LIMIT,
    TokenType.WINDOW,
    TokenType.UNION,
    TokenType.EXCEPT,
    TokenType.INTERSECT,
    TokenType.INTO,
    TokenType.SEMICOLON,
    TokenType.QUALIFY,
}
_PROJECTION_END_WORDS = {"FOR", "LOCK", "INTO", "GROUP", "ORDER"}
_OPEN = {TokenType.L_PAREN, TokenType.L_BRACKET, TokenType.L_BRACE}
_CLOSE = {TokenType.R_PAREN, TokenType.R_BRACKET, TokenType.R_BRACE}


def projection_texts(sql: str, tokens: list[Token]) -> list[str]:
    """The text of each item of the outermost SELECT list, as written (first SELECT of a set
    operation). Empty when there is no outermost SELECT."""
    i, n = _after_with_clause(tokens), len(tokens)
    while i < n and tokens[i].token_type != TokenType.SELECT:  # '(' of a parenthesized SELECT
        if tokens[i].token_type not in _OPEN:
            return []
        i += 1
    if i >= n:
        return []
    i += 1
    # optimizer hints (/*+ MAX_EXECUTION_TIME(n) */) and modifiers are no part of the first label
    while i < n and (
        tokens[i].token_type == TokenType.HINT or _written(sql, tokens[i]) in _SELECT_MODIFIERS
    ):
        i += 1
    items: list[str] = []
    first, depth = i, 0
    while i < n:
        token = tokens[i]
        if token.token_type in _OPEN:
            depth += 1
        elif token.token_type in _CLOSE:
            if depth == 0:
                break  # the SELECT was itself parenthesized
            depth -= 1
        elif depth == 0 and (
            token.token_type in _PROJECTION_END or _written(sql, token) in _PROJECTION_END_WORDS
        ):
            break
        elif depth == 0 and token.token_type == TokenType.COMMA:
            items.append(_span(sql, tokens[first], tokens[i - 1]))
            first = i + 1
        i += 1
    if first < i:
        items.append(_span(sql, tokens[first], tokens[i - 1]))
    return items


def _written(sql: str, token: Token) -> str:
    """``token`` as written in ``sql``, upper-cased: quotes included, so that a string or a quoted
    name whose value spells a keyword ('ALL', `order`) is never read as that keyword. (A token's
    ``text`` is a string's value: labels read from it changed with the value, and a statement shape
    learnt from SELECT 'a' labelled SELECT 'ALL' as a full parse did not, grammar/shapes.py.)"""
    return sql[token.start : token.end + 1].upper()


def _after_with_clause(tokens: list[Token]) -> int:
    """Index of the first token after a leading ``WITH name [(cols)] AS (body), …`` clause."""
    if not tokens or tokens[0].token_type != TokenType.WITH:
        return 0
    i, n = 1, len(tokens)
    while i < n:
        while i < n and tokens[i].token_type not in _OPEN:  # name [(cols)] AS [NOT] [MATERIALIZED]
            i += 1
        if (
            i > 0
            and tokens[i - 1].token_type != TokenType.ALIAS
            and i < n
            and tokens[i - 1].text.upper() not in ("MATERIALIZED",)
        ):
            i = _skip_group(tokens, i)  # the column list
            continue
        i = _skip_group(tokens, i)  # the body
        if i < n and tokens[i].token_type == TokenType.COMMA:
            i += 1
            continue
        return i
    return n


def _skip_group(tokens: list[Token], i: int) -> int:
    """Index just past the balanced group that opens at ``i``."""
    depth, n = 0, len(tokens)
    while i < n:
        if tokens[i].token_type in _OPEN:
            depth += 1
        elif tokens[i].token_type in _CLOSE:
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return n


def _span(sql: str, first: Token, last: Token) -> str:
    return sql[first.start : last.end + 1]


def outermost_select(expression: exp.Expr) -> exp.Select | None:
    node: Any = expression
    while isinstance(node, (exp.Union, exp.Intersect, exp.Except, exp.Subquery)):
        node = node.this
    return node if isinstance(node, exp.Select) else None


def label_projections(sql: str, tokens: list[Token], expression: exp.Expr) -> None:
    """Give every unaliased, non-column item of the outermost SELECT the label MySQL gives it:
    its text as written. Aliases already carry the client's spelling."""
    select = outermost_select(expression)
    if select is None:
        return
    projections = list(select.expressions)
    if not projections or all(
        isinstance(p, (exp.Alias, exp.Column, exp.Star)) for p in projections
    ):
        return
    texts = projection_texts(sql, tokens)
    if len(texts) != len(projections):
        return  # a shape the token scan does not follow: DuckDB's own names stay
    for projection, text in zip(projections, texts):
        if isinstance(projection, (exp.Alias, exp.Column, exp.Star)) or not text:
            continue
        if isinstance(projection, exp.Literal) and projection.is_string:
            text = projection.this  # MySQL labels a string literal with its value
        alias = exp.Alias(alias=exp.to_identifier(text, quoted=True))
        projection.replace(alias)
        alias.set("this", projection)
