"""pip, one call at a time across the parallel environments of ``tox p``.

Several environments install this checkout's folders (the core, a plugin);
pip builds a local folder inside it (``build/``), so two such builds at once
can tear each other's files ("File exists", "No such file or directory").
tox runs every environment's installs through this file (``install_command``
in tox.ini): it holds an exclusive lock on ``.tox/pip.lock`` while pip runs.
"""

from __future__ import annotations

import fcntl
import subprocess
import sys
from pathlib import Path

LOCK = Path(__file__).resolve().parent.parent / ".tox" / "pip.lock"


def main() -> int:
    LOCK.parent.mkdir(exist_ok=True)
    with LOCK.open("w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        return subprocess.call([sys.executable, "-m", "pip", *sys.argv[1:]])


if __name__ == "__main__":
    sys.exit(main())
