"""What a worker process inherits: an explicit environment allow-list, never the server's whole one.

Storage credentials reach the worker only inside the DISPATCH frame (its ``storage_options``), never
through the environment: ambient AWS credentials the server process itself would use for an s3://
dataset are lifted into the dispatch's options (where the catalog gave none) and every other
``AWS_*`` variable stays behind.
"""

from __future__ import annotations

from collections.abc import Mapping

# PYTHONPATH passes: a server that found drydock through it (another checkout measured by a bench)
# runs workers of the same checkout; an installed drydock is found by the interpreter itself.
PASSED = frozenset(
    {
        "PATH",
        "PYTHONPATH",
        "HOME",
        "USER",
        "LOGNAME",
        "LANG",
        "LANGUAGE",
        "TZ",
        "TMPDIR",
        "TEMP",
        "TMP",
        "PYTHONHOME",
        "SSL_CERT_FILE",
        "SSL_CERT_DIR",
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "NO_PROXY",
        "http_proxy",
        "https_proxy",
        "no_proxy",
        "RUST_BACKTRACE",
        "RUST_LOG",
    }
)
PASSED_PREFIXES = (
    "LC_",
    "LANCE_",
    "DRYDOCK_FAULT_WORKER_",
)  # the last: test-only faults (engine/support/faults.py)

# ambient variable → object_store option (the names lance's storage_options accept)
AMBIENT_CREDENTIALS = {
    "AWS_ACCESS_KEY_ID": "aws_access_key_id",
    "AWS_SECRET_ACCESS_KEY": "aws_secret_access_key",
    "AWS_SESSION_TOKEN": "aws_session_token",
    "AWS_REGION": "aws_region",
    "AWS_DEFAULT_REGION": "aws_region",
    "AWS_ENDPOINT": "aws_endpoint",
    "AWS_ENDPOINT_URL": "aws_endpoint",
}


def worker_environment(source: Mapping[str, str], settings: Mapping[str, str]) -> dict[str, str]:
    """The allow-listed part of ``source``, then ``settings`` (the thread and allocator variables
    and the worker's own parameters), which win."""
    env = {k: v for k, v in source.items() if k in PASSED or k.startswith(PASSED_PREFIXES)}
    env.update(settings)
    return env


def with_ambient_credentials(
    uri: str, options: dict[str, str], source: Mapping[str, str]
) -> dict[str, str]:
    """``options`` plus the server's ambient AWS credentials for an s3:// dataset, where not set."""
    if not uri.lower().startswith(("s3://", "s3a://")):
        return options
    lifted = dict(options)
    for variable, option in AMBIENT_CREDENTIALS.items():
        if source.get(variable) and option not in lifted:
            lifted[option] = source[variable]
    return lifted
