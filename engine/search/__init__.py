"""Search with the indexes drydock builds: vector values and the exact vector functions
(``vectors.py``: constant query vectors read from the AST; ``vector_functions.py``: l2_distance,
inner_product, cosine_distance, l1_distance, STRING_TO_VECTOR, VECTOR_TO_STRING as DuckDB macros),
and the search planner that answers approximate top-k, full-text and prefiltered searches from
Lance indexes. engine/sql/query.py calls into this package; nothing here imports
engine/sql/query.py.

May import: `drydock.engine`, `drydock.engine.support`, `drydock.engine.sql`,
`drydock.engine.lakehouse`, `drydock.engine.store`, `drydock.grammar`.
"""
