"""Model selection from settings strings, always ending in the built-in offline model."""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, replace
from typing import Any, cast

import aiohttp
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart
from pydantic_ai.models import Model, ModelRequestParameters, infer_model
from pydantic_ai.models.fallback import FallbackModel
from pydantic_ai.models.wrapper import WrapperModel
from pydantic_ai.settings import ModelSettings

from tools.agent.offline import offline_model
from tools.agent.reading import REPLY_START

log = logging.getLogger(__name__)

_PROBE_AGAIN_S = 60.0  # a server that didn't answer what it is is asked again after this


@dataclass(init=False)
class ContinuingModel(WrapperModel):
    """A model on an OpenAI-compatible server, which may be handed the beginning of its
    reply (`tools.agent.reading.REPLY_START`, set when a tool call is certainly wanted).

    llama.cpp's server continues an assistant message that ends the conversation (and
    returns it whole): the model then writes its call compactly from there. Whether the
    server is llama.cpp is asked once (its `/props`); any other server never gets the
    beginning, and the request is the plain one.
    """

    props_url: str
    _continues: bool | None
    _asked_at: float

    def __init__(self, wrapped: Model, base_url: str) -> None:
        super().__init__(wrapped)
        root = base_url.rstrip("/")
        root = root[: -len("/v1")] if root.endswith("/v1") else root
        self.props_url = root + "/props"
        self._continues = None
        self._asked_at = -_PROBE_AGAIN_S

    async def continues(self) -> bool:
        """Whether the server continues a reply it is given (llama.cpp's does)."""
        if self._continues is not None:
            return self._continues
        if time.monotonic() - self._asked_at < _PROBE_AGAIN_S:
            return False
        self._asked_at = time.monotonic()
        try:
            timeout = aiohttp.ClientTimeout(total=2.0)
            async with (
                aiohttp.ClientSession(timeout=timeout) as session,
                session.get(self.props_url) as r,
            ):
                props = await r.json(content_type=None) if r.status == 200 else None
        except (aiohttp.ClientError, TimeoutError, ValueError):
            return False  # down or not answering: asked again later
        self._continues = isinstance(props, dict) and "default_generation_settings" in props
        return self._continues

    async def request(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
    ) -> ModelResponse:
        settings: dict[str, Any] = dict(model_settings or {})
        start = settings.pop(REPLY_START, None)
        plain = cast(ModelSettings, settings) if model_settings is not None else None
        if not isinstance(start, str) or not start or not await self.continues():
            return await super().request(messages, plain, model_request_parameters)
        begun = [*messages, ModelResponse(parts=[TextPart(start)])]
        response = await super().request(begun, plain, model_request_parameters)
        return _begun_with(response, start)


def _begun_with(response: ModelResponse, start: str) -> ModelResponse:
    """The response's text as the whole reply: the beginning it was given, then what it
    wrote (a server that returns only the continuation gets the beginning put back)."""
    parts = list(response.parts)
    for i, part in enumerate(parts):
        if isinstance(part, TextPart):
            if not part.content.startswith(start):
                parts[i] = replace(part, content=start + part.content)
            return replace(response, parts=parts)
    return response


def make_model(name: str, base_url: str | None = None, api_key: str | None = None) -> Model:
    """One model: an OpenAI-compatible server at `base_url`, or a pydantic-ai model string."""
    if base_url:
        from pydantic_ai.models.openai import OpenAIChatModel
        from pydantic_ai.providers.openai import OpenAIProvider

        bare = name.split(":", 1)[1] if name.startswith(("openai:", "openai-chat:")) else name
        provider = OpenAIProvider(base_url=base_url, api_key=api_key or "not-needed")
        return ContinuingModel(OpenAIChatModel(bare, provider=provider), base_url)
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
