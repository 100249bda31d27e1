"""Tool calls written as text, as small local models often do.

These forms are understood:

* a JSON object naming a tool — `{"name": ..., "arguments": {...}}`, `{"tool": ...,
  "parameters": ...}`, `{"function": {"name": ..., "arguments": "..."}}` — bare or
  fenced in ```json, alone or at the end of a reply, or a JSON list of them; doubled
  braces (`{{…}}`) as templated prompts teach;
* wrappers around those: `<tool_call>…</tool_call>` (Qwen, Hermes), `<tools>…</tools>`
  (with JSON or `<function name="…" arguments='{…}'/>` elements), `<function=name>{…}
  </function>`, Llama 3.x `<|python_tag|>…`, Mistral `[TOOL_CALLS] […]`; several calls in
  one reply are all read (`parse_calls`);
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


_WRAPPED = re.compile(
    r"<(tool_call|tools|function_call|functions)>\s*(.*?)\s*(?:</\1>|$)", re.S | re.I
)
_FN_ELEMENT = re.compile(
    r"<function\s+name\s*=\s*[\"']?(?P<name>[\w.-]+)[\"']?"
    r"(?:\s+(?:arguments|args|parameters)\s*=\s*(?:'(?P<a1>.*?)'|\"(?P<a2>(?:[^\"\\]|\\.)*)\"))?"
    r"\s*/?>(?:(?P<body>.*?)</function>)?",
    re.S | re.I,
)
_FN_EQ = re.compile(r"<function=(?P<name>[\w.-]+)>\s*(?P<body>\{.*?\})\s*</function>", re.S)
_MARKERS = re.compile(r"<\|python_tag\|>|\[TOOL_CALLS\]|<\|eom_id\|>|<\|eot_id\|>")


def _decode(raw: str) -> Any:
    """JSON, or JSON written with doubled braces; None when neither reads."""
    for cand in (raw, raw.replace("{{", "{").replace("}}", "}")):
        try:
            return json.loads(cand)
        except ValueError:
            continue
    return None


def _from_value(obj: Any, names: Collection[str]) -> list[tuple[str, dict[str, Any]]]:
    if isinstance(obj, list):
        return [c for item in obj[:8] for c in _from_value(item, names)]
    if isinstance(obj, dict) and isinstance(obj.get("tool_calls"), list):
        return _from_value(obj["tool_calls"], names)
    call = _as_call(obj, names)
    return [call] if call is not None else []


def _args(raw: str | None) -> dict[str, Any] | None:
    if raw is None or not raw.strip():
        return {}
    got = _decode(raw.replace("&quot;", '"'))
    return got if isinstance(got, dict) else None


def _elements(text: str, names: Collection[str]) -> list[tuple[str, dict[str, Any]]]:
    """`<function name="x" arguments='{…}'/>` and `<function=x>{…}</function>` elements."""
    out: list[tuple[str, dict[str, Any]]] = []
    for m in _FN_ELEMENT.finditer(text):
        name = m.group("name")
        raw = m.group("a1") if m.group("a1") is not None else m.group("a2")
        if raw is None and m.group("body"):
            raw = m.group("body")
        args = _args(raw)
        if name in names and args is not None:
            out.append((name, args))
    for m in _FN_EQ.finditer(text):
        args = _args(m.group("body"))
        if m.group("name") in names and args is not None:
            out.append((m.group("name"), args))
    return out


def _arrays(text: str) -> list[str]:
    """Top-level JSON arrays (Mistral's `[TOOL_CALLS] [...]`)."""
    out: list[str] = []
    i = text.find("[")
    while i != -1 and len(out) < 3:
        depth = 0
        for j in range(i, len(text)):
            if text[j] == "[":
                depth += 1
            elif text[j] == "]":
                depth -= 1
                if depth == 0:
                    out.append(text[i : j + 1])
                    break
        else:
            break
        i = text.find("[", j + 1)
    return out


def parse_calls(text: str, names: Collection[str]) -> list[TextCall]:
    """Every tool call written in `text` naming one of `names`, in order (at most 8)."""
    try:
        return _parse_calls(text or "", names)[:8]
    except Exception:
        return []


def _parse_calls(text: str, names: Collection[str]) -> list[TextCall]:
    calls: list[tuple[str, dict[str, Any]]] = []
    first = len(text)
    for m in _WRAPPED.finditer(text):
        first = min(first, m.start())
        body = m.group(2)
        found = _elements(body, names)
        if not found:
            for _, raw in _objects(body):
                found += _from_value(_decode(raw), names)
            if not found:
                for raw in _arrays(body):
                    found += _from_value(_decode(raw), names)
        calls += found
    if not calls:
        calls = _elements(text, names)
        if calls:
            first = min(m.start() for m in (_FN_ELEMENT.search(text), _FN_EQ.search(text)) if m)
    if not calls:
        marker = _MARKERS.search(text)
        body = _MARKERS.sub(" ", text)
        if marker:
            first = marker.start()
        for raw in _arrays(body) if "[" in body.split("{", 1)[0] else []:
            calls += _from_value(_decode(raw), names)
        if not calls:
            for start, raw in _objects(body):
                got = _from_value(_decode(raw), names)
                if got and not marker:
                    first = min(first, start)
                calls += got
    before = _FENCE.sub("", text[:first]).strip().removesuffix("```json").strip()
    before = _MARKERS.sub("", before).strip()
    return [TextCall(n, a, before if i == 0 else "") for i, (n, a) in enumerate(calls)]


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
