"""Smart acknowledgement: does a person's chat message answer the reminder they were sent?"""

from __future__ import annotations

import logging

from pydantic_ai import Agent
from pydantic_ai.models import Model
from pydantic_ai.usage import UsageLimits

from tools.agent.offline import is_offline

log = logging.getLogger(__name__)

ACK_INSTRUCTIONS = (
    "You decide whether a person's chat message acknowledges a reminder they were sent "
    "(they did it, will do it, saw it, or dismiss it). Answer true or false."
)


async def acknowledges(model: Model, reminder: str, reply: str) -> bool:
    """Smart mode: does `reply` acknowledge `reminder`? Offline or failing → yes (simple)."""
    if is_offline(model):
        return True
    agent = Agent(model, output_type=bool, instructions=ACK_INSTRUCTIONS)
    try:
        result = await agent.run(
            f"Reminder: {reminder}\nTheir message: {reply}",
            usage_limits=UsageLimits(request_limit=2),
        )
    except Exception as exc:  # the model is only a refinement; never lose the message
        log.warning("acknowledgement check failed (%s); treating the reply as an answer", exc)
        return True
    return bool(result.output)
