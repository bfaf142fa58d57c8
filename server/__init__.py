"""The MySQL wire server on mysql-mimic: connections, authentication, TLS, prepared statements,
result encoding. It parses with ``drydock.grammar`` and runs statements with
``drydock.engine.statements.execute``; it decides nothing a statement means.

May import: `drydock.engine`, `drydock.engine.core`, `drydock.engine.support`,
`drydock.engine.store`,
`drydock.engine.security`, `drydock.grammar`, `drydock.engine.lakehouse`, `drydock.engine.sql`,
`drydock.engine.statements`, `drydock.engine.search`, `drydock.engine.dictionary`.
"""
