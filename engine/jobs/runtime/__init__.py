"""The runtime side of index jobs: the backends that run a dispatched build and report its
result, each implementing ``Backend`` (engine/jobs/control/backend.py) — the in-process supervisor
of isolated worker processes (``supervisor.py``, ``supervisor_state.py``, ``worker_spawn.py``,
``worker_monitor.py``, ``worker_reaping.py``, ``isolation.py``, ``protocol.py``, ``worker_env.py``,
``stderr_log.py``) and the Ray backend (``ray_backend.py``, ``ray_build.py``,
``ray_tasks.py``, ``segment_files.py``).

May import: `drydock.engine`, `drydock.engine.support`, `drydock.engine.store`,
`drydock.engine.lakehouse`, `drydock.engine.jobs.control`, `drydock.engine.jobs`,
`drydock.engine.security`.
"""
