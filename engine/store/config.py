"""Typed frontend configuration: one registry of fields, a TOML file, and durable runtime changes.

Precedence: a value set at runtime (``ADMIN SET FRONTEND CONFIG``, persisted in the metadata
store) beats the TOML file, which beats the field's default. A set is a hard barrier: the new value
is stored and published under a lock before the statement returns, so every thread reading the
config afterwards sees it, and listeners (e.g. the dispatcher) are told synchronously.
"""

from __future__ import annotations

import logging
import re
import threading
import time
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from drydock.engine.support.locations import check_local_roots, check_object_prefixes
from drydock.engine.support.config_keys import Key
from drydock.engine.errors import DrydockError, Errors
from drydock.engine.store.metastore import MetadataStore
from drydock.engine.support.url_secrets import mask_value

logger = logging.getLogger(__name__)

Validator = Callable[[Any], str | None]  # returns the reason a value is rejected, or None


def positive_long(value: Any) -> str | None:
    return None if value > 0 else "must be a positive long"


def positive_int(value: Any) -> str | None:
    return None if value > 0 else "must be a positive int"


INT_MAX = 2**31 - 1
LONG_MAX = 2**63 - 1
_MISSING = object()  # Config.get: "no value under this exact name"


@dataclass(frozen=True)
class ConfigField:
    name: str
    type: str  # "boolean" | "int" | "long" | "String" (Doris' spellings)
    default: Any
    comment: str
    mutable: bool = True
    master_only: bool = False
    experimental: bool = False
    validator: Validator | None = None

    @property
    def display_name(self) -> str:
        return f"experimental_{self.name}" if self.experimental else self.name

    def parse(self, text: str) -> Any:
        """Turn the SQL text of a value into the field's type, or raise CONFIG_INVALID."""
        raw = text.strip()
        try:
            if self.type == "boolean":
                lowered = raw.lower()
                if lowered not in ("true", "false"):
                    raise ValueError("must be true or false")
                value: Any = lowered == "true"
            elif self.type in ("int", "long"):
                value = int(raw)
                limit = INT_MAX if self.type == "int" else LONG_MAX
                if not -limit - 1 <= value <= limit:
                    raise ValueError(f"out of range for {self.type}")
            else:
                value = raw
        except ValueError as exc:
            reason = (
                str(exc)
                if "must" in str(exc) or "range" in str(exc)
                else f"not a valid {self.type}"
            )
            raise Errors.CONFIG_INVALID.error(name=self.name, value=text, reason=reason) from None
        if self.validator is not None:
            problem = self.validator(value)
            if problem is not None:
                raise Errors.CONFIG_INVALID.error(name=self.name, value=text, reason=problem)
        return value

    def render(self, value: Any) -> str:
        if self.type == "boolean":
            return "true" if value else "false"
        return str(value)


def _index_job_fields() -> list[ConfigField]:
    f = ConfigField
    return [
        f(
            "enable_lance_index_mutation",
            "boolean",
            True,
            "Admit CREATE/DROP INDEX jobs on Lance tables (RESOLVE is never gated)",
            master_only=True,
            experimental=True,
        ),
        f(
            "enable_lance_index_local_file_mutation",
            "boolean",
            True,
            "Allow index jobs on Lance datasets stored on the local file system",
        ),
        f(
            "lance_index_job_max_unresolved_per_table",
            "long",
            8,
            "Unresolved Lance index jobs allowed per table",
            master_only=True,
            validator=positive_long,
        ),
        f(
            "lance_index_job_max_unresolved_per_catalog",
            "long",
            64,
            "Unresolved Lance index jobs allowed per catalog",
            master_only=True,
            validator=positive_long,
        ),
        f(
            "lance_index_job_max_unresolved_global",
            "long",
            256,
            "Unresolved Lance index jobs allowed in total",
            master_only=True,
            validator=positive_long,
        ),
        f(
            "lance_index_max_num_partitions",
            "int",
            4096,
            "Upper bound of num_partitions for ANN indexes",
            validator=positive_int,
        ),
        f(
            "lance_index_max_num_sub_vectors",
            "int",
            256,
            "Upper bound of num_sub_vectors for ANN indexes",
            validator=positive_int,
        ),
        f(
            "lance_index_job_keep_max_second",
            "long",
            604800,
            "Retention of resolved Lance index jobs, from their last transition",
            master_only=True,
            validator=positive_long,
        ),
        f(
            "lance_index_job_clean_interval_second",
            "long",
            3600,
            "Period of the resolved-job cleaner",
            master_only=True,
            validator=positive_long,
        ),
        f(
            "lance_index_job_dispatch_interval_second",
            "int",
            10,
            "Period of the dispatcher's sweep round (dispatch itself is event driven)",
            master_only=True,
            validator=positive_int,
        ),
        f(
            "lance_index_job_execute_deadline_second",
            "long",
            3600,
            "Deadline stamped on a job when it is dispatched",
            master_only=True,
            validator=positive_long,
        ),
        f(
            "lance_index_job_max_dispatch_per_round",
            "int",
            16,
            "Jobs dispatched per dispatcher round",
            master_only=True,
            validator=positive_int,
        ),
        f(
            "lance_index_job_max_inflight_per_backend",
            "int",
            2,
            "Possible-live workers per supervisor",
            master_only=True,
            validator=positive_int,
        ),
        f(
            "lance_index_job_refresh_retry_second",
            "int",
            300,
            "Throttle between retries of a FAILED metadata refresh",
            master_only=True,
            validator=positive_int,
        ),
        f(
            "lance_index_job_dispatch_retry_window_second",
            "long",
            600,
            "How long a PENDING job whose dispatch could not be prepared is retried (capped "
            "exponential backoff, 1 s doubling to 60 s) before it ends NOT_COMMITTED",
            master_only=True,
            validator=positive_long,
        ),
        f(
            "lance_index_job_dispatcher_paused",
            "boolean",
            False,
            "Pause the dispatch phase (a hard barrier: nothing is dispatched once set)",
            master_only=True,
        ),
    ]


def isolation_mode(value: object) -> str | None:
    return None if value in ("cgroup", "rlimit") else "must be cgroup or rlimit"


def _worker_fields() -> list[ConfigField]:
    f = ConfigField
    return [
        f(
            "lance_index_worker_isolation",
            "String",
            "cgroup",
            "cgroup (refuse work when the cgroup preflight fails) or rlimit (run with rlimits "
            "only)",
            mutable=False,
            validator=isolation_mode,
        ),
        f(
            "lance_index_worker_memory_limit_bytes",
            "long",
            8 * 2**30,
            "cgroup memory limit of one index worker (no swap)",
            validator=positive_long,
        ),
        f(
            "lance_index_worker_pids_max",
            "int",
            512,
            "cgroup pids limit of one index worker",
            validator=positive_int,
        ),
        f(
            "lance_index_worker_wallclock_limit_seconds",
            "long",
            3600,
            "Longest a worker may run, whatever the job deadline",
            validator=positive_long,
        ),
        f(
            "lance_index_worker_report_margin_seconds",
            "long",
            400,
            "Time kept between a worker's kill deadline and its job's deadline",
            validator=positive_long,
        ),
        f(
            "lance_index_worker_termination_grace_seconds",
            "long",
            10,
            "SIGTERM → SIGKILL grace of a worker past its deadline",
            validator=positive_long,
        ),
        f(
            "lance_index_worker_queue_capacity",
            "int",
            16,
            "Submissions the supervisor may hold",
            validator=positive_int,
        ),
        f(
            "lance_index_worker_rayon_threads",
            "int",
            2,
            "RAYON_NUM_THREADS of a worker (k-means CPU)",
            validator=positive_int,
        ),
        f(
            "lance_index_worker_io_threads",
            "int",
            2,
            "LANCE_IO_THREADS of a worker",
            validator=positive_int,
        ),
    ]


def worker_backend(value: object) -> str | None:
    return None if value in ("local", "ray") else "must be local or ray"


def non_negative(value: Any) -> str | None:
    return None if value >= 0 else "must not be negative"


def _ray_fields() -> list[ConfigField]:
    """The Ray backend (engine/jobs/runtime/ray_backend.py); ray is imported only when it is
    selected."""
    f = ConfigField
    return [
        f(
            "lance_index_worker_backend",
            "String",
            "local",
            "local (a worker process per job on this host) or ray (IVF_PQ builds as Ray tasks)",
            mutable=False,
            validator=worker_backend,
        ),
        f(
            "lance_index_ray_address",
            "String",
            "",
            "host:port of the Ray head (GCS) the ray backend connects to; until it is reachable "
            "jobs wait PENDING",
        ),
        f(
            "lance_index_ray_segments",
            "int",
            0,
            "Index segments per distributed build (0 = the cluster's CPUs)",
            validator=non_negative,
        ),
        f(
            "lance_index_ray_task_memory_bytes",
            "long",
            2**30,
            "Memory Ray reserves for one training or segment task",
            validator=positive_long,
        ),
    ]


def _procedure_fields() -> list[ConfigField]:
    return [
        ConfigField(
            "procedure_timeout_second",
            "long",
            3600,
            "A CALL is cancelled cooperatively after this many seconds",
            validator=positive_long,
        ),
        ConfigField(
            "procedure_max_deletes",
            "long",
            100000,
            "Upper bound of files/snapshots one CALL may delete",
            validator=positive_long,
        ),
    ]


def _statement_fields() -> list[ConfigField]:
    f = ConfigField
    return [
        f(
            "max_statement_bytes",
            "long",
            4 * 2**20,
            "Longest statement text accepted (bytes); longer ones are refused before parsing",
            validator=positive_long,
        ),
        f(
            "max_statement_tokens",
            "long",
            50_000,
            "Parse budget: statements with more SQL tokens are refused before parsing",
            validator=positive_long,
        ),
        f(
            "statements_threads",
            "int",
            8,
            "Worker threads for queries and session statements",
            mutable=False,
            validator=positive_int,
        ),
        f(
            "maintenance_threads",
            "int",
            4,
            "Worker threads for CALL, index-job administration and REFRESH (separate from queries)",
            mutable=False,
            validator=positive_int,
        ),
        f(
            "pin_python_threads",
            "boolean",
            True,
            "Run the server's Python threads on one CPU (GIL hand-overs stay on one core); DuckDB, "
            "Lance and Arrow threads keep every CPU (server/thread_placement.py)",
            mutable=False,
        ),
    ]


_SIZE = re.compile(r"\d+(?:\.\d+)?\s*(?:B|bytes|KB|MB|GB|TB|KiB|MiB|GiB|TiB)", re.IGNORECASE)
_PERCENT = re.compile(r"\d+(?:\.\d+)?\s*%")


def memory_size(value: Any) -> str | None:
    """DuckDB's spelling of a memory limit: a size with its unit, or a percentage of the host's
    memory."""
    text = str(value).strip()
    if _SIZE.fullmatch(text) or (_PERCENT.fullmatch(text) and 0 < float(text.rstrip("% ")) <= 100):
        return None
    return "must be a size with a unit (512MiB, 4GiB, 2GB) or a percentage of memory (1-100%)"


def disk_size(value: Any) -> str | None:
    return (
        None
        if _SIZE.fullmatch(str(value).strip())
        else "must be a size with a unit (512MiB, 10GiB)"
    )


def _bounds_fields() -> list[ConfigField]:
    """What one statement may take (README "Statement bounds"); DuckDB's settings are applied when
    the internal database opens (engine/sql/query.py) and locked there: they take a restart."""
    f = ConfigField
    return [
        f(
            "duckdb_memory_limit",
            "String",
            "25%",
            "DuckDB memory_limit, shared by all statements: a size (4GiB) or a percentage of the "
            "host's "
            "memory; a statement that needs more (after spilling) fails with 1041",
            mutable=False,
            validator=memory_size,
        ),
        f(
            "duckdb_max_temp_directory_size",
            "String",
            "10GiB",
            "DuckDB max_temp_directory_size: what statements may spill to disk, in "
            "<data-dir>/duckdb_temp",
            mutable=False,
            validator=disk_size,
        ),
        f(
            "lance_cache_size",
            "String",
            "1GiB",
            "Memory for the indexes and file metadata of the Lance datasets this frontend reads "
            "(one cache for every Lance catalog, least recently used evicted)",
            mutable=False,
            validator=disk_size,
        ),
        f(
            "max_execution_time",
            "long",
            0,
            "Global max_execution_time (ms; 0 = no limit): a SELECT running longer is interrupted "
            "with 3024. "
            "Sessions copy it when they start; for users without ADMIN it is a ceiling. SET GLOBAL "
            "sets it",
            validator=non_negative,
        ),
        f(
            "vector_search_max_k",
            "long",
            10000,
            "The largest k (LIMIT + OFFSET) of an approximate vector search (ORDER BY "
            "l2_distance_approximate(...) LIMIT k); a larger one is refused with 1235",
            validator=positive_long,
        ),
    ]


def _catalog_fields() -> list[ConfigField]:
    f = ConfigField
    return [
        f(
            "catalog_allowed_local_roots",
            "String",
            "",
            "Comma-separated local directories under which a user without ADMIN may place a "
            "catalog's "
            "warehouse (realpath); empty: only ADMIN may create local catalogs",
            validator=check_local_roots,
        ),
        f(
            "catalog_allowed_object_prefixes",
            "String",
            "",
            "Comma-separated s3://bucket[/prefix] under which a user without ADMIN may place a "
            "catalog's "
            "warehouse; empty: only ADMIN may create object-store catalogs",
            validator=check_object_prefixes,
        ),
        # Remote catalog calls (engine/lakehouse/catalogs/calls.py): a dead endpoint must answer in
        # seconds
        # and must never hold the statements pool (the red team's 56 s stall of other users).
        f(
            "catalog_call_timeout_second",
            "int",
            5,
            "Longest a statement waits for one remote catalog call (listing databases or tables, "
            "loading "
            "a table's schema); past it the statement gets an error, a listing across catalogs a "
            "warning",
            validator=positive_int,
        ),
        f(
            "catalog_failure_cache_second",
            "int",
            10,
            "How long a failed or timed-out catalog call is remembered: statements meanwhile get "
            "the "
            "same answer at once, and the endpoint is not asked again (0: not remembered)",
            validator=non_negative_int,
        ),
        f(
            "catalog_max_stuck_calls",
            "int",
            4,
            "Calls per catalog that may still run past their timeout (each holds a thread until "
            "the "
            "storage library gives up); past it the catalog answers 'not answering' at once",
            validator=positive_int,
        ),
        f(
            "catalog_max_waiting_statements",
            "int",
            32,
            "Statements that may wait on remote catalog calls at once; they give their "
            "statements-pool "
            "slot back while they wait, so other users' statements never queue behind a slow "
            "catalog",
            mutable=False,
            validator=positive_int,
        ),
    ]


def non_negative_int(value: Any) -> str | None:
    return None if value >= 0 else "must be a non-negative int"


def _audit_fields() -> list[ConfigField]:
    f = ConfigField
    return [
        f(
            "audit_log_max_bytes",
            "long",
            64 * 2**20,
            "Size at which audit.jsonl is rotated to audit.jsonl.1",
            validator=positive_long,
        ),
        f(
            "audit_log_files_kept",
            "int",
            5,
            "Rotated audit files kept besides the current one (audit.jsonl.1 ... .N)",
            validator=non_negative_int,
        ),
        f(
            "audit_failed_login_interval_second",
            "int",
            60,
            "Failed logins of one peer address are written at most once per this interval, with a "
            "count",
            validator=positive_int,
        ),
        f(
            "audit_failed_login_max_bytes_per_minute",
            "long",
            64 * 1024,
            "Bytes of failed-login audit records per minute, all peers together; the rest is "
            "counted",
            validator=positive_long,
        ),
    ]


def _tls_fields() -> list[ConfigField]:
    """Read once at start (server/tls.py): changing them takes a restart."""
    f = ConfigField
    return [
        f(
            "tls_cert",
            "String",
            "",
            "PEM certificate (chain) offered for TLS; empty: TLS is off",
            mutable=False,
        ),
        f(
            "tls_key",
            "String",
            "",
            "PEM private key of tls_cert; empty: the key is in tls_cert's file",
            mutable=False,
        ),
        f(
            "require_secure_transport",
            "boolean",
            False,
            "Refuse logins that did not start TLS (error 3159); needs tls_cert",
            mutable=False,
        ),
    ]


def _frontend_fields() -> list[ConfigField]:
    f = ConfigField
    return [
        f(
            "frontend_lease_second",
            "int",
            10,
            "Dispatcher lease of frontends sharing a metadata store: a follower takes over this "
            "long after "
            "the leader's last renewal (heartbeats every third of it)",
            validator=positive_int,
        ),
    ]


def default_fields() -> list[ConfigField]:
    return (
        _index_job_fields()
        + _worker_fields()
        + _ray_fields()
        + _procedure_fields()
        + _statement_fields()
        + _bounds_fields()
        + _catalog_fields()
        + _audit_fields()
        + _tls_fields()
        + _frontend_fields()
    )


def frontend_table(path: Path | None) -> dict[str, Any]:
    """The TOML file's ``[frontend]`` table (empty without a file)."""
    if path is None:
        return {}
    with open(path, "rb") as fh:
        return dict(tomllib.load(fh).get("frontend", {}))


class Config:
    """Field registry plus current values; safe to read from any thread."""

    def __init__(
        self,
        store: MetadataStore,
        fields: list[ConfigField] | None = None,
        file_values: dict[str, Any] | None = None,
    ):
        self._store = store
        self._fields = {f.name: f for f in (fields or default_fields())}
        self._aliases = {f.display_name: f.name for f in self._fields.values()}
        self._lock = (
            threading.Lock()
        )  # guards _values; never held over I/O (readers run on the event loop)
        self._write_lock = threading.Lock()  # serializes set(): store order = publish order
        self._values: dict[str, Any] = {n: f.default for n, f in self._fields.items()}
        self._listeners: list[Callable[[str, Any], None]] = []
        for name, value in (file_values or {}).items():
            field = self.field(name)
            self._values[field.name] = field.parse(
                str(value).lower() if isinstance(value, bool) else str(value)
            )
        self._stored: dict[
            str, str
        ] = {}  # the store's rows as last read: reload() publishes what differs
        for row in store.query("SELECT name, value FROM config"):
            if row["name"] in self._fields:  # a field removed in a later version is ignored
                self._values[row["name"]] = self._fields[row["name"]].parse(row["value"])
                self._stored[row["name"]] = row["value"]

    @classmethod
    def from_toml(
        cls, store: MetadataStore, path: Path | None, overrides: dict[str, Any] | None = None
    ) -> Config:
        """``overrides`` (command-line options) beat the file's values."""
        values = frontend_table(path)
        # Where the store lives is chosen before the store opens (engine.core), not a config value
        # kept in it; and it may carry a password, which ADMIN SHOW FRONTEND CONFIG must not show.
        values.pop("metadata_store", None)
        values.update(overrides or {})
        return cls(store, file_values=values)

    def field(self, name: str) -> ConfigField:
        key = name.strip().lower()
        key = self._aliases.get(key, key)
        if key not in self._fields:
            raise Errors.CONFIG_UNKNOWN.error(name=name)
        return self._fields[key]

    def fields(self) -> list[ConfigField]:
        return sorted(self._fields.values(), key=lambda f: f.display_name)

    def get(self, name: Key) -> Any:
        return self.value_of(name)

    def value_of(self, name: str) -> Any:
        """By any spelling a user may write (aliases, case): ADMIN statements and the TOML file."""
        with self._lock:
            # the code asks by canonical name (an admission asks ~20 times): one lookup; any
            # other spelling (aliases, case, spaces) resolves through field() as before
            value = self._values.get(name, _MISSING)
            return self._values[self.field(name).name] if value is _MISSING else value

    def on_change(self, listener: Callable[[str, Any], None]) -> None:
        self._listeners.append(listener)

    def set(self, name: str, text: str) -> None:
        """Validate, persist, publish; returns only once every thread will see the new value."""
        field = self.field(name)
        if not field.mutable:
            raise Errors.CONFIG_NOT_MUTABLE.error(name=field.display_name)
        value = field.parse(text)
        with self._write_lock:
            with self._store.transaction() as db:
                db.execute(
                    "INSERT INTO config(name, value, revision, updated_at) VALUES (?, ?, 0, ?) "
                    "ON CONFLICT(name) DO UPDATE SET value = excluded.value, "
                    "revision = config.revision + 1, updated_at = excluded.updated_at",
                    (field.name, field.render(value), time.time()),
                )
            with self._lock:
                self._values[field.name] = value
            self._stored[field.name] = field.render(value)
        for listener in list(self._listeners):
            listener(field.name, value)

    def reload(self) -> list[str]:
        """Publish what another frontend stored since (ADMIN SET FRONTEND CONFIG there); the names
        that changed. A value this version cannot parse keeps the current one (and is logged)."""
        changed: list[tuple[str, Any]] = []
        with self._write_lock:
            for row in self._store.query("SELECT name, value FROM config"):
                name, text = row["name"], row["value"]
                if name not in self._fields or self._stored.get(name) == text:
                    continue
                self._stored[name] = text
                try:
                    value = self._fields[name].parse(text)
                except DrydockError:
                    logger.warning("config %s: stored value not applied", name, exc_info=True)
                    continue
                with self._lock:
                    self._values[name] = value
                changed.append((name, value))
        for name, value in changed:
            for listener in list(self._listeners):
                listener(name, value)
        return [name for name, _ in changed]

    def rows(self) -> list[tuple[str, str, str, str, str, str]]:
        with self._lock:
            values = dict(self._values)
        return [
            (
                f.display_name,
                mask_value(f.render(values[f.name])),
                f.type,
                str(f.mutable).lower(),
                str(f.master_only).lower(),
                f.comment,
            )
            for f in self.fields()
        ]
