"""No credential ever appears in a message, repr or log."""

from __future__ import annotations

import logging
import warnings
from collections.abc import Callable
from pathlib import Path

import pytest

from tinymemory._engine import EngineDescriptor, MemoryEngine
from tinymemory._errors import ConfigError, TinyMemoryError
from tinymemory._hookspecs import EngineFactory, hookimpl
from tinymemory._plugin_manager import plugin_manager
from tinymemory._registry import MemoryConfig, build_engine
from tinymemory._settings import (
    API_KEY_VARIABLE,
    BearerSource,
    CredentialKind,
    EngineCredential,
    EngineSettings,
    redact_url,
)
from tinymemory.reference import ReferenceEngine

KEY = "sk-test-SECRET123456"
PASSWORD = "pw-SECRET987654"
HEADER_VALUE = "Bearer hdr-SECRET555"

log = logging.getLogger("tests.fake_engine")

Build = Callable[[EngineSettings, EngineCredential], MemoryEngine]


def chatty_build(settings: EngineSettings, credential: EngineCredential) -> MemoryEngine:
    """A factory that logs and warns about what it was given, as a careless plugin might."""
    log.debug("building with %r and %r", settings, credential)
    log.info("credential %s, settings %s", credential, settings)
    warnings.warn(f"building with {credential!r} and {settings!r}", UserWarning, stacklevel=1)
    return ReferenceEngine()


def leaky_build(settings: EngineSettings, credential: EngineCredential) -> MemoryEngine:
    log.debug("about to fail")
    raise ValueError(f"refused {credential.bearer()} for {settings.endpoint}")


def descriptor(engine_id: str, **needs: bool) -> EngineDescriptor:
    return EngineDescriptor(
        id=engine_id, label=engine_id, description="made up by the tests", **needs
    )


class FakeEngines:
    @hookimpl
    def tinymemory_engines(self) -> list[EngineFactory]:
        return [
            EngineFactory(descriptor=descriptor("chatty", needs_key=True), build=chatty_build),
            EngineFactory(descriptor=descriptor("leaky", needs_key=True), build=leaky_build),
            EngineFactory(
                descriptor=descriptor("remote", needs_endpoint=True, needs_key=True),
                build=chatty_build,
            ),
        ]


@pytest.fixture
def engines(builtin_plugins: None) -> None:
    plugin_manager().register(FakeEngines())


def assert_hidden(text: str, *secrets: str) -> None:
    for secret in secrets or (KEY,):
        assert secret not in text


# --- reprs ------------------------------------------------------------------


def test_a_static_credential_never_shows_its_key() -> None:
    credential = EngineCredential.static(KEY)
    assert repr(credential) == "EngineCredential.static(***)"
    assert str(credential) == repr(credential)
    assert_hidden(f"{credential} {credential!r} {credential!s} {[credential]} {(credential,)}")
    assert_hidden(repr({"credential": credential}))
    assert credential.bearer() == KEY
    assert credential.kind is CredentialKind.STATIC


def test_none_and_dynamic_credentials_have_plain_reprs() -> None:
    class Tokens:
        def bearer(self) -> str:
            return KEY

    assert repr(EngineCredential.none()) == "EngineCredential.none()"
    dynamic = EngineCredential.dynamic(Tokens())
    assert repr(dynamic) == "EngineCredential.dynamic(***)"
    assert_hidden(str(dynamic))


def test_settings_repr_hides_header_values_and_endpoint_password() -> None:
    settings = EngineSettings(
        endpoint=f"https://alice:{PASSWORD}@memory.example.com:8443/v1?x=1",
        scope_root="org:acme",
        headers={"Authorization": HEADER_VALUE, "X-Api-Key": KEY},
    )
    shown = repr(settings)
    assert_hidden(shown, PASSWORD, HEADER_VALUE, KEY)
    assert "https://***@memory.example.com:8443/v1?x=1" in shown
    assert "headers=<Authorization, X-Api-Key>" in shown
    assert "org:acme" in shown
    assert str(settings) == shown


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        (f"http://u:{PASSWORD}@[::1]:8080/x", "http://***@[::1]:8080/x"),
        (f"http://u:{PASSWORD}@host:notaport/x", "http://***@host:notaport/x"),
        (f"https://:{PASSWORD}@host", "https://***@host"),
        (f"https://{PASSWORD}@host/path", "https://***@host/path"),  # a token as user name
        ("https://host/path", "https://host/path"),
        (
            f"https://host/v1?region=eu&api_key={PASSWORD}&Token={PASSWORD}&sig={PASSWORD}",
            "https://host/v1?region=eu&api_key=***&Token=***&sig=***",
        ),
        (
            f"https://host/v1?x-amz-signature={PASSWORD}&access_token={PASSWORD}#secret={PASSWORD}",
            "https://host/v1?x-amz-signature=***&access_token=***#secret=***",
        ),
    ],
)
def test_redact_url(url: str, shown: str) -> None:
    assert redact_url(url) == shown
    assert_hidden(repr(EngineSettings(endpoint=url)), PASSWORD)


def test_an_unreadable_url_is_not_echoed() -> None:
    assert redact_url(f"http://u:{PASSWORD}@[::1") == "<unreadable url>"


# --- refusals ---------------------------------------------------------------


def test_every_refusal_message_leaves_the_key_out(engines: None) -> None:
    key = EngineCredential.static(KEY)
    refusals: list[Callable[[], object]] = [
        lambda: build_engine("nope", credential=key),
        lambda: build_engine("remote", credential=key),
        lambda: build_engine("remote", EngineSettings(endpoint="http://example.com"), key),
        lambda: build_engine("remote", EngineSettings(endpoint="ftp://example.com"), key),
        lambda: build_engine("remote", EngineSettings(endpoint="http://[::1"), key),
        lambda: build_engine("leaky", EngineSettings(endpoint="https://example.com"), key),
        lambda: build_engine("leaky", credential=key),
        lambda: MemoryConfig(engine="leaky").build(key),
        lambda: MemoryConfig(engine="nope").build(key),
    ]
    for refuse in refusals:
        with pytest.raises(ConfigError) as caught:
            refuse()
        error = caught.value
        assert_hidden(str(error))
        assert_hidden(repr(error))
        assert_hidden(error.message)
        assert_hidden(" ".join(map(str, error.args)))
        assert error.__cause__ is None
        assert error.__context__ is None or KEY not in str(error.__context__)


def test_a_leaky_factory_error_is_redacted(engines: None) -> None:
    with pytest.raises(ConfigError, match=r"refused \*\*\*") as caught:
        build_engine("leaky", credential=EngineCredential.static(KEY))
    assert caught.value.__context__ is None
    assert caught.value.__suppress_context__ is False


def test_an_endpoint_password_is_hidden_in_refusals(engines: None) -> None:
    for endpoint in (
        f"http://bob:{PASSWORD}@example.com",
        f"ftp://bob:{PASSWORD}@example.com",
    ):
        with pytest.raises(ConfigError) as caught:
            build_engine("remote", EngineSettings(endpoint=endpoint), EngineCredential.static(KEY))
        assert_hidden(str(caught.value), KEY, PASSWORD)
    with pytest.raises(ConfigError) as caught:
        build_engine(
            "leaky",
            EngineSettings(endpoint=f"https://bob:{PASSWORD}@example.com"),
            EngineCredential.static(KEY),
        )
    assert_hidden(str(caught.value), KEY, PASSWORD)


# --- logs and warnings ------------------------------------------------------


def test_build_logs_and_warnings_never_hold_the_key(
    engines: None, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    settings = EngineSettings(
        endpoint=f"https://bob:{PASSWORD}@example.com", headers={"Authorization": HEADER_VALUE}
    )
    credential = EngineCredential.static(KEY)
    config = MemoryConfig(engine="remote", engines={"remote": settings})
    with pytest.warns(UserWarning, match="building with") as warned:
        build_engine("remote", settings, credential)
    with pytest.warns(UserWarning, match="building with") as warned_again:
        config.build(credential)
    messages = [str(warning.message) for warning in [*warned, *warned_again]]
    assert len(messages) == 2
    assert "EngineCredential.static(***)" in messages[0]
    assert len([r for r in caplog.records if r.name == "tests.fake_engine"]) == 4
    # The careless factory did log its settings and credential: they are there, redacted.
    assert "EngineCredential.static(***)" in caplog.text
    assert "headers=<Authorization>" in caplog.text
    assert_hidden(caplog.text, KEY, PASSWORD, HEADER_VALUE)
    for record in caplog.records:
        assert_hidden(record.getMessage(), KEY, PASSWORD, HEADER_VALUE)
    for message in messages:
        assert_hidden(message, KEY, PASSWORD, HEADER_VALUE)


def test_a_failed_build_logs_nothing_secret(
    engines: None, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    with pytest.raises(ConfigError) as caught:
        MemoryConfig(engine="leaky").build(EngineCredential.static(KEY))
    logging.getLogger("tests").exception("build failed", exc_info=caught.value)
    assert "build failed" in caplog.text
    assert "refused ***" in caplog.text
    assert_hidden(caplog.text)


# --- dynamic credentials and the environment --------------------------------


def test_a_dynamic_credential_asks_its_source_every_time() -> None:
    class Rotating:
        def __init__(self) -> None:
            self.calls = 0

        def bearer(self) -> str:
            self.calls += 1
            return f"token-{self.calls}"

    source = Rotating()
    assert isinstance(source, BearerSource)
    credential = EngineCredential.dynamic(source)
    assert credential.kind is CredentialKind.DYNAMIC
    assert not credential.is_none
    assert source.calls == 0
    assert [credential.bearer(), credential.bearer(), credential.bearer()] == [
        "token-1",
        "token-2",
        "token-3",
    ]
    assert source.calls == 3
    assert "token" not in repr(credential)


def test_a_dynamic_credential_reaches_the_factory_unread(engines: None) -> None:
    seen: list[str | None] = []

    class Counting:
        calls = 0

        def bearer(self) -> str:
            Counting.calls += 1
            return f"token-{Counting.calls}"

    class Capture:
        @hookimpl
        def tinymemory_engines(self) -> list[EngineFactory]:
            def build(settings: EngineSettings, credential: EngineCredential) -> MemoryEngine:
                seen.extend([credential.bearer(), credential.bearer()])
                return ReferenceEngine()

            return [EngineFactory(descriptor=descriptor("capture", needs_key=True), build=build)]

    plugin_manager().register(Capture())
    build_engine("capture", credential=EngineCredential.dynamic(Counting()))
    assert seen == ["token-1", "token-2"]


def test_a_dynamic_credential_needs_a_bearer_method() -> None:
    with pytest.raises(ConfigError, match="bearer"):
        EngineCredential.dynamic(KEY)  # type: ignore[arg-type]


def test_from_env_reads_the_api_key() -> None:
    credential = EngineCredential.from_env({API_KEY_VARIABLE: KEY})
    assert API_KEY_VARIABLE == "TINYMEMORY_API_KEY"
    assert credential.kind is CredentialKind.STATIC
    assert credential.bearer() == KEY
    assert EngineCredential.from_env({API_KEY_VARIABLE: f"  {KEY}\n"}).bearer() == KEY
    assert_hidden(repr(credential))


def test_from_env_without_a_key_is_no_credential(monkeypatch: pytest.MonkeyPatch) -> None:
    assert EngineCredential.from_env({}).is_none
    assert EngineCredential.from_env({API_KEY_VARIABLE: "   "}).is_none
    assert EngineCredential.from_env({"OTHER": KEY}).is_none
    monkeypatch.setenv(API_KEY_VARIABLE, KEY)
    assert EngineCredential.from_env().bearer() == KEY
    monkeypatch.delenv(API_KEY_VARIABLE)
    assert EngineCredential.from_env().is_none


@pytest.mark.parametrize("key", ["", "   ", "\n"])
def test_a_blank_key_is_refused(key: str) -> None:
    with pytest.raises(ConfigError, match="blank"):
        EngineCredential.static(key)


@pytest.mark.parametrize(
    "key", [f"{KEY}\n", f"{KEY}\nX-Injected: 1", f"sk-a {KEY}", f"{KEY}\r", f"\t{KEY}"]
)
def test_a_key_with_white_space_is_refused_without_echo(key: str) -> None:
    with pytest.raises(ConfigError, match="white space") as caught:
        EngineCredential.static(key)
    assert_hidden(str(caught.value))
    assert_hidden(repr(caught.value))


def test_a_bad_key_in_the_environment_is_refused_without_echo() -> None:
    with pytest.raises(ConfigError) as caught:
        EngineCredential.from_env({API_KEY_VARIABLE: f"{KEY}\nsecond-line"})
    assert_hidden(str(caught.value), KEY, "second-line")


def test_a_non_string_key_is_refused() -> None:
    with pytest.raises(ConfigError):
        EngineCredential.static(12345)  # type: ignore[arg-type]


def test_refusing_a_header_with_a_line_break_does_not_echo_its_value() -> None:
    with pytest.raises(ConfigError, match="header `Authorization`") as caught:
        EngineSettings(headers={"Authorization": f"Bearer {KEY}\r\nX-Evil: 1"})
    assert_hidden(str(caught.value))


def test_tinymemory_errors_in_general_carry_only_their_message() -> None:
    error = ConfigError("engine `x` needs a key")
    assert str(error) == "configuration error: engine `x` needs a key"
    assert isinstance(error, TinyMemoryError)


def test_settings_repr_shows_option_names_not_values() -> None:
    settings = EngineSettings(options={"path": "/tmp/m.db", "api_key": KEY})
    shown = repr(settings)
    assert_hidden(shown)
    assert "options=<api_key, path>" in shown


@pytest.mark.usefixtures("builtin_plugins")
def test_a_contract_error_from_a_factory_is_redacted_keeping_its_kind() -> None:
    from tinymemory._errors import Unauthorized

    def refusing(settings: EngineSettings, credential: EngineCredential) -> MemoryEngine:
        raise Unauthorized(f"key {credential.bearer()} was refused")

    class Refusing:
        @hookimpl
        def tinymemory_engines(self) -> list[EngineFactory]:
            return [EngineFactory(descriptor=descriptor("refusing"), build=refusing)]

    plugin_manager().register(Refusing())
    with pytest.raises(Unauthorized, match=r"key \*\*\* was refused") as caught:
        build_engine("refusing", credential=EngineCredential.static(KEY))
    assert caught.value.__context__ is None


def test_a_credential_has_no_json_form() -> None:
    from tinymemory._wire import to_data, to_json

    with pytest.raises(TypeError, match="no json form"):
        to_data(EngineCredential.static(KEY))
    with pytest.raises(TypeError, match="no json form"):
        to_json({"credential": EngineCredential.static(KEY)})


# --- every credential form, through every way out ------------------------------------------

TOKEN = "dyn-SECRET24680"
USER_TOKEN = "usertoken-SECRET1357"
QUERY_KEY = "qk-SECRET112233"
SIG = "sig-SECRET445566"
OPTION_SECRET = "opt-SECRET778899"
ALL_SECRETS = (KEY, TOKEN, PASSWORD, USER_TOKEN, QUERY_KEY, SIG, HEADER_VALUE, OPTION_SECRET)
ENDPOINT = (
    f"https://{USER_TOKEN}:{PASSWORD}@memory.example.com/v1?region=eu&api_key={QUERY_KEY}&sig={SIG}"
)
HEADERS = {"Authorization": HEADER_VALUE}
OPTIONS = {"api_key": OPTION_SECRET, "path": "/tmp/x"}


class Tokens:
    def bearer(self) -> str:
        return TOKEN


def _everything(settings: EngineSettings, credential: EngineCredential) -> str:
    return f"{credential.bearer()} {settings.endpoint} {dict(settings.headers)} {settings.options}"


def _says_it_all(settings: EngineSettings, credential: EngineCredential) -> MemoryEngine:
    raise ConfigError(f"refused: {_everything(settings, credential)}")


def _chains_it(settings: EngineSettings, credential: EngineCredential) -> MemoryEngine:
    try:
        raise ValueError(_everything(settings, credential))
    except ValueError as inner:
        raise ConfigError("the server refused the credential") from inner


def _carries_it_as_context(settings: EngineSettings, credential: EngineCredential) -> MemoryEngine:
    try:
        raise KeyError(_everything(settings, credential))
    except KeyError:
        raise RuntimeError("lookup failed") from None


def _crashes_with_it(settings: EngineSettings, credential: EngineCredential) -> MemoryEngine:
    raise OSError(f"connect failed: {_everything(settings, credential)}")


BLABBERS = {
    "says": _says_it_all,
    "chains": _chains_it,
    "context": _carries_it_as_context,
    "crashes": _crashes_with_it,
}


class Blabbers:
    @hookimpl
    def tinymemory_engines(self) -> list[EngineFactory]:
        return [
            EngineFactory(descriptor=descriptor(f"blab-{name}", needs_key=True), build=build)
            for name, build in BLABBERS.items()
        ]


def assert_no_secret(text: str) -> None:
    for secret in ALL_SECRETS:
        assert secret not in text, secret


@pytest.mark.usefixtures("builtin_plugins")
@pytest.mark.parametrize("behaviour", sorted(BLABBERS))
@pytest.mark.parametrize("kind", ["static", "dynamic"])
def test_no_credential_form_survives_in_any_message_repr_or_traceback(
    behaviour: str, kind: str
) -> None:
    import traceback

    plugin_manager().register(Blabbers())
    credential = (
        EngineCredential.static(KEY) if kind == "static" else EngineCredential.dynamic(Tokens())
    )
    settings = EngineSettings(endpoint=ENDPOINT, headers=HEADERS, options=OPTIONS)
    with pytest.raises(TinyMemoryError) as caught:
        build_engine(f"blab-{behaviour}", settings, credential)
    error = caught.value
    assert error.__cause__ is None
    assert error.__context__ is None
    shown = [
        str(error),
        repr(error),
        error.message,
        "".join(traceback.format_exception(error)),
        repr(settings),
        str(settings),
        repr(credential),
        repr(MemoryConfig(engine=f"blab-{behaviour}", engines={f"blab-{behaviour}": settings})),
    ]
    for text in shown:
        assert_no_secret(text)
    assert "memory.example.com/v1?region=eu&api_key=***&sig=***" in repr(settings)


@pytest.mark.usefixtures("builtin_plugins")
def test_the_command_line_never_prints_a_credential(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from click.testing import CliRunner

    from tinymemory._cli.main import main

    plugin_manager().register(Blabbers())
    config = tmp_path / "config.toml"
    config.write_text(
        'engine = "blab-chains"\n'
        "[engines.blab-chains]\n"
        f'endpoint = "{ENDPOINT}"\n'
        f'api_key = "{OPTION_SECRET}"\n'
        "[engines.blab-chains.headers]\n"
        f'Authorization = "{HEADER_VALUE}"\n',
        encoding="utf-8",
    )
    monkeypatch.setenv("TINYMEMORY_CONFIG", str(config))
    monkeypatch.setenv(API_KEY_VARIABLE, KEY)
    for name in ("TINYMEMORY_ENGINE", "TINYMEMORY_ENDPOINT"):
        monkeypatch.delenv(name, raising=False)
    runner = CliRunner()
    for args in (["config"], ["config", "--json"], ["list"], ["store", "x"], ["context"]):
        with runner.isolation() as (out, err, _):
            status = main(args)
            printed = out.getvalue().decode() + err.getvalue().decode()
        assert_no_secret(printed)
        if args[0] != "config":
            assert status == 1
            assert "the server refused the credential" in printed


@pytest.mark.usefixtures("builtin_plugins")
def test_an_error_class_that_cannot_be_rebuilt_becomes_a_clean_config_error() -> None:
    import traceback

    class Picky(ConfigError):
        def __init__(self, message: str, code: int) -> None:
            super().__init__(message)
            self.code = code

    def build(settings: EngineSettings, credential: EngineCredential) -> MemoryEngine:
        raise Picky(f"key {credential.bearer()} refused", 401)

    class PickyEngines:
        @hookimpl
        def tinymemory_engines(self) -> list[EngineFactory]:
            return [EngineFactory(descriptor=descriptor("picky"), build=build)]

    plugin_manager().register(PickyEngines())
    with pytest.raises(ConfigError) as caught:
        build_engine("picky", credential=EngineCredential.static(KEY))
    assert caught.value.message == "key *** refused"
    assert_no_secret("".join(traceback.format_exception(caught.value)))
