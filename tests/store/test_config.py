"""The config registry: types, validators, experimental names, persistence, cross-thread barrier."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from drydock.engine.store.config import Config, default_fields
from drydock.engine.errors import DrydockError
from drydock.engine.store.metastore import MetaStore
from tests.conftest import ServerProcess, make_server

REFERENCE_DEFAULTS = {
    "lance_index_job_max_unresolved_per_table": 8,
    "lance_index_job_max_unresolved_per_catalog": 64,
    "lance_index_job_max_unresolved_global": 256,
    "lance_index_max_num_partitions": 4096,
    "lance_index_max_num_sub_vectors": 256,
    "lance_index_job_keep_max_second": 604800,
    "lance_index_job_clean_interval_second": 3600,
    "lance_index_job_dispatch_interval_second": 10,
    "lance_index_job_execute_deadline_second": 3600,
    "lance_index_job_max_dispatch_per_round": 16,
    "lance_index_job_max_inflight_per_backend": 2,
    "lance_index_job_refresh_retry_second": 300,
    "lance_index_job_dispatcher_paused": False,
    # drydock's documented differences (docs/doris-compatibility.md): finished and single-node,
    # so on by default
    "enable_lance_index_mutation": True,
    "enable_lance_index_local_file_mutation": True,
}


@pytest.fixture
def config(tmp_path: Path) -> Config:
    return Config(MetaStore(tmp_path / "meta.sqlite"))


def test_every_index_job_config_is_registered_with_its_default(config: Config) -> None:
    for name, default in REFERENCE_DEFAULTS.items():
        assert config.get(name) == default, name


def test_experimental_field_shows_prefixed_and_accepts_both_names(config: Config) -> None:
    keys = [row[0] for row in config.rows()]
    assert "experimental_enable_lance_index_mutation" in keys
    assert "enable_lance_index_mutation" not in keys
    config.set("experimental_enable_lance_index_mutation", "false")
    assert config.get("enable_lance_index_mutation") is False
    config.set("enable_lance_index_mutation", "TRUE")
    assert config.get("experimental_enable_lance_index_mutation") is True


@pytest.mark.parametrize(
    "name,value,reason",
    [
        ("lance_index_job_max_unresolved_per_table", "0", "must be a positive long"),
        ("lance_index_job_keep_max_second", "-5", "must be a positive long"),
        ("lance_index_max_num_partitions", "0", "must be a positive int"),
        ("lance_index_max_num_partitions", "9999999999", "out of range for int"),
        ("lance_index_job_max_dispatch_per_round", "abc", "not a valid int"),
        ("lance_index_job_dispatcher_paused", "maybe", "must be true or false"),
    ],
)
def test_invalid_values_are_rejected_naming_field_and_value(
    config: Config, name: str, value: str, reason: str
) -> None:
    before = config.get(name)
    with pytest.raises(DrydockError) as info:
        config.set(name, value)
    assert info.value.message == f"Invalid value '{value}' for config '{name}': {reason}"
    assert config.get(name) == before


def test_unknown_config_is_an_error(config: Config) -> None:
    with pytest.raises(DrydockError) as info:
        config.set("no_such_thing", "1")
    assert info.value.message == "Config 'no_such_thing' does not exist"


def test_values_persist_in_the_store(tmp_path: Path) -> None:
    store = MetaStore(tmp_path / "meta.sqlite")
    Config(store).set("lance_index_job_max_unresolved_global", "77")
    store.close()
    assert (
        Config(MetaStore(tmp_path / "meta.sqlite")).get("lance_index_job_max_unresolved_global")
        == 77
    )


def test_runtime_value_beats_file_value_which_beats_default(tmp_path: Path) -> None:
    store = MetaStore(tmp_path / "meta.sqlite")
    file_values = {
        "lance_index_job_max_unresolved_global": 5,
        "lance_index_job_max_dispatch_per_round": 3,
    }
    config = Config(store, file_values=file_values)
    assert config.get("lance_index_job_max_dispatch_per_round") == 3
    config.set("lance_index_job_max_unresolved_global", "9")
    again = Config(store, file_values=file_values)
    assert again.get("lance_index_job_max_unresolved_global") == 9
    assert again.get("lance_index_job_max_dispatch_per_round") == 3


def test_a_set_is_visible_to_other_threads_and_listeners_before_it_returns(config: Config) -> None:
    seen: list[object] = []
    config.on_change(lambda name, value: seen.append((name, value)))
    config.set("lance_index_job_dispatcher_paused", "true")
    assert seen == [
        ("lance_index_job_dispatcher_paused", True)
    ]  # synchronous, before set() returns
    observed: list[object] = []
    reader = threading.Thread(
        target=lambda: observed.append(config.get("lance_index_job_dispatcher_paused"))
    )
    reader.start()
    reader.join(5)
    assert observed == [True]


def test_every_field_has_a_comment_and_a_doris_type() -> None:
    for field in default_fields():
        assert field.comment
        assert field.type in {"boolean", "int", "long", "String"}


# -- over the wire ------------------------------------------------------------------------------
def test_admin_show_frontend_config_columns_and_like(server: ServerProcess) -> None:
    with server.connect() as conn, conn.cursor() as cur:
        cur.execute("ADMIN SHOW FRONTEND CONFIG LIKE 'lance_index_job_max_unresolved_%'")
        assert [d[0] for d in cur.description] == [
            "Key",
            "Value",
            "Type",
            "IsMutable",
            "MasterOnly",
            "Comment",
        ]
        rows = cur.fetchall()
        assert [r[0] for r in rows] == [
            "lance_index_job_max_unresolved_global",
            "lance_index_job_max_unresolved_per_catalog",
            "lance_index_job_max_unresolved_per_table",
        ]
        assert rows[2][1:5] == ("8", "long", "true", "true")


def test_config_set_at_runtime_survives_restart(server: ServerProcess) -> None:
    server.query(
        'ADMIN SET FRONTEND CONFIG ("lance_index_job_max_unresolved_per_table" = "3", '
        '"experimental_enable_lance_index_mutation" = "false")'
    )
    server.restart()
    rows = {r[0]: r[1] for r in server.query("ADMIN SHOW FRONTEND CONFIG")}
    assert rows["lance_index_job_max_unresolved_per_table"] == "3"
    assert rows["experimental_enable_lance_index_mutation"] == "false"


def test_one_bad_pair_changes_nothing(server: ServerProcess) -> None:
    import pymysql

    with pytest.raises(pymysql.err.OperationalError) as info:
        server.query(
            'ADMIN SET FRONTEND CONFIG ("lance_index_job_max_dispatch_per_round" = "4", '
            '"lance_index_job_max_inflight_per_backend" = "0")'
        )
    assert info.value.args[0] == 1105
    assert "must be a positive int" in info.value.args[1]
    rows = {r[0]: r[1] for r in server.query("ADMIN SHOW FRONTEND CONFIG")}
    assert rows["lance_index_job_max_dispatch_per_round"] == "16"


def test_config_file_values_apply(tmp_path: Path) -> None:
    toml = tmp_path / "drydock.toml"
    toml.write_text("[frontend]\nlance_index_job_max_unresolved_global = 42\n")
    proc = make_server(tmp_path, "--config", str(toml)).start()
    try:
        rows = {r[0]: r[1] for r in proc.query("ADMIN SHOW FRONTEND CONFIG LIKE '%global'")}
        assert rows == {"lance_index_job_max_unresolved_global": "42"}
    finally:
        proc.stop()


def test_config_keys_are_exactly_the_registered_fields() -> None:
    from drydock.engine.store.config import default_fields
    from drydock.engine.support.config_keys import Key

    assert sorted(k.value for k in Key) == sorted(f.name for f in default_fields())
    with pytest.raises(ValueError):
        Key("lance_index_job_keep_max_seconds")  # a misspelling is no key (and fails mypy as Key.X)


def test_product_code_reads_config_through_keys_only() -> None:
    """A string-literal read would fail only at run time; engine/ and server/ use Key members."""
    import re
    from pathlib import Path

    from drydock.engine.store.config import default_fields

    names = "|".join(re.escape(f.name) for f in default_fields())
    root = Path(__file__).resolve().parents[2]
    offenders = [
        str(p.relative_to(root))
        for p in [*(root / "engine").rglob("*.py"), *(root / "server").rglob("*.py")]
        if re.search(rf"\.get\([\"'](?:{names})[\"']\)|\[[\"'](?:{names})[\"']\]", p.read_text())
    ]
    assert offenders == []
