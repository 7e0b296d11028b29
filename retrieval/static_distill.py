"""Distil a model2vec static model from the bundled MiniLM, offline.

model2vec's own ``distill`` needs its ``distill`` extra (skeletoken, transformers<5.4), which
conflicts with the transformers that sentence-transformers here needs, so this module follows the
same recipe with the libraries at hand: one forward pass of MiniLM per vocabulary token
(``[CLS] token [SEP]``, mean pooled), PCA to ``dims`` dimensions, Zipf/SIF down-weighting of frequent
tokens (model2vec's ``sif_coefficient=1e-4``), then a model2vec ``StaticModel`` saved to disk with
MiniLM's own tokenizer.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path

import numpy as np

from ..settings import Settings

log = logging.getLogger(__name__)

STATIC_DIR_NAME = "minilm-static"
_BATCH = 512


def static_model_dir(settings: Settings) -> Path:
    """The home's own copy when it has one, else the shared per-user copy (``shared_models_dir``:
    the distilled model depends only on the bundled MiniLM)."""
    in_home = settings.models_dir / STATIC_DIR_NAME
    if (in_home / "config.json").is_file():
        return in_home
    return settings.shared_models_dir / STATIC_DIR_NAME


def _token_vectors(model_dir: Path, progress: bool) -> tuple[np.ndarray, object]:
    """Mean-pooled MiniLM output for every vocabulary token, in token-id order."""
    import torch
    from tokenizers import Tokenizer
    from transformers import AutoModel

    from .embeddings import _Progress

    tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    model = AutoModel.from_pretrained(str(model_dir)).eval()
    cls_id, sep_id = tokenizer.token_to_id("[CLS]"), tokenizer.token_to_id("[SEP]")
    vocab_size = tokenizer.get_vocab_size()
    out = np.zeros((vocab_size, model.config.hidden_size), dtype=np.float32)
    bar = _Progress(progress, vocab_size, "distilling minilm-static")
    try:
        with torch.inference_mode():
            for start in range(0, vocab_size, _BATCH):
                ids = torch.arange(start, min(start + _BATCH, vocab_size))
                batch = torch.stack(
                    [torch.full_like(ids, cls_id), ids, torch.full_like(ids, sep_id)], dim=1
                )
                hidden = model(input_ids=batch, attention_mask=torch.ones_like(batch),
                               token_type_ids=torch.zeros_like(batch)).last_hidden_state
                out[start:start + len(ids)] = hidden.mean(dim=1).numpy()
                bar.advance(len(ids))
    finally:
        bar.close()
    return out, tokenizer


def _pca(vectors: np.ndarray, dims: int) -> np.ndarray:
    centred = vectors - vectors.mean(axis=0)
    eigvals, eigvecs = np.linalg.eigh(centred.T @ centred / (len(vectors) - 1))
    components = eigvecs[:, ::-1][:, :dims]
    return (centred @ components).astype(np.float32)


def _sif_weights(n: int, sif: float = 1e-4) -> np.ndarray:
    # Token ids stand in for frequency ranks (model2vec does the same): Zipf probability per rank.
    inv_rank = 1.0 / np.arange(2, n + 2)
    proba = inv_rank / inv_rank.sum()
    return (sif / (sif + proba)).astype(np.float32)


def distill_static_model(source_dir: Path, target_dir: Path, *, dims: int = 256,
                         progress: bool = True) -> Path:
    """Build the static model from the sentence-transformers model in ``source_dir``."""
    from model2vec import StaticModel

    started = time.perf_counter()
    vectors, tokenizer = _token_vectors(source_dir, progress)
    vectors = _pca(vectors, dims) * _sif_weights(len(vectors))[:, None]
    config = {"model_type": "model2vec", "architectures": ["StaticModel"],
              "tokenizer_name": "all-MiniLM-L6-v2", "apply_pca": dims, "sif_coefficient": 1e-4,
              "hidden_dim": dims, "seq_length": 1000000, "normalize": True, "pooling": "mean"}
    model = StaticModel(vectors=vectors, tokenizer=tokenizer, config=config, normalize=True,
                        base_model_name="all-MiniLM-L6-v2")
    partial = target_dir.with_name(target_dir.name + ".partial")
    model.save_pretrained(str(partial))
    partial.rename(target_dir)  # only a complete model ever appears under the final name
    log.info("distilled %s in %.1fs", target_dir, time.perf_counter() - started)
    return target_dir


def ensure_static_model(settings: Settings, *, progress: bool = True) -> Path:
    """The local ``minilm-static`` model directory, distilled on first use."""
    from .embeddings import bundled_minilm_path

    target = static_model_dir(settings)
    if (target / "config.json").is_file():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    return distill_static_model(bundled_minilm_path(), target, progress=progress)
