"""`homar chat` whose model stalls on any message containing "think slowly" (tests only).

The Ctrl-C test needs a model call that takes long; this wraps the offline model, so the
production settings have no way to select it.
Run as `PYTHONPATH=. python tests/bot/stalling_chat.py chat`.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import Any

from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models import ModelRequestParameters
from pydantic_ai.models.wrapper import WrapperModel
from pydantic_ai.settings import ModelSettings

import bot.runtime
from bot.cli import main


class StallingModel(WrapperModel):
    async def request(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
    ) -> ModelResponse:
        if "think slowly" in str(messages[-1]):
            await asyncio.sleep(3600)
        return await super().request(messages, model_settings, model_request_parameters)


_build = bot.runtime.build_agent_kit


def _stalling(*args: Any, **kwargs: Any) -> Any:
    runtime = _build(*args, **kwargs)
    return replace(runtime, model=StallingModel(runtime.model))


bot.runtime.build_agent_kit = _stalling  # type: ignore[assignment]

if __name__ == "__main__":
    main()
