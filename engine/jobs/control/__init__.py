"""The control side of index jobs: what may happen and what did. ``states.py`` is the state machine
as data (pure, tested exhaustively); ``manager.py`` applies transitions under one lock with a
revision check, on the view and reads of ``job_view.py``, the insert of ``job_inserts.py`` and the
worker records of ``worker_records.py``; ``admission.py``, ``validation.py``, ``contract.py``,
``quotas.py`` decide what is admitted; ``dispatcher.py`` drives jobs to an outcome through a
backend whose contract — the ``Backend`` protocol, its events and the messages both sides exchange
— is ``backend.py`` (control never imports runtime); ``reconcile.py``, ``refresh.py``,
``retention.py``, ``visibility.py``, ``catalog_guard.py`` do the rest.

May import: `drydock.engine`, `drydock.engine.support`, `drydock.engine.store`,
`drydock.engine.security`, `drydock.grammar`, `drydock.engine.lakehouse`, `drydock.engine.sql`.
"""
