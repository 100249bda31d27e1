"""`homar chat` whose model stalls on any message containing "think slowly" (tests only).

The Ctrl-C test needs a model call that takes long; this wraps the offline model, so the
production settings have no way to select it. Run as `python tests/bot/stalling_chat.py chat`.
"""

from __future__ import annotations

import asyncio
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from pydantic_ai.messages import ModelMessage, ModelResponse  # noqa: E402
from pydantic_ai.models import ModelRequestParameters  # noqa: E402
from pydantic_ai.models.wrapper import WrapperModel  # noqa: E402
from pydantic_ai.settings import ModelSettings  # noqa: E402

import bot.runtime  # noqa: E402
from bot.cli import main  # noqa: E402


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


_build = bot.runtime.build_runtime


def _stalling(*args: Any, **kwargs: Any) -> Any:
    runtime = _build(*args, **kwargs)
    return replace(runtime, model=StallingModel(runtime.model))


bot.runtime.build_runtime = _stalling  # type: ignore[assignment]

if __name__ == "__main__":
    main()
