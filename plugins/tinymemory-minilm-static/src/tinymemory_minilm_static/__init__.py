"""TinyMemory's default embedder ``minilm-static``: all-MiniLM-L6-v2 distilled to a static model.

The model ships in this package (``model/``: model2vec's format, 256
dimensions, float16, about 16 MB, Apache-2.0 like the transformer it comes
from): installing the package gives recall by meaning with no download and no
torch. The plugin names it the default embedder of every engine whose settings
name none (:mod:`.plugin`); :mod:`.embedder` reads it.
"""
