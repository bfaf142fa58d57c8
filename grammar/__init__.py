"""drydock's own SQL surface: the Lark grammar (``drydock.lark``), its parser into statement objects
(``parser.py``: the entry point and its caches; ``lark_parser.py``: the Lark parser built from the
grammar; ``to_statement.py``: parse tree → statement objects; ``syntax_errors.py``: 1064 texts;
``owned_prefixes.py``: which texts the grammar owns), the lexer every reader of statement text uses
(``lexer.py``), the masking of secrets in statement text (``redact.py``), statement bytes read
literal by literal in their own charsets (``query_text.py``), statement shapes (``shapes.py``,
``statement_shapes.py``), rendering (``render.py``) and plain-SQL helpers (``sql.py``).

May import: `drydock.engine`, `drydock.engine.support`, `drydock.engine.security`.
"""
