"""The ``folder`` and ``file`` readers: files on disk, converted through ``tm.convert``.

The folder walk never follows a symbolic link, skips hidden entries and tool
folders, honours every ``.gitignore`` on the way down (matched by
``pathspec``, git's own rules: the deepest file that speaks decides, and an
ignored folder is not entered), keeps to an include glob when one is given,
and leaves out files over the size cap. Each file is opened without following
a link and checked to lie inside the folder before it is read. What is left
out for a reason worth knowing (too large, a link, a format nothing reads,
a file a converter refuses, a decompression bomb, a folder that cannot be
read) comes out as a
:class:`~tinymemory.plugin.SourceSkip`: one file never ends the walk.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath

import attrs
import pathspec

import tinymemory as tm
from tinymemory import files
from tinymemory.plugin import ReaderContext, ReaderOption, SourceSkip
from tinymemory_sources.reader_options import (
    MAX_FILE_BYTES,
    check_names,
    int_option,
    option_names,
    text_option,
)

MIB = 1024 * 1024
#: Folders never walked into (besides every hidden one).
TOOL_FOLDERS = frozenset(
    {".git", ".hg", ".svn", "target", "node_modules", "__pycache__", "venv", ".venv", ".tox"}
)
DEFAULT_MAX_FILE_BYTES = 10 * MIB

#: Languages by file suffix, for ``meta.language``.
LANGUAGES = {
    ".py": "python", ".rs": "rust", ".go": "go", ".js": "javascript", ".mjs": "javascript",
    ".ts": "typescript", ".tsx": "typescript", ".jsx": "javascript", ".java": "java",
    ".kt": "kotlin", ".c": "c", ".h": "c", ".cc": "cpp", ".cpp": "cpp", ".hpp": "cpp",
    ".cs": "csharp", ".rb": "ruby", ".php": "php", ".swift": "swift", ".scala": "scala",
    ".sh": "shell", ".bash": "shell", ".sql": "sql", ".md": "markdown", ".markdown": "markdown",
    ".rst": "restructuredtext", ".toml": "toml", ".yaml": "yaml", ".yml": "yaml",
    ".json": "json", ".html": "html", ".css": "css",
}  # fmt: skip


def compile_glob(pattern: str) -> re.Pattern[str]:
    """An include glob over the ``/``-joined relative path, anchored at both ends.

    ``*`` matches within one name, ``?`` one character of a name, ``**`` any
    run of names, and ``**/`` zero or more folders.
    """
    out = []
    index = 0
    while index < len(pattern):
        if pattern.startswith("**/", index):
            out.append("(?:.*/)?")
            index += 3
        elif pattern.startswith("**", index):
            out.append(".*")
            index += 2
        elif pattern[index] == "*":
            out.append("[^/]*")
            index += 1
        elif pattern[index] == "?":
            out.append("[^/]")
            index += 1
        else:
            out.append(re.escape(pattern[index]))
            index += 1
    return re.compile("".join(out))


@attrs.frozen
class _Ignores:
    """The ``.gitignore`` files in force at one folder: (folder relative to the root, spec)."""

    layers: tuple[tuple[PurePosixPath, pathspec.GitIgnoreSpec], ...] = ()

    def entered(self, folder: Path, relative: PurePosixPath) -> _Ignores:
        ignore = folder / ".gitignore"
        if ignore.is_symlink() or not ignore.is_file():
            return self
        lines = ignore.read_text(encoding="utf-8", errors="replace").splitlines()
        return _Ignores((*self.layers, (relative, pathspec.GitIgnoreSpec.from_lines(lines))))

    def ignores(self, relative: PurePosixPath, is_dir: bool) -> bool:
        for base, spec in reversed(self.layers):
            inside = relative.relative_to(base).as_posix() + ("/" if is_dir else "")
            found = spec.check_file(inside).include
            if found is not None:
                return found
        return False


def _placed(path: Path, workspace: str | None, source: tm.SourceRef) -> tm.MemoryMeta:
    return tm.MemoryMeta(
        workspace=workspace,
        folder=path.parent.as_posix(),
        file_path=path.as_posix(),
        language=LANGUAGES.get(path.suffix.lower()),
        source=source,
    )


def _read_inside(path: Path, root: Path, cap: int) -> tuple[bytes, datetime] | str:
    """The file's bytes and mtime, or why it is left out; never through a link, never outside."""
    try:
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError as error:
        return f"cannot be opened ({error.strerror})"
    with os.fdopen(descriptor, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            return "not a regular file"
        if info.st_size > cap:
            return f"{info.st_size} bytes, over the cap of {cap}"
        if not Path(os.path.realpath(path)).is_relative_to(root):
            return "path traversal denied: it resolves outside the folder"
        data = handle.read(cap + 1)
    if len(data) > cap:
        return f"over the cap of {cap} bytes"
    return data, datetime.fromtimestamp(info.st_mtime, UTC)


def _documents(
    path: Path, root: Path, cap: int, workspace: str | None, source: tm.SourceRef
) -> Iterator[tm.Document | SourceSkip]:
    """The file's document; an archive's (zip, tar), one per member; a skip for what is not."""
    read = _read_inside(path, root, cap)
    if isinstance(read, str):
        yield SourceSkip(what=path.as_posix(), reason=read)
        return
    data, mtime = read
    placed = attrs.evolve(_placed(path, workspace, source), observed_at=mtime)
    try:
        # Opened here once, so an archive (even a .tar.gz) is told apart; convert
        # would take the same wrappers off what it is handed.
        held = files.unwrap(data, path.name, max_bytes=files.MAX_FILE_BYTES)
        if not files.is_archive(held.data, held.name):
            yield _converted(path.as_posix(), held.data, str(held.name), placed)
            return
        members = list(files.archive_members(held.data, max_bytes=min(cap, files.MAX_FILE_BYTES)))
    except tm.TinyMemoryError as error:  # a bomb, broken compressed data, a broken archive
        yield SourceSkip(what=path.as_posix(), reason=error.message)
        return
    for member in members:
        inside = files.member_path(path.as_posix(), member.name)
        if member.data is None:
            yield SourceSkip(what=inside, reason=str(member.skipped))
            continue
        where = PurePosixPath(inside)
        meta = attrs.evolve(
            placed,
            folder=where.parent.as_posix(),
            file_path=inside,
            language=LANGUAGES.get(where.suffix.lower()),
        )
        yield _converted(inside, member.data, where.name, meta)


def _converted(what: str, data: bytes, name: str, meta: tm.MemoryMeta) -> tm.Document | SourceSkip:
    try:
        return tm.convert(data, name=name, meta=meta)
    except tm.TinyMemoryError as error:  # empty, encrypted, too large, hostile, unreadable
        return SourceSkip(what=what, reason=error.message)


class FolderReader:
    """``folder``: every readable file under ``path``.

    Options: ``path`` (required), ``include`` (a glob over the relative path,
    say ``docs/**/*.md``; default every file), ``max_file_bytes`` (default
    10 MiB), ``workspace`` and ``id`` (the source's id; default none). Items
    carry ``folder``, ``file_path`` (the real path), ``language`` and the
    file's mtime as ``observed_at``, and a ``file`` source: a file is the
    same item whichever folder (or the ``file`` reader) reached it.
    """

    name = "folder"
    source_option = "path"
    options = (
        ReaderOption(name="include", help="Only the files matching this glob (docs/**/*.md)."),
        MAX_FILE_BYTES,
    )
    OPTIONS = option_names(source_option, options, "workspace", "id")

    def claims(self, source: str) -> bool:
        """A folder on disk."""
        return Path(source).expanduser().is_dir()

    def read(self, context: ReaderContext) -> Iterator[tm.StoreItem | SourceSkip]:
        """Walk the folder, yielding a document per file and a skip per file left out.

        The options are checked here, before the walk starts.
        """
        walk, cap, workspace, source = self._walk_of(context)
        return (
            done
            for found in walk
            for done in (
                [found]
                if isinstance(found, SourceSkip)
                else _documents(found, walk.root, cap, workspace, source)
            )
        )

    def count(self, context: ReaderContext) -> int:
        """How many entries :meth:`read` yields (an archive one): the walk, reading no file."""
        walk, *_ = self._walk_of(context)
        return sum(1 for _ in walk)

    def _walk_of(self, context: ReaderContext) -> tuple[_Walk, int, str | None, tm.SourceRef]:
        options = context.options
        check_names(self.name, options, self.OPTIONS)
        given = str(text_option(self.name, options, "path", required=True))
        pattern = text_option(self.name, options, "include")
        cap = int_option(self.name, options, "max_file_bytes", DEFAULT_MAX_FILE_BYTES, 1, 1 << 40)
        workspace = text_option(self.name, options, "workspace")
        root = Path(given).expanduser().resolve()
        if not root.is_dir():
            raise tm.InvalidRequest(f"`{given}` is not a folder")
        # A file is one item however it was reached: its source is the file's, not the root's.
        source = tm.SourceRef(kind=tm.SourceKind.FILE, id=text_option(self.name, options, "id"))
        return _Walk(root, compile_glob(pattern) if pattern else None), cap, workspace, source


@attrs.frozen
class _Walk:
    """The files under ``root`` the folder reader reads, in order, and a skip per one left out."""

    root: Path
    include: re.Pattern[str] | None

    def __iter__(self) -> Iterator[Path | SourceSkip]:
        return self._walk(self.root, PurePosixPath("."), _Ignores())

    def _walk(
        self, folder: Path, relative: PurePosixPath, ignores: _Ignores
    ) -> Iterator[Path | SourceSkip]:
        include = self.include
        try:
            ignores = ignores.entered(folder, relative)
            with os.scandir(folder) as scan:
                entries = sorted(scan, key=lambda entry: entry.name)
        except OSError as error:  # a folder this user may not read is left out, not the end
            yield SourceSkip(what=folder.as_posix(), reason=f"cannot be read ({error.strerror})")
            return
        for entry in entries:
            if entry.name.startswith(".") or entry.name in TOOL_FOLDERS:
                continue
            path = folder / entry.name
            inner = relative / entry.name
            if entry.is_symlink():
                if include is None or include.fullmatch(inner.as_posix()):
                    yield SourceSkip(what=path.as_posix(), reason="a symbolic link, not followed")
                continue
            is_dir = entry.is_dir(follow_symlinks=False)
            if ignores.ignores(inner, is_dir):
                continue
            if is_dir:
                yield from self._walk(path, inner, ignores)
            elif include is None or include.fullmatch(inner.as_posix()):
                yield path


class FileReader:
    """``file``: the one file at ``path``, with a folder item's metadata and a ``file`` source.

    Options: ``path`` (required), ``max_file_bytes``, ``workspace``, ``id``.
    """

    name = "file"
    source_option = "path"
    options = (MAX_FILE_BYTES,)
    OPTIONS = option_names(source_option, options, "workspace", "id")

    def claims(self, source: str) -> bool:
        """A file on disk."""
        return Path(source).expanduser().is_file()

    def count(self, context: ReaderContext) -> int:
        """One entry: the file (an archive is one too)."""
        return 1

    def read(self, context: ReaderContext) -> Iterator[tm.StoreItem | SourceSkip]:
        """Yield the file as a document, or a skip saying why it cannot be."""
        options = context.options
        check_names(self.name, options, self.OPTIONS)
        given = str(text_option(self.name, options, "path", required=True))
        cap = int_option(self.name, options, "max_file_bytes", DEFAULT_MAX_FILE_BYTES, 1, 1 << 40)
        workspace = text_option(self.name, options, "workspace")
        source = tm.SourceRef(kind=tm.SourceKind.FILE, id=text_option(self.name, options, "id"))
        path = Path(os.path.abspath(Path(given).expanduser()))
        if path.is_symlink() or not path.is_file():
            raise tm.InvalidRequest(f"`{given}` is not a regular file")
        path = Path(os.path.realpath(path.parent)) / path.name  # as the folder walk names it
        return _documents(path, path.parent.resolve(), cap, workspace, source)
