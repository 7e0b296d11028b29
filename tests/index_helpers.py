"""Shared pieces for the index tests: the distilled minilm-static from the per-user model cache."""

from __future__ import annotations

from pathlib import Path

from surveygraph.retrieval.static_distill import STATIC_DIR_NAME, distill_static_model
from surveygraph.settings import Settings


def cached_static_model(cache_root: Path | None = None) -> Path:
    """minilm-static from the per-user model cache that `surveygraph corpus prepare-models` fills
    (distilled here, ~1.5 min, only on a machine where it never ran). ``cache_root`` is unused."""
    from surveygraph.retrieval.embeddings import bundled_minilm_path

    target = Settings().shared_models_dir / STATIC_DIR_NAME
    if not (target / "config.json").is_file():
        distill_static_model(bundled_minilm_path(), target, progress=False)
    return target


def link_static_model(home: Path, model_dir: Path) -> None:
    """Make ``home`` see the cached model as its own models/minilm-static."""
    models = home / "models"
    models.mkdir(parents=True, exist_ok=True)
    link = models / STATIC_DIR_NAME
    if not link.exists():
        link.symlink_to(model_dir, target_is_directory=True)
