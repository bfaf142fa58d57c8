"""drydock's own SQL surface: the Lark grammar (``drydock.lark``), its parser into statement objects
(``parser.py``), the lexer every reader of statement text uses (``lexer.py``), the masking of
secrets in statement text (``redact.py``), statement bytes read literal by literal in their own
charsets (``query_text.py``), statement shapes
(``shapes.py``, ``statement_shapes.py``), rendering (``render.py``) and plain-SQL helpers
(``sql.py``).

May import: `drydock.engine`, `drydock.engine.support`, `drydock.engine.security`.
"""
