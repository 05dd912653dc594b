"""What ``tinymemory ingest`` offers, read from the installed readers' own declarations.

Each reader says which option ``PATH_OR_URL`` fills (``source_option``),
which options it takes (``options``: :class:`~tinymemory.plugin.ReaderOption`),
which sources it reads unasked (``claims``, in ``priority`` order) and where
its credential comes from (``credential_variable``). The command line knows
no reader by name: ``--reader`` offers the installed ones, and each declared
option is a ``--name`` of ``ingest`` (one flag for readers sharing a name).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import click
from click.core import ParameterSource

from tinymemory._errors import ConfigError
from tinymemory._hookspecs import ReaderOption, SourceReader
from tinymemory._plugin_manager import source_readers
from tinymemory._settings import EngineCredential

#: The option ``PATH_OR_URL`` fills for a reader that does not say.
DEFAULT_SOURCE_OPTION = "path"
#: Where ``ingest`` keeps a reader option's value among its parameters.
_DEST = "reader_option_"


def source_option(reader: SourceReader) -> str:
    """The option of ``reader`` that the command's ``PATH_OR_URL`` fills."""
    chosen = getattr(reader, "source_option", DEFAULT_SOURCE_OPTION)
    if not isinstance(chosen, str) or not chosen:
        raise ConfigError(f"reader `{reader.name}`: `source_option` must be an option name")
    return chosen


def declared_options(reader: SourceReader) -> tuple[ReaderOption, ...]:
    """The options ``reader`` declares for the command line (none when it declares none)."""
    options = tuple(getattr(reader, "options", ()))
    wrong = next((option for option in options if not isinstance(option, ReaderOption)), None)
    if wrong is not None:
        raise ConfigError(
            f"reader `{reader.name}`: `options` must hold ReaderOption, not {type(wrong).__name__}"
        )
    return options


def claiming_reader(readers: Mapping[str, SourceReader], source: str) -> str | None:
    """The first reader, by ``priority`` then name, whose ``claims`` takes ``source``."""
    ordered = sorted(readers.values(), key=lambda reader: (_priority(reader), reader.name))
    for reader in ordered:
        claims = getattr(reader, "claims", None)
        if callable(claims) and claims(source):
            return reader.name
    return None


def _priority(reader: SourceReader) -> int:
    priority = getattr(reader, "priority", 0)
    return priority if isinstance(priority, int) and not isinstance(priority, bool) else 0


def reader_credential(reader: SourceReader) -> EngineCredential:
    """The credential from the environment variable ``reader`` names; none without one."""
    variable = getattr(reader, "credential_variable", None)
    token = os.environ.get(variable, "").strip() if isinstance(variable, str) else ""
    return EngineCredential.static(token) if token else EngineCredential.none()


def flag(name: str) -> str:
    """The command-line flag of option ``name``: ``max_file_bytes`` is ``--max-file-bytes``."""
    return "--" + name.replace("_", "-")


def reader_parameters(readers: Mapping[str, SourceReader]) -> list[click.Parameter]:
    """``--reader`` with the installed readers, then a ``--name`` per declared option."""
    names = sorted(readers)
    variables = [
        f"{name} from ${variable}"
        for name in names
        if isinstance(variable := getattr(readers[name], "credential_variable", None), str)
    ]
    credentials = f" Credentials: {', '.join(variables)}." if variables else ""
    parameters: list[click.Parameter] = [
        click.Option(
            ["--reader"],
            type=click.Choice(names),
            help="The reader, when none claims PATH_OR_URL by itself "
            f"(installed: {', '.join(names) or 'none'}).{credentials}",
        )
    ]
    by_name: dict[str, tuple[ReaderOption, list[str]]] = {}
    for reader in (readers[name] for name in names):
        for option in declared_options(reader):
            by_name.setdefault(option.name, (option, []))[1].append(reader.name)
    parameters.extend(_parameter(*by_name[name]) for name in sorted(by_name))
    return parameters


def _parameter(option: ReaderOption, owners: Sequence[str]) -> click.Option:
    shown = f"{', '.join(owners)}: {option.help}"
    common: dict[str, Any] = {
        "help": shown,
        "envvar": option.variable,
        "show_envvar": option.variable is not None,
        "show_default": False,
    }
    if option.kind == "flag":
        negative = "--no-" + option.name.replace("_", "-")
        return click.Option(
            [f"{flag(option.name)}/{negative}", _DEST + option.name], default=None, **common
        )
    kind = click.INT if option.kind == "integer" else click.STRING
    metavar = "N" if option.kind == "integer" else "SECRET" if option.secret else "TEXT"
    return click.Option(
        [flag(option.name), _DEST + option.name], type=kind, metavar=metavar, **common
    )


def chosen_options(
    ctx: click.Context,
    readers: Mapping[str, SourceReader],
    reader: SourceReader,
    values: Mapping[str, Any],
) -> dict[str, Any]:
    """The reader options given, as ``reader`` takes them; one it does not take is refused,
    naming the readers that do.

    A value that came from an environment variable, not the command line, is
    for the readers declaring it: another reader leaves it out.
    """
    own = {option.name for option in declared_options(reader)}
    chosen: dict[str, Any] = {}
    for dest, value in values.items():
        if not dest.startswith(_DEST) or value is None:
            continue
        name = dest.removeprefix(_DEST)
        if name in own:
            chosen[name] = value
        elif ctx.get_parameter_source(dest) is ParameterSource.COMMANDLINE:
            owners = [
                f"`{other}`"
                for other in sorted(readers)
                if name in {option.name for option in declared_options(readers[other])}
            ]
            raise click.UsageError(
                f"{flag(name)} is an option of {', '.join(owners)}, not of `{reader.name}`"
            )
    return chosen


def choose_reader(readers: Mapping[str, SourceReader], source: str, named: str | None) -> str:
    """The reader named, else the one claiming ``source``; a usage error when none does."""
    if named is not None:
        return named
    claimed = claiming_reader(readers, source)
    if claimed is not None:
        return claimed
    if "://" not in source and not Path(source).exists():
        raise click.BadParameter(f"{source}: no such file or folder", param_hint="PATH_OR_URL")
    raise click.UsageError(
        f"no installed reader claims `{source}`: name one with --reader "
        f"(installed: {', '.join(sorted(readers)) or 'none'})"
    )


class ReaderSurfaceCommand(click.Command):
    """A command whose parameters include what the installed readers declare."""

    def get_params(self, ctx: click.Context) -> list[click.Parameter]:
        """The command's own parameters, then the readers', then ``--help``."""
        help_option = self.get_help_option(ctx)
        return [
            *self.params,
            *reader_parameters(source_readers()),
            *([help_option] if help_option is not None else []),
        ]
