"""The lakehouse formats: ``catalogs/`` (Lance and Paimon connectors, the durable catalog manager,
remote calls with deadlines, where a catalog may point) and ``procedures/`` (CALL
<catalog>.sys.<procedure>, one registry per format).

May import: `drydock.engine`, `drydock.engine.support`, `drydock.engine.store`,
`drydock.engine.security`, `drydock.grammar`.
"""
