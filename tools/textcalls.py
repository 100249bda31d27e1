"""Tool calls written as text, as small local models often do.

Two forms are understood:

* a JSON object naming a tool — `{"name": ..., "arguments": {...}}`, `{"tool": ...,
  "parameters": ...}`, `{"function": {"name": ..., "arguments": "..."}}` — bare or
  fenced in ```json, alone or at the end of a reply;
* seed 000's tags at the end of a reply: `[CRON: 'min hour day month dow' / MSG: '…']`
  and `[EXECUTE_NOW: '…']` (single or double quotes). The text before the tag is the
  confirmation; a reply ending in a question without a tag is a clarifier.

Parsing never raises.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

_FENCE = re.compile(r"```(?:json|JSON)?\s*(\{.*?\})\s*```", re.S)
_NAME_KEYS = ("name", "tool", "tool_name", "function", "action")
_ARG_KEYS = ("arguments", "parameters", "args", "params", "input", "kwargs")


@dataclass(frozen=True)
class TextCall:
    name: str
    args: dict[str, Any]
    before: str = ""  # any prose before the JSON


def _objects(text: str) -> list[tuple[int, str]]:
    """Candidate JSON object strings with their start offsets: fenced ones, then bare ones."""
    found = [(m.start(), m.group(1)) for m in _FENCE.finditer(text)]
    if found:
        return found
    out: list[tuple[int, str]] = []
    start = text.find("{")
    while start != -1 and len(out) < 5:
        depth, in_str, esc = 0, False, False
        for i in range(start, len(text)):
            ch = text[i]
            if in_str:
                esc = not esc and ch == "\\"
                if ch == '"' and not esc:
                    in_str = False
                continue
            if ch == '"':
                in_str = True
            elif ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
                if depth == 0:
                    out.append((start, text[start : i + 1]))
                    break
        else:
            break
        start = text.find("{", i + 1)
    return out


def _as_call(obj: Any, names: Collection[str]) -> tuple[str, dict[str, Any]] | None:
    if not isinstance(obj, dict):
        return None
    for nk in _NAME_KEYS:
        name = obj.get(nk)
        if isinstance(name, dict):  # OpenAI style {"function": {"name":…, "arguments":…}}
            return _as_call(name, names)
        if not isinstance(name, str) or name not in names:
            continue
        args: Any = next((obj[k] for k in _ARG_KEYS if k in obj), None)
        if args is None:
            args = {k: v for k, v in obj.items() if k != nk}
        if isinstance(args, str):
            try:
                args = json.loads(args)
            except ValueError:
                return None
        return (name, args) if isinstance(args, dict) else None
    return None


def parse_json_call(text: str, names: Collection[str]) -> TextCall | None:
    """The first JSON tool call in `text` naming one of `names`, or None."""
    try:
        for start, raw in _objects(text or ""):
            try:
                obj = json.loads(raw)
            except ValueError:
                continue
            call = _as_call(obj, names)
            if call is not None:
                before = _FENCE.sub("", text[:start]).strip().removesuffix("```json").strip()
                return TextCall(call[0], call[1], before)
    except Exception:
        return None
    return None


_Q = r"""(?:'(?P<{n}1>[^']*)'|"(?P<{n}2>[^"]*)")"""
_CRON_TAG = re.compile(
    r"\[\s*CRON\s*:\s*" + _Q.format(n="c") + r"\s*/\s*MSG\s*:\s*" + _Q.format(n="m") + r"\s*\]",
    re.I,
)
_NOW_TAG = re.compile(r"\[\s*EXECUTE_NOW\s*:\s*" + _Q.format(n="m") + r"\s*\]", re.I)


@dataclass(frozen=True)
class TagReply:
    """What a tagged reply asks for: kind is 'cron', 'now', 'clarifier', 'conflict' or 'text'."""

    kind: str
    friendly: str
    cron: str | None = None
    message: str | None = None


def _pick(m: re.Match[str], n: str) -> str:
    return (m.group(n + "1") if m.group(n + "1") is not None else m.group(n + "2")) or ""


def parse_tags(text: str) -> TagReply:
    """Classify a reply by seed 000's delimited tags."""
    text = (text or "").strip()
    try:
        crons = list(_CRON_TAG.finditer(text))
        nows = list(_NOW_TAG.finditer(text))
    except Exception:
        return TagReply("text", text)
    tags = sorted(crons + nows, key=lambda m: m.start())
    if len(tags) > 1:
        return TagReply("conflict", text[: tags[0].start()].strip())
    if tags:
        m = tags[0]
        friendly = text[: m.start()].strip()
        if m in crons:
            return TagReply(
                "cron", friendly, " ".join(_pick(m, "c").split()), _pick(m, "m").strip()
            )
        return TagReply("now", friendly, None, _pick(m, "m").strip())
    if text.rstrip("*_ ").endswith("?"):
        return TagReply("clarifier", text)
    return TagReply("text", text)
