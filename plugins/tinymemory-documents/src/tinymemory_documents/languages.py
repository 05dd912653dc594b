"""``language_for_path``: the programming language a file name says, from a fixed table.

The names are part of the wire contract (``meta.language``), so the table is
fixed here rather than taken from ``mimetypes`` or a guesser.
"""

from __future__ import annotations

from pathlib import PurePath

#: Whole file names that are code whatever their extension (checked first).
_FILE_NAMES = {
    "dockerfile": "dockerfile",
    "containerfile": "dockerfile",
    "makefile": "makefile",
    "gnumakefile": "makefile",
    "cmakelists.txt": "cmake",
    "rakefile": "ruby",
    "gemfile": "ruby",
    "justfile": "just",
}

_EXTENSIONS = {
    "rs": "rust",
    "py": "python",
    "pyi": "python",
    "pyw": "python",
    "ts": "typescript",
    "tsx": "typescript",
    "mts": "typescript",
    "cts": "typescript",
    "js": "javascript",
    "jsx": "javascript",
    "mjs": "javascript",
    "cjs": "javascript",
    "json": "json",
    "jsonc": "json",
    "yaml": "yaml",
    "yml": "yaml",
    "toml": "toml",
    "xml": "xml",
    "go": "go",
    "java": "java",
    "kt": "kotlin",
    "kts": "kotlin",
    "scala": "scala",
    "groovy": "groovy",
    "gradle": "groovy",
    "c": "c",
    "h": "c",
    "cc": "cpp",
    "cpp": "cpp",
    "cxx": "cpp",
    "hh": "cpp",
    "hpp": "cpp",
    "hxx": "cpp",
    "cs": "csharp",
    "fs": "fsharp",
    "swift": "swift",
    "m": "objective-c",
    "mm": "objective-c",
    "rb": "ruby",
    "php": "php",
    "pl": "perl",
    "pm": "perl",
    "lua": "lua",
    "r": "r",
    "jl": "julia",
    "dart": "dart",
    "ex": "elixir",
    "exs": "elixir",
    "erl": "erlang",
    "hrl": "erlang",
    "hs": "haskell",
    "ml": "ocaml",
    "mli": "ocaml",
    "clj": "clojure",
    "cljs": "clojure",
    "elm": "elm",
    "zig": "zig",
    "nim": "nim",
    "v": "verilog",
    "sv": "systemverilog",
    "vhd": "vhdl",
    "sh": "shell",
    "bash": "shell",
    "zsh": "shell",
    "fish": "fish",
    "ps1": "powershell",
    "bat": "batch",
    "cmd": "batch",
    "sql": "sql",
    "graphql": "graphql",
    "gql": "graphql",
    "proto": "protobuf",
    "css": "css",
    "scss": "scss",
    "sass": "sass",
    "less": "less",
    "vue": "vue",
    "svelte": "svelte",
    "tf": "hcl",
    "hcl": "hcl",
    "nix": "nix",
    "cmake": "cmake",
    "mk": "makefile",
    "ini": "ini",
    "cfg": "ini",
    "diff": "diff",
    "patch": "diff",
    "tex": "latex",
    "sol": "solidity",
}


def language_for_path(path: str) -> str | None:
    """The language of the file at ``path`` (``"python"``, ``"rust"``, ...), or None."""
    name = PurePath(path.replace("\\", "/")).name.lower()
    if name in _FILE_NAMES:
        return _FILE_NAMES[name]
    stem, dot, extension = name.rpartition(".")
    if not dot or not stem:
        return None
    return _EXTENSIONS.get(extension)
