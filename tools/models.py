"""Model selection from settings strings, always ending in the built-in offline model."""

from __future__ import annotations

import logging

from pydantic_ai.models import Model, infer_model
from pydantic_ai.models.fallback import FallbackModel

from tools.agent.offline import offline_model

log = logging.getLogger(__name__)


def make_model(name: str, base_url: str | None = None, api_key: str | None = None) -> Model:
    """One model: an OpenAI-compatible server at `base_url`, or a pydantic-ai model string."""
    if base_url:
        from pydantic_ai.models.openai import OpenAIChatModel
        from pydantic_ai.providers.openai import OpenAIProvider

        bare = name.split(":", 1)[1] if name.startswith(("openai:", "openai-chat:")) else name
        provider = OpenAIProvider(base_url=base_url, api_key=api_key or "not-needed")
        return OpenAIChatModel(bare, provider=provider)
    return infer_model(name)


def build_model(
    model: str | None = None,
    base_url: str | None = None,
    api_key: str | None = None,
    fallback: str | None = None,
) -> Model:
    """`model` (via `base_url` if given), then `fallback`, then the offline model.

    A model that cannot be built (unknown name, missing API key) is skipped with a
    warning; with none left the offline model is used alone. Any error from a model
    request falls through to the next model.
    """
    chain: list[Model] = []
    for name, url, key in ((model, base_url, api_key), (fallback, None, None)):
        if not name or not name.strip():
            continue
        try:
            chain.append(make_model(name.strip(), url, key))
        except Exception as exc:
            log.warning("cannot use model %r: %s", name, exc)
    offline = offline_model()
    if not chain:
        return offline
    return FallbackModel(chain[0], *chain[1:], offline, fallback_on=(Exception,))
