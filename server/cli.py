"""`drydock serve`: run the server on its embedded defaults."""

from __future__ import annotations

import asyncio
import gc
import logging
import signal
import sys
from pathlib import Path
from typing import Any

import click

from drydock.engine.support.config_keys import Key
from drydock.engine.core import Engine
from drydock.engine.store.frontends import valid_name
from drydock.engine.store.metastore import MetadataStoreUnavailable
from drydock.engine.support.url_secrets import mask_text
from drydock.server.app import DrydockServer
from drydock.server.thread_placement import ThreadPlacement
from drydock.server.tls import TlsConfigError, settings_from_config

# Library loggers that copy statement text (or request bodies) into the server log, with the
# lowest level each may still log at. sqlglot logs every statement it cannot parse verbatim (so any
# user could write arbitrary lines, and SET PASSWORD texts would leak); mysql-mimic logs each query
# at DEBUG. Statement text reaches the log only through drydock's own, redacted, messages.
LIBRARY_LOG_FLOORS = {
    "sqlglot": logging.CRITICAL + 1,  # off
    "mysql_mimic": logging.INFO,
    "botocore": logging.WARNING,
    "boto3": logging.WARNING,
    "s3transfer": logging.WARNING,
    "urllib3": logging.WARNING,
    "pyiceberg": logging.WARNING,
    "fsspec": logging.WARNING,
    "lark": logging.WARNING,
}


LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


class RedactingFormatter(logging.Formatter):
    """Every server log line, tracebacks included, without the credentials of the URLs in it: a
    library may print the endpoint or warehouse URL it failed to reach, userinfo and all."""

    def format(self, record: logging.LogRecord) -> str:
        return mask_text(super().format(record))


def quiet_library_loggers() -> None:
    """Raise third-party loggers to their floor, whatever --log-level says (called at start-up)."""
    for name, floor in LIBRARY_LOG_FLOORS.items():
        library = logging.getLogger(name)
        library.setLevel(max(floor, library.getEffectiveLevel()))


@click.group()
def main() -> None:
    """drydock: a MySQL-wire SQL front end for lakehouse table maintenance."""


@main.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", default=9030, show_default=True, type=int, help="Port (0 = any free port).")
@click.option(
    "--data-dir",
    default="./var/drydock",
    show_default=True,
    type=click.Path(path_type=Path),
    help="Where the metadata store and the internal catalog live.",
)
@click.option(
    "--config",
    "config_file",
    default=None,
    type=click.Path(exists=True, path_type=Path),
    help="TOML file with a [frontend] table of config values.",
)
@click.option(
    "--root-password",
    default="",
    envvar="DRYDOCK_ROOT_PASSWORD",
    help="Password of the root account (default: none).",
)
@click.option(
    "--metadata-store",
    default="",
    envvar="DRYDOCK_METADATA_STORE",
    help="postgresql://user@host:port/db to share metadata between frontends "
    "(config [frontend] metadata_store; default: SQLite in the data directory). "
    "Prefer PGPASSWORD or ~/.pgpass to a password in the URL.",
)
@click.option(
    "--frontend-name",
    default="",
    metavar="NAME",
    help="This frontend's name among those sharing a metadata store (SHOW FRONTENDS); "
    "default: one kept in the data directory.",
)
@click.option("--log-level", default="WARNING", show_default=True)
@click.option(
    "--metrics-port",
    default=None,
    type=int,
    help="Serve Prometheus metrics on 127.0.0.1:PORT (0 = any free port; default: off).",
)
@click.option(
    "--tls-cert",
    default=None,
    type=click.Path(exists=True, dir_okay=False),
    help="PEM certificate (chain) to offer TLS with (config tls_cert; default: TLS off).",
)
@click.option(
    "--tls-key",
    default=None,
    type=click.Path(exists=True, dir_okay=False),
    help="PEM private key of --tls-cert (config tls_key; default: in the cert file).",
)
@click.option(
    "--require-secure-transport",
    is_flag=True,
    default=None,
    help="Refuse plain-text logins with error 3159 (config require_secure_transport).",
)
def serve(
    host: str,
    port: int,
    data_dir: Path,
    config_file: Path | None,
    root_password: str,
    log_level: str,
    metrics_port: int | None,
    tls_cert: str | None,
    tls_key: str | None,
    require_secure_transport: bool | None,
    metadata_store: str,
    frontend_name: str,
) -> None:
    """Start the server; prints `drydock ready on HOST:PORT` once it accepts connections."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(RedactingFormatter(LOG_FORMAT))
    logging.basicConfig(level=log_level.upper(), handlers=[handler])
    quiet_library_loggers()
    options = {
        "tls_cert": tls_cert,
        "tls_key": tls_key,
        "require_secure_transport": require_secure_transport,
    }
    overrides = {k: v for k, v in options.items() if v is not None}
    if frontend_name and not valid_name(frontend_name):
        raise click.BadParameter(
            "letters, digits and _ . : - only, at most 128", param_hint="--frontend-name"
        )
    asyncio.run(
        _serve(
            host,
            port,
            data_dir,
            config_file,
            root_password,
            metrics_port,
            overrides,
            metadata_store,
            frontend_name,
        )
    )


async def _serve(
    host: str,
    port: int,
    data_dir: Path,
    config_file: Path | None,
    root_password: str,
    metrics_port: int | None,
    overrides: dict[str, Any],
    metadata_store: str = "",
    frontend_name: str = "",
) -> None:
    try:
        engine = Engine(
            data_dir,
            config_file=config_file,
            root_password=root_password,
            config_overrides=overrides,
            metadata_store=metadata_store,
            frontend_name=frontend_name,
            query_port=port,
        )
    except MetadataStoreUnavailable as exc:  # the message names the store without its password
        raise click.ClickException(str(exc)) from None
    try:
        tls_settings = settings_from_config(engine.config)
    except TlsConfigError as exc:
        engine.close()
        raise click.ClickException(str(exc)) from None
    if metrics_port is not None:
        bound = engine.metrics.serve(metrics_port)
        print(f"drydock metrics on 127.0.0.1:{bound}", file=sys.stderr, flush=True)
    server = DrydockServer(engine, tls_settings)
    bound_host, bound_port = await server.start(host, port)
    engine.frontend.listening_on(bound_host, bound_port)  # what SHOW FRONTENDS tells clients
    engine.start_background()
    placement = ThreadPlacement()
    if engine.config.get(Key.PIN_PYTHON_THREADS):
        placement.start()
    gc.freeze()  # start-up objects leave the collector's working set (server/memory.py)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    print(tls_settings.describe(), file=sys.stderr, flush=True)
    print(f"drydock ready on {bound_host}:{bound_port}", flush=True)
    await stop.wait()
    placement.stop()
    await server.close()
    engine.close()
