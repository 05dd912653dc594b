"""Settings: a connection string or its parts, the password from the credential, never printed."""

from __future__ import annotations

from pathlib import Path

import pytest

import tinymemory as tm
from tinymemory_postgres import ServerSettings
from tinymemory_postgres.cluster import PASSWORD, TEST_CONNINFO_VARIABLE, ThrowawayCluster
from tinymemory_postgres.plugin import test_settings as postgres_test_settings

WRONG = "not-the-password-42"


def _tcp(cluster: ThrowawayCluster, schema: str, **extra: object) -> tm.EngineSettings:
    return tm.EngineSettings(options={**cluster.tcp_parts, "schema": schema, **extra})


def test_the_password_comes_from_the_credential(cluster: ThrowawayCluster) -> None:
    credential = tm.EngineCredential.static(PASSWORD)
    with tm.build_engine("postgres", _tcp(cluster, "over_tcp"), credential) as engine:
        engine.store(tm.Learning(text="reached over 127.0.0.1 with a password"))
        assert len(engine.list(tm.ListRequest()).items) == 1
        assert PASSWORD not in repr(engine)
        assert PASSWORD not in repr(engine.settings)  # type: ignore[attr-defined]


def test_a_wrong_password_is_unauthorized_and_never_printed(cluster: ThrowawayCluster) -> None:
    with pytest.raises(tm.Unauthorized) as refused:
        tm.build_engine("postgres", _tcp(cluster, "wrong"), tm.EngineCredential.static(WRONG))
    assert "password authentication failed" in str(refused.value)
    assert WRONG not in str(refused.value)
    assert WRONG not in repr(refused.value)


def test_no_password_over_tcp_is_unauthorized(cluster: ThrowawayCluster) -> None:
    with pytest.raises(tm.Unauthorized, match="no password supplied"):
        tm.build_engine("postgres", _tcp(cluster, "none"))


def test_a_password_in_the_connection_string_is_refused_unprinted() -> None:
    options = {"conninfo": f"host=db.internal user=agent password={WRONG}"}
    with pytest.raises(tm.ConfigError, match="credential") as refused:
        ServerSettings.from_options(options)
    assert WRONG not in str(refused.value)
    url = {"conninfo": f"postgresql://agent:{WRONG}@db.internal/memory"}
    with pytest.raises(tm.ConfigError, match="credential") as refused:
        ServerSettings.from_options(url)
    assert WRONG not in str(refused.value)


def test_a_malformed_connection_string_is_a_config_error_unprinted() -> None:
    with pytest.raises(tm.ConfigError, match="not a valid libpq") as refused:
        ServerSettings.from_options({"conninfo": f"host='unclosed password={WRONG}"})
    assert WRONG not in str(refused.value)


def test_parts_override_the_connection_string_and_tls_options_reach_libpq() -> None:
    settings = ServerSettings.from_options(
        {
            "conninfo": "host=db.internal dbname=memory",
            "port": 6432,
            "user": "agent",
            "sslmode": "verify-full",
            "sslrootcert": "/etc/ssl/ca.pem",
            "pool_size": 8,
            "schema": "team_a",
        }
    )
    conninfo = settings.conninfo(tm.EngineCredential.static(WRONG))
    expected = ["host=db.internal", "dbname=memory", "port=6432", "user=agent"]
    expected += ["sslmode=verify-full", "sslrootcert=/etc/ssl/ca.pem", f"password={WRONG}"]
    for part in expected:
        assert part in conninfo
    assert settings.pool_size == 8
    assert repr(settings) == "<ServerSettings db.internal:6432/memory schema team_a pool_size=8>"
    assert WRONG not in repr(settings)


def test_tls_required_of_a_server_without_it_is_unavailable(cluster: ThrowawayCluster) -> None:
    settings = _tcp(cluster, "tls", sslmode="require", connect_timeout=2)
    with pytest.raises(tm.Unavailable, match="SSL"):
        tm.build_engine("postgres", settings, tm.EngineCredential.static(PASSWORD))


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"path": "x"}, "no option `path`"),
        ({"schema": "Has Spaces"}, "`schema` must be"),
        ({"schema": "pg_catalog"}, "must not start with `pg_`"),
        ({"pool_size": 0}, "`pool_size`"),
        ({"pool_size": True}, "`pool_size`"),
        ({"port": "five"}, "`port` must be a whole number"),
        ({"sslmode": "sometimes"}, "`sslmode` must be one of"),
        ({"host": ""}, "`host` must be non-empty text"),
        ({"conninfo": 5}, "`conninfo` must be a connection string"),
        ({"embedder": "no-such-embedder"}, "no embedder named `no-such-embedder`"),
        ({"answerer": "no-such-answerer"}, "no answerer named `no-such-answerer`"),
        ({"answerer": 3}, "`answerer` must be an answerer's name"),
    ],
)
def test_bad_options_are_config_errors_before_any_connection(
    options: dict[str, object], message: str
) -> None:
    # host points nowhere reachable; the error must come before any attempt to connect.
    settings = tm.EngineSettings(options={"host": "/nonexistent", **options})
    with pytest.raises(tm.ConfigError, match=message):
        tm.build_engine("postgres", settings)


def test_an_unreachable_server_is_unavailable(tmp_path: Path) -> None:
    settings = tm.EngineSettings(options={"host": str(tmp_path), "port": 1, "user": "x"})
    with pytest.raises(tm.Unavailable, match="cannot open the memory"):
        tm.build_engine("postgres", settings)


def test_test_settings_need_a_server_and_give_a_schema_per_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(TEST_CONNINFO_VARIABLE, raising=False)
    with pytest.raises(tm.ConfigError, match=TEST_CONNINFO_VARIABLE):
        postgres_test_settings(tmp_path)
    monkeypatch.setenv(TEST_CONNINFO_VARIABLE, "host=/tmp/x")
    first = postgres_test_settings(tmp_path / "a")
    second = postgres_test_settings(tmp_path / "b")
    assert first.options["conninfo"] == "host=/tmp/x"
    assert first.options["schema"] != second.options["schema"]
    assert str(first.options["schema"]).startswith("tm_test_")
