"""Homar's agent: a pydantic-ai Agent that schedules, and `run_agent`, which never raises.

- `prompt`: the instructions and the per-run reference time
- `deps`: `HomarDeps` (who asks, where, when; built once per message) and `RunState`
- `scheduling`: the scheduling tools (create, list, change jobs) and their confirmations
- `todo`: the thread's to-do list and its tools; `profile`: "my time zone is …"
- `words`: the person's live message read for its time (it wins over a tool's argument)
- `reading`: a model's reply read as meant (text tool calls, repaired arguments)
- `textcalls`, `replies`: tool calls and seed-000 tags written as text, and carrying them out
- `provenance`: which text is the model's own reply to a person (and which is only data)
- `offline`: the built-in rule-based model; `acknowledge`: does a chat reply answer a reminder
- `build`: the Agent, its tools and outputs; `run`: `run_agent`/`resume_approval`, with the
  one offline fallback
"""

from tools.agent.acknowledge import acknowledges
from tools.agent.build import build_agent
from tools.agent.deps import HomarDeps, RunState
from tools.agent.run import AgentKit, AgentReply, build_agent_kit, resume_approval, run_agent

__all__ = [
    "AgentKit",
    "AgentReply",
    "HomarDeps",
    "RunState",
    "acknowledges",
    "build_agent",
    "build_agent_kit",
    "resume_approval",
    "run_agent",
]
