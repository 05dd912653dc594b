"""The registry: ``list_engines``, ``build_engine`` and ``MemoryConfig``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tinymemory._engine import EngineDescriptor, MemoryEngine
from tinymemory._errors import ConfigError
from tinymemory._hookspecs import EngineFactory, hookimpl
from tinymemory._operations import FetchMode
from tinymemory._plugin_manager import plugin_manager
from tinymemory._registry import (
    DEFAULT_ENGINE,
    MemoryConfig,
    build_engine,
    default_config_path,
    list_engines,
)
from tinymemory._scrubbing import ScrubbingEngine
from tinymemory._settings import EngineCredential, EngineSettings
from tinymemory.reference import DESCRIPTOR as REFERENCE
from tinymemory.reference import ReferenceEngine

KEY = "sk-test-SECRET123456"

Register = Callable[..., None]


@pytest.fixture
def plugins(builtin_plugins: None) -> Register:
    """Registers plugins beside the built-ins (installed entry points are left out)."""

    def register(*objects: object) -> None:
        for plugin in objects:
            plugin_manager().register(plugin)

    return register


class Built:
    """What a test factory was called with."""

    def __init__(self) -> None:
        self.calls: list[tuple[EngineSettings, EngineCredential]] = []


def engine_plugin(
    descriptor: EngineDescriptor,
    build: Callable[[EngineSettings, EngineCredential], MemoryEngine] | None = None,
) -> tuple[object, Built]:
    built = Built()

    def default_build(settings: EngineSettings, credential: EngineCredential) -> MemoryEngine:
        built.calls.append((settings, credential))
        return ReferenceEngine()

    class Plugin:
        @hookimpl
        def tinymemory_engines(self) -> list[EngineFactory]:
            return [EngineFactory(descriptor=descriptor, build=build or default_build)]

    return Plugin(), built


def descriptor(engine_id: str = "remote", **needs: object) -> EngineDescriptor:
    return EngineDescriptor(
        id=engine_id,
        label=f"Test {engine_id}",
        description="an engine made up by the tests",
        fetch_modes=("hybrid",),
        **needs,  # type: ignore[arg-type]
    )


# --- list_engines / build_engine --------------------------------------------


def test_list_engines_holds_the_reference_descriptor(plugins: Register) -> None:
    engines = list_engines()
    assert engines == [REFERENCE]
    (reference,) = engines
    assert reference.id == "reference"
    assert reference.fetch_modes == (FetchMode.KEYWORD, FetchMode.VECTOR, FetchMode.HYBRID)
    assert not reference.needs_endpoint
    assert not reference.needs_key


def test_list_engines_sees_a_registered_plugin_after_the_builtins(plugins: Register) -> None:
    plugin, _ = engine_plugin(descriptor("extra"))
    plugins(plugin)
    assert [engine.id for engine in list_engines()] == ["reference", "extra"]


def test_build_reference_without_settings(plugins: Register) -> None:
    engine = build_engine("reference")
    assert isinstance(engine, ReferenceEngine)
    assert engine.descriptor == REFERENCE


def test_build_reference_with_settings_and_no_credential(plugins: Register) -> None:
    settings = EngineSettings(scope_root="org:1", options={"path": "/nowhere"})
    engine = build_engine("reference", settings, EngineCredential.none())
    assert isinstance(engine, ReferenceEngine)


def test_build_hands_the_factory_its_settings_and_credential(plugins: Register) -> None:
    plugin, built = engine_plugin(descriptor(needs_endpoint=True, needs_key=True))
    plugins(plugin)
    settings = EngineSettings(endpoint="https://memory.example.com", tenant_root="org:7")
    credential = EngineCredential.static(KEY)
    build_engine("remote", settings, credential)
    assert built.calls == [(settings, credential)]


def test_unknown_engine_lists_the_installed_ones(plugins: Register) -> None:
    plugin, _ = engine_plugin(descriptor("extra"))
    plugins(plugin)
    with pytest.raises(ConfigError, match="unknown engine `nope`") as caught:
        build_engine("nope")
    assert "installed engines: extra, reference" in str(caught.value)
    assert "pip install" not in str(caught.value)


def test_missing_default_engine_hints_its_distribution(plugins: Register) -> None:
    with pytest.raises(ConfigError, match="pip install plugins/tinymemory-sqlite") as caught:
        build_engine(DEFAULT_ENGINE)
    assert "installed engines: reference" in str(caught.value)


def test_an_engine_needing_an_endpoint_refuses_to_build_without_one(plugins: Register) -> None:
    plugin, built = engine_plugin(descriptor(needs_endpoint=True))
    plugins(plugin)
    with pytest.raises(ConfigError, match="needs an endpoint"):
        build_engine("remote")
    with pytest.raises(ConfigError, match="needs an endpoint"):
        build_engine("remote", EngineSettings(endpoint=""))
    assert built.calls == []


def test_a_default_endpoint_satisfies_an_engine_needing_one(plugins: Register) -> None:
    plugin, built = engine_plugin(
        descriptor(needs_endpoint=True, default_endpoint="https://memory.example.com")
    )
    plugins(plugin)
    build_engine("remote")
    assert len(built.calls) == 1


def test_the_default_endpoint_is_checked_too(plugins: Register) -> None:
    plugin, built = engine_plugin(
        descriptor(needs_key=True, default_endpoint="http://memory.example.com")
    )
    plugins(plugin)
    with pytest.raises(ConfigError, match="cleartext"):
        build_engine("remote", credential=EngineCredential.static(KEY))
    assert built.calls == []


def test_an_engine_needing_a_key_refuses_to_build_without_one(plugins: Register) -> None:
    plugin, built = engine_plugin(descriptor(needs_key=True))
    plugins(plugin)
    with pytest.raises(ConfigError, match="needs a key"):
        build_engine("remote", EngineSettings(endpoint="https://memory.example.com"))
    with pytest.raises(ConfigError, match="needs a key"):
        build_engine("remote", credential=EngineCredential.none())
    assert built.calls == []


@pytest.mark.parametrize(
    "endpoint",
    [
        "http://memory.example.com",
        "http://10.0.0.5:8080/v1",
        "HTTP://Memory.Example.com/",
        "http://memory.localhost",  # a resolver may send *.localhost elsewhere
    ],
)
def test_a_credential_over_cleartext_to_another_host_is_refused(
    plugins: Register, endpoint: str
) -> None:
    plugin, built = engine_plugin(descriptor(needs_key=True))
    plugins(plugin)
    with pytest.raises(ConfigError, match="cleartext"):
        build_engine("remote", EngineSettings(endpoint=endpoint), EngineCredential.static(KEY))
    assert built.calls == []


@pytest.mark.parametrize(
    "endpoint",
    [
        "https://memory.example.com",
        "https://10.0.0.5:8443/v1",
        "http://127.0.0.1:8080",
        "http://127.0.0.1",
        "http://localhost:9000/api",
        "http://LOCALHOST",
        "http://[::1]:8080",
    ],
)
def test_a_credential_over_https_or_to_this_machine_is_allowed(
    plugins: Register, endpoint: str
) -> None:
    plugin, built = engine_plugin(descriptor(needs_key=True))
    plugins(plugin)
    build_engine("remote", EngineSettings(endpoint=endpoint), EngineCredential.static(KEY))
    assert len(built.calls) == 1


def test_a_dynamic_credential_over_cleartext_is_refused_too(plugins: Register) -> None:
    class Tokens:
        def bearer(self) -> str:
            return KEY

    plugin, _ = engine_plugin(descriptor(needs_key=True))
    plugins(plugin)
    with pytest.raises(ConfigError, match="cleartext"):
        build_engine(
            "remote",
            EngineSettings(endpoint="http://memory.example.com"),
            EngineCredential.dynamic(Tokens()),
        )


def test_plain_http_without_a_credential_is_allowed(plugins: Register) -> None:
    plugin, built = engine_plugin(descriptor(needs_endpoint=True))
    plugins(plugin)
    build_engine("remote", EngineSettings(endpoint="http://memory.example.com"))
    assert len(built.calls) == 1


@pytest.mark.parametrize("password", ["hunter2", ""])
def test_a_password_in_the_endpoint_counts_as_a_credential(
    plugins: Register, password: str
) -> None:
    plugin, built = engine_plugin(descriptor(needs_endpoint=True))
    plugins(plugin)
    cleartext = EngineSettings(endpoint=f"http://user:{password}@memory.example.com")
    with pytest.raises(ConfigError, match="cleartext") as caught:
        build_engine("remote", cleartext)
    assert password == "" or password not in str(caught.value)
    assert built.calls == []
    build_engine("remote", EngineSettings(endpoint=f"https://user:{password}@memory.example.com"))
    build_engine("remote", EngineSettings(endpoint=f"http://user:{password}@127.0.0.1:8080"))
    assert len(built.calls) == 2


def test_a_user_name_alone_in_the_endpoint_is_no_credential(plugins: Register) -> None:
    plugin, built = engine_plugin(descriptor(needs_endpoint=True))
    plugins(plugin)
    build_engine("remote", EngineSettings(endpoint="http://user@memory.example.com"))
    assert len(built.calls) == 1


@pytest.mark.parametrize(
    "endpoint",
    [
        "ftp://memory.example.com",
        "file:///etc/passwd",
        "memory.example.com",
        "ws://localhost:8080",
        "https://",
        "http://[::1",
    ],
)
def test_a_non_http_endpoint_is_refused(plugins: Register, endpoint: str) -> None:
    plugin, built = engine_plugin(descriptor(needs_endpoint=True))
    plugins(plugin)
    with pytest.raises(ConfigError, match="endpoint"):
        build_engine("remote", EngineSettings(endpoint=endpoint))
    assert built.calls == []


def test_a_non_http_endpoint_is_refused_even_where_none_is_needed(plugins: Register) -> None:
    with pytest.raises(ConfigError, match="must be an http or https url"):
        build_engine("reference", EngineSettings(endpoint="gopher://example.com"))


def test_a_refused_endpoint_hides_its_password(plugins: Register) -> None:
    with pytest.raises(ConfigError, match="must be an http or https url") as caught:
        build_engine("reference", EngineSettings(endpoint="ftp://user:hunter2@example.com"))
    assert "hunter2" not in str(caught.value)
    assert "ftp://***@example.com" in str(caught.value)


def test_a_failing_factory_becomes_a_redacted_config_error(plugins: Register) -> None:
    def build(settings: EngineSettings, credential: EngineCredential) -> MemoryEngine:
        raise RuntimeError(f"server said no to key {credential.bearer()} at {settings.endpoint}")

    plugin, _ = engine_plugin(descriptor(needs_key=True), build)
    plugins(plugin)
    settings = EngineSettings(endpoint="https://memory.example.com")
    with pytest.raises(ConfigError, match="could not be built") as caught:
        build_engine("remote", settings, EngineCredential.static(KEY))
    error = caught.value
    assert KEY not in str(error)
    assert "RuntimeError: server said no to key *** at https://memory.example.com" in str(error)
    assert error.__cause__ is None
    assert error.__context__ is None


def test_a_failing_factory_hides_the_endpoint_password(plugins: Register) -> None:
    def build(settings: EngineSettings, credential: EngineCredential) -> MemoryEngine:
        raise OSError(f"cannot reach {settings.endpoint}")

    plugin, _ = engine_plugin(descriptor(needs_endpoint=True), build)
    plugins(plugin)
    with pytest.raises(ConfigError, match="could not be built") as caught:
        build_engine("remote", EngineSettings(endpoint="https://user:hunter2@example.com"))
    assert "hunter2" not in str(caught.value)
    assert caught.value.__context__ is None


def test_a_factory_config_error_passes_through(plugins: Register) -> None:
    def build(settings: EngineSettings, credential: EngineCredential) -> MemoryEngine:
        raise ConfigError("option `path` must be a folder")

    plugin, _ = engine_plugin(descriptor(), build)
    plugins(plugin)
    with pytest.raises(ConfigError, match=r"^configuration error: option `path` must be a folder$"):
        build_engine("remote")


def test_two_plugins_claiming_one_engine_id_are_refused(plugins: Register) -> None:
    first, _ = engine_plugin(descriptor("twin"))
    second, _ = engine_plugin(descriptor("twin"))
    plugins(first, second)
    with pytest.raises(ConfigError, match="engine id `twin` is registered by two plugins"):
        list_engines()
    with pytest.raises(ConfigError, match="twin"):
        build_engine("reference")


def test_a_plugin_claiming_the_reference_id_is_refused(plugins: Register) -> None:
    plugin, _ = engine_plugin(descriptor("reference"))
    plugins(plugin)
    with pytest.raises(ConfigError, match="`reference` is registered by two plugins"):
        list_engines()


def test_a_plugin_returning_a_non_factory_is_refused(plugins: Register) -> None:
    class Wrong:
        @hookimpl
        def tinymemory_engines(self) -> list[object]:
            return [REFERENCE]

    plugins(Wrong())
    with pytest.raises(ConfigError, match="EngineDescriptor where a EngineFactory belongs"):
        list_engines()


# --- MemoryConfig -----------------------------------------------------------


def test_config_defaults() -> None:
    config = MemoryConfig()
    assert config.engine == DEFAULT_ENGINE == "sqlite"
    assert dict(config.engines) == {}
    assert config.settings_for("sqlite") == EngineSettings()


def test_config_engines_must_hold_settings() -> None:
    with pytest.raises(ConfigError, match="engine `x` must be EngineSettings"):
        MemoryConfig(engines={"x": {"endpoint": "https://e"}})  # type: ignore[dict-item]


FULL = """
engine = "cortexdb"

[engines.cortexdb]
endpoint = "https://cortex.example.com"
scope_root = "org:acme"
tenant_root = "org:tenant"
timeout = 30

[engines.cortexdb.headers]
X-Team = "writers"

[engines.sqlite]
path = "/data/memory.db"
"""


def test_from_toml_reads_engine_and_settings() -> None:
    config = MemoryConfig.from_toml(FULL)
    assert config.engine == "cortexdb"
    assert sorted(config.engines) == ["cortexdb", "sqlite"]
    assert config.settings_for("cortexdb") == EngineSettings(
        endpoint="https://cortex.example.com",
        scope_root="org:acme",
        tenant_root="org:tenant",
        headers={"X-Team": "writers"},
        options={"timeout": 30},
    )
    sqlite = config.settings_for("sqlite")
    assert sqlite.options == {"path": "/data/memory.db"}
    assert sqlite.endpoint is None
    assert config.settings_for("other") == EngineSettings()


def test_from_toml_without_engine_uses_the_default() -> None:
    config = MemoryConfig.from_toml('[engines.sqlite]\npath = "m.db"\n')
    assert config.engine == "sqlite"
    assert MemoryConfig.from_toml("") == MemoryConfig()


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("engine = ", "is not valid toml"),
        ('engine = "a"\nengine = "b"\n', "is not valid toml"),
        ('engine = "reference"\nendpoint = "https://e"\n', "unknown key `endpoint`"),
        ("engine = 5\n", "`engine` must be an engine id"),
        ('engine = ""\n', "`engine` must be an engine id"),
        ('engines = "x"\n', "`engines` must be a table"),
        ("[engines]\nx = 5\n", "`engines.x` must be a table"),
        ("[engines.x]\nendpoint = 5\n", "`endpoint` must be a string"),
        ("[engines.x]\nscope_root = []\n", "`scope_root` must be a string"),
        ("[engines.x]\ntenant_root = true\n", "`tenant_root` must be a string"),
        ('[engines.x]\nheaders = "a"\n', "headers"),
        ("[engines.x]\nheaders = [1, 2]\n", "headers"),
        ("[engines.x.headers]\nX-Count = 1\n", "headers"),
    ],
)
def test_from_toml_refusals_name_the_source(text: str, says: str) -> None:
    with pytest.raises(ConfigError, match=says) as caught:
        MemoryConfig.from_toml(text, source="team.toml")
    assert "team.toml" in str(caught.value)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_load_an_explicit_path(tmp_path: Path) -> None:
    file = write(tmp_path / "a.toml", 'engine = "reference"\n')
    config = MemoryConfig.load(file, environ={"XDG_CONFIG_HOME": str(tmp_path / "none")})
    assert config.engine == "reference"
    assert MemoryConfig.load(str(file), environ={}).engine == "reference"


def test_load_the_path_in_the_environment(tmp_path: Path) -> None:
    file = write(tmp_path / "b.toml", 'engine = "cortexdb"\n')
    environ = {"TINYMEMORY_CONFIG": str(file), "XDG_CONFIG_HOME": str(tmp_path / "none")}
    assert MemoryConfig.load(environ=environ).engine == "cortexdb"


def test_an_explicit_path_wins_over_the_environment(tmp_path: Path) -> None:
    explicit = write(tmp_path / "explicit.toml", 'engine = "reference"\n')
    named = write(tmp_path / "named.toml", 'engine = "cortexdb"\n')
    config = MemoryConfig.load(explicit, environ={"TINYMEMORY_CONFIG": str(named)})
    assert config.engine == "reference"


def test_load_the_default_file_under_xdg_config_home(tmp_path: Path) -> None:
    write(tmp_path / "tinymemory" / "config.toml", 'engine = "reference"\n')
    environ = {"XDG_CONFIG_HOME": str(tmp_path)}
    assert default_config_path(environ) == tmp_path / "tinymemory" / "config.toml"
    assert MemoryConfig.load(environ=environ).engine == "reference"


def test_the_default_file_falls_back_to_home_dot_config(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    write(tmp_path / ".config" / "tinymemory" / "config.toml", 'engine = "reference"\n')
    assert default_config_path({}) == tmp_path / ".config" / "tinymemory" / "config.toml"
    assert MemoryConfig.load(environ={}).engine == "reference"


def test_a_missing_default_file_means_defaults(tmp_path: Path) -> None:
    config = MemoryConfig.load(environ={"XDG_CONFIG_HOME": str(tmp_path)})
    assert config == MemoryConfig()


def test_a_missing_explicit_file_is_refused(tmp_path: Path) -> None:
    missing = tmp_path / "missing.toml"
    xdg = {"XDG_CONFIG_HOME": str(tmp_path)}
    with pytest.raises(ConfigError, match="does not exist") as caught:
        MemoryConfig.load(missing, environ=xdg)
    assert str(missing) in str(caught.value)
    with pytest.raises(ConfigError, match="does not exist"):
        MemoryConfig.load(environ={**xdg, "TINYMEMORY_CONFIG": str(missing)})


def test_a_folder_where_the_file_should_be_is_reported_as_a_folder(tmp_path: Path) -> None:
    folder = tmp_path / "config.toml"
    folder.mkdir()
    default = tmp_path / "xdg" / "tinymemory" / "config.toml"
    default.mkdir(parents=True)
    message = "configuration file `{}` is a folder, not a file"
    for given, environ in (
        (folder, {}),
        (None, {"TINYMEMORY_CONFIG": str(folder)}),
        (None, {"XDG_CONFIG_HOME": str(tmp_path / "xdg")}),
    ):
        with pytest.raises(ConfigError) as caught:
            MemoryConfig.load(given, environ=environ)
        shown = folder if given or "TINYMEMORY_CONFIG" in environ else default
        assert caught.value.message == message.format(shown)


def test_a_bad_file_is_refused_naming_the_file(tmp_path: Path) -> None:
    file = write(tmp_path / "bad.toml", "engine = [\n")
    with pytest.raises(ConfigError, match="is not valid toml") as caught:
        MemoryConfig.load(file, environ={})
    assert str(file) in str(caught.value)


def test_a_file_that_is_not_utf8_is_refused_naming_the_file(tmp_path: Path) -> None:
    file = tmp_path / "latin.toml"
    file.write_bytes(b'engine = "caf\xe9"\n')
    with pytest.raises(ConfigError) as caught:
        MemoryConfig.load(file, environ={})
    assert str(file) in str(caught.value)


def test_the_environment_overrides_engine_and_endpoint(tmp_path: Path) -> None:
    file = write(tmp_path / "c.toml", FULL)
    environ = {
        "TINYMEMORY_CONFIG": str(file),
        "TINYMEMORY_ENGINE": "tinyhumans",
        "TINYMEMORY_ENDPOINT": "https://hosted.example.com",
    }
    config = MemoryConfig.load(environ=environ)
    assert config.engine == "tinyhumans"
    assert config.settings_for("tinyhumans").endpoint == "https://hosted.example.com"
    assert config.settings_for("cortexdb").endpoint == "https://cortex.example.com"


def test_the_endpoint_override_keeps_the_engines_other_settings(tmp_path: Path) -> None:
    file = write(tmp_path / "d.toml", FULL)
    environ = {"TINYMEMORY_ENDPOINT": " https://other.example.com "}
    config = MemoryConfig.load(file, environ=environ)
    settings = config.settings_for("cortexdb")
    assert settings.endpoint == "https://other.example.com"
    assert settings.scope_root == "org:acme"
    assert settings.headers == {"X-Team": "writers"}
    assert settings.options == {"timeout": 30}


def test_blank_environment_overrides_are_ignored(tmp_path: Path) -> None:
    file = write(tmp_path / "e.toml", FULL)
    config = MemoryConfig.load(file, environ={"TINYMEMORY_ENGINE": "  ", "TINYMEMORY_ENDPOINT": ""})
    assert config == MemoryConfig.from_toml(FULL, source=str(file))


def test_environment_overrides_apply_without_a_file(tmp_path: Path) -> None:
    environ = {
        "XDG_CONFIG_HOME": str(tmp_path),
        "TINYMEMORY_ENGINE": "reference",
        "TINYMEMORY_ENDPOINT": "http://localhost:1",
    }
    config = MemoryConfig.load(environ=environ)
    assert config == MemoryConfig(
        engine="reference", engines={"reference": EngineSettings(endpoint="http://localhost:1")}
    )


def test_config_build_makes_the_reference_engine(plugins: Register) -> None:
    engine = MemoryConfig(engine="reference").build()
    assert isinstance(engine, ReferenceEngine)
    assert not isinstance(engine, ScrubbingEngine)


def test_config_build_uses_the_engines_settings(plugins: Register) -> None:
    plugin, built = engine_plugin(descriptor(needs_endpoint=True, needs_key=True))
    plugins(plugin)
    settings = EngineSettings(endpoint="https://memory.example.com", scope_root="org:1")
    config = MemoryConfig(engine="remote", engines={"remote": settings})
    credential = EngineCredential.static(KEY)
    config.build(credential)
    assert built.calls == [(settings, credential)]
    with pytest.raises(ConfigError, match="needs a key"):
        config.build()


def test_config_build_of_the_default_engine_refuses_when_it_is_missing(plugins: Register) -> None:
    with pytest.raises(ConfigError, match="unknown engine `sqlite`"):
        MemoryConfig().build()


def test_build_engine_without_an_id_builds_the_configured_engine(
    plugins: Register, reference_config: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plugin, built = engine_plugin(descriptor("remote"))
    plugins(plugin)
    assert isinstance(build_engine(), ReferenceEngine)
    assert built.calls == []
    reference_config.write_text(
        'engine = "remote"\n[engines.remote]\nendpoint = "https://example.com"\n',
        encoding="utf-8",
    )
    build_engine()
    ((settings, _),) = built.calls
    assert settings.endpoint == "https://example.com"
    build_engine(settings=EngineSettings(endpoint="https://other.example.com"))
    assert built.calls[1][0].endpoint == "https://other.example.com"
    monkeypatch.setenv("TINYMEMORY_ENGINE", "reference")
    assert isinstance(build_engine(), ReferenceEngine)
