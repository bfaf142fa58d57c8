"""Lance index jobs, durable and crash-safe: ``control/`` decides (the state machine as data,
records, manager, admission, dispatcher, reconcile, refresh, retention), ``runtime/`` runs builds
(the local supervisor of isolated worker processes, the Ray backend) and ``worker.py`` is the
worker process itself (``python -m drydock.engine.jobs.worker``).

May import: `drydock.engine`, `drydock.engine.support`, `drydock.engine.store`,
`drydock.engine.lakehouse`, `drydock.engine.jobs.control`, `drydock.engine.jobs.runtime`.
"""
