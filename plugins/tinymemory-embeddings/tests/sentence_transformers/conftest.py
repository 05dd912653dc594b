"""The real model's tests run offline: the bundled model is read from its folder, and no
library may reach a model hub (set before sentence-transformers is first imported)."""

from __future__ import annotations

import os

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"
