"""The names of the frontend config fields (engine/config.py registers their types and defaults).

A module of its own, free of imports, so that modules config.py itself imports can name keys too."""

from __future__ import annotations

from enum import StrEnum

class Key(StrEnum):
    """Every field's name, for code that reads one: ``config.get(Key.X)``, so a misspelt name fails
    type-checking instead of raising CONFIG_UNKNOWN at run time (tested equal to the registry)."""

    ENABLE_LANCE_INDEX_MUTATION = "enable_lance_index_mutation"
    ENABLE_LANCE_INDEX_LOCAL_FILE_MUTATION = "enable_lance_index_local_file_mutation"
    LANCE_INDEX_JOB_MAX_UNRESOLVED_PER_TABLE = "lance_index_job_max_unresolved_per_table"
    LANCE_INDEX_JOB_MAX_UNRESOLVED_PER_CATALOG = "lance_index_job_max_unresolved_per_catalog"
    LANCE_INDEX_JOB_MAX_UNRESOLVED_GLOBAL = "lance_index_job_max_unresolved_global"
    LANCE_INDEX_MAX_NUM_PARTITIONS = "lance_index_max_num_partitions"
    LANCE_INDEX_MAX_NUM_SUB_VECTORS = "lance_index_max_num_sub_vectors"
    LANCE_INDEX_JOB_KEEP_MAX_SECOND = "lance_index_job_keep_max_second"
    LANCE_INDEX_JOB_CLEAN_INTERVAL_SECOND = "lance_index_job_clean_interval_second"
    LANCE_INDEX_JOB_DISPATCH_INTERVAL_SECOND = "lance_index_job_dispatch_interval_second"
    LANCE_INDEX_JOB_EXECUTE_DEADLINE_SECOND = "lance_index_job_execute_deadline_second"
    LANCE_INDEX_JOB_MAX_DISPATCH_PER_ROUND = "lance_index_job_max_dispatch_per_round"
    LANCE_INDEX_JOB_MAX_INFLIGHT_PER_BACKEND = "lance_index_job_max_inflight_per_backend"
    LANCE_INDEX_JOB_REFRESH_RETRY_SECOND = "lance_index_job_refresh_retry_second"
    LANCE_INDEX_JOB_DISPATCHER_PAUSED = "lance_index_job_dispatcher_paused"
    LANCE_INDEX_WORKER_ISOLATION = "lance_index_worker_isolation"
    LANCE_INDEX_WORKER_MEMORY_LIMIT_BYTES = "lance_index_worker_memory_limit_bytes"
    LANCE_INDEX_WORKER_PIDS_MAX = "lance_index_worker_pids_max"
    LANCE_INDEX_WORKER_WALLCLOCK_LIMIT_SECONDS = "lance_index_worker_wallclock_limit_seconds"
    LANCE_INDEX_WORKER_REPORT_MARGIN_SECONDS = "lance_index_worker_report_margin_seconds"
    LANCE_INDEX_WORKER_TERMINATION_GRACE_SECONDS = "lance_index_worker_termination_grace_seconds"
    LANCE_INDEX_WORKER_QUEUE_CAPACITY = "lance_index_worker_queue_capacity"
    LANCE_INDEX_WORKER_RAYON_THREADS = "lance_index_worker_rayon_threads"
    LANCE_INDEX_WORKER_IO_THREADS = "lance_index_worker_io_threads"
    LANCE_INDEX_WORKER_BACKEND = "lance_index_worker_backend"
    LANCE_INDEX_RAY_ADDRESS = "lance_index_ray_address"
    LANCE_INDEX_RAY_SEGMENTS = "lance_index_ray_segments"
    LANCE_INDEX_RAY_TASK_MEMORY_BYTES = "lance_index_ray_task_memory_bytes"
    PROCEDURE_TIMEOUT_SECOND = "procedure_timeout_second"
    PROCEDURE_MAX_DELETES = "procedure_max_deletes"
    MAX_STATEMENT_BYTES = "max_statement_bytes"
    MAX_STATEMENT_TOKENS = "max_statement_tokens"
    STATEMENTS_THREADS = "statements_threads"
    MAINTENANCE_THREADS = "maintenance_threads"
    PIN_PYTHON_THREADS = "pin_python_threads"
    CATALOG_ALLOWED_LOCAL_ROOTS = "catalog_allowed_local_roots"
    CATALOG_ALLOWED_OBJECT_PREFIXES = "catalog_allowed_object_prefixes"
    AUDIT_LOG_MAX_BYTES = "audit_log_max_bytes"
    AUDIT_LOG_FILES_KEPT = "audit_log_files_kept"
    AUDIT_FAILED_LOGIN_INTERVAL_SECOND = "audit_failed_login_interval_second"
    AUDIT_FAILED_LOGIN_MAX_BYTES_PER_MINUTE = "audit_failed_login_max_bytes_per_minute"
    TLS_CERT = "tls_cert"
    TLS_KEY = "tls_key"
    REQUIRE_SECURE_TRANSPORT = "require_secure_transport"
    FRONTEND_LEASE_SECOND = "frontend_lease_second"

