"""Search with the indexes drydock builds.

- Vector values and the exact functions: ``vectors.py`` (constant query vectors read from the
  AST), ``vector_functions.py`` (l2_distance, inner_product, cosine_distance, l1_distance,
  STRING_TO_VECTOR, VECTOR_TO_STRING as DuckDB macros).
- The search planner, which answers approximate top-k, filtered, range and full-text searches of
  Lance tables with pylance: ``planner.py`` (and ``vector_plan.py``, ``full_text.py``), the
  conditions Lance applies first (``lance_filter.py``), the indexes of a dataset version
  (``indexes.py``), one table's search (``table_search.py``), the session's parameters
  (``settings.py``); a statement that only selects the rows a search found, in its order, is
  answered from them without a DuckDB statement (``direct_answer.py``).

engine/sql/query.py calls into this package; nothing here imports engine/sql.

May import: `drydock.engine`, `drydock.engine.support`, `drydock.engine.lakehouse`,
`drydock.grammar`.
"""
