"""The command line over the postgres engine: a memory moved whole by export/import."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import tinymemory as tm
from tinymemory_postgres.cluster import ThrowawayCluster

COMMAND = Path(sys.executable).parent / "tinymemory"


def _run(env: dict[str, str], cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(
        [str(COMMAND), *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=120,
        check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    return result


def _user(tmp_path: Path, config: str) -> dict[str, str]:
    """A user whose configuration file is ``config`` and whose data lives in ``tmp_path``."""
    path = tmp_path / f"config-{abs(hash(config))}.toml"
    path.write_text(config, encoding="utf-8")
    env = {**os.environ, "HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path / "data")}
    env["TINYMEMORY_CONFIG"] = str(path)
    for name in ("TINYMEMORY_ENGINE", "TINYMEMORY_API_KEY", "TINYMEMORY_SQLITE_PATH"):
        env.pop(name, None)
    return env


def test_a_memory_moves_whole_from_one_schema_to_another(
    tmp_path: Path, cluster: ThrowawayCluster, schema: str
) -> None:
    items: list[tm.StoreItem] = [
        tm.Learning(text="deploys go out on tuesdays", meta=tm.MemoryMeta(tags=("ops",))),
        tm.Document(
            title="Runbook",
            body="# Restart\n\nDrain the node first.\f# Rollback\n\nKeep the last image.",
            meta=tm.MemoryMeta(
                namespace=tm.Namespace.parse("team:acme/agent:ops"),
                workspace="infra",
                folder="docs/ops",
                file_path="docs/ops/runbook.md",
            ),
        ),
        tm.Learning(text='unicode survives: éüßøñ 中 🙂 "quoted"\n\ttabbed', confidence=0.4),
    ]
    old = f"{schema}_old"
    options = {"conninfo": cluster.socket_conninfo, "schema": old}
    with tm.build_engine("postgres", tm.EngineSettings(options=options)) as engine:
        engine.store_many(items)
    old_user, postgres_user = (
        _user(
            tmp_path,
            f'engine = "postgres"\n[engines.postgres]\nconninfo = "{cluster.socket_conninfo}"\n'
            f'schema = "{name}"\n',
        )
        for name in (old, schema)
    )
    _run(old_user, tmp_path, "export", "-o", str(tmp_path / "memory.jsonl"))
    imported = _run(postgres_user, tmp_path, "import", "--json", str(tmp_path / "memory.jsonl"))
    assert json.loads(imported.stdout)["stored"] == len(items)
    _run(postgres_user, tmp_path, "export", "-o", str(tmp_path / "moved.jsonl"))
    before = (tmp_path / "memory.jsonl").read_text(encoding="utf-8").splitlines()
    after = (tmp_path / "moved.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(before) == len(items)
    assert after == before, "the same items, ids and JSON, in the same order"
    again = _run(postgres_user, tmp_path, "import", "--json", str(tmp_path / "memory.jsonl"))
    assert json.loads(again.stdout)["stored"] == 0, "importing twice stores nothing new"
