"""Search with the indexes drydock builds: vector values and distance functions, and the search
planner that hands approximate top-k, filtered, range and full-text searches of Lance tables to
pylance (``planner.py``, ``vector_plan.py``, ``full_text.py``, ``lance_filter.py``,
``indexes.py``, ``table_search.py``, ``settings.py``).

May import: `drydock.engine`, `drydock.engine.support`, `drydock.grammar`,
`drydock.engine.lakehouse`.
"""
