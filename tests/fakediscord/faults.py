"""Fault injection: the next N requests matching a method and path fail with a status, a
429 with Discord's rate-limit headers, or a dropped connection."""

from __future__ import annotations

import asyncio
import re
import time
from typing import Any

from aiohttp import web

from .models import (
    Fault,
)
from .responses import json_response


class Faults:
    """Faults wait in `faults` until a matching request takes them (`Fault.hits` counts)."""

    def __init__(self) -> None:
        super().__init__()
        self.faults: list[Fault] = []

    def inject_fault(
        self,
        method: str,
        path_regex: str,
        *,
        status: int = 500,
        count: int = 1,
        drop: bool = False,
        retry_after: float = 0.05,
        body: Any = None,
        is_global: bool = False,
    ) -> Fault:
        """The next ``count`` requests matching method + path regex (path relative to the API base,
        e.g. ``r"/channels/\\d+/messages$"``) fail with ``status`` (or a dropped connection)."""
        fault = Fault(
            method=method.upper(),
            path_re=re.compile(path_regex),
            status=status,
            remaining=count,
            drop=drop,
            retry_after=retry_after,
            body=body,
            is_global=is_global,
        )
        self.faults.append(fault)
        return fault

    def _take_fault(self, method: str, path: str) -> Fault | None:
        for fault in self.faults:
            if fault.remaining > 0 and fault.method in (method, "*") and fault.path_re.search(path):
                fault.remaining -= 1
                fault.hits += 1
                return fault
        return None

    async def _fault_response(self, request: web.Request, fault: Fault) -> web.StreamResponse:
        if fault.drop:
            transport = request.transport
            if transport is not None:
                transport.abort()
            raise asyncio.CancelledError()
        if fault.status == 429:
            reset = time.time() + fault.retry_after
            headers = {
                "Retry-After": str(fault.retry_after),
                "X-RateLimit-Limit": "5",
                "X-RateLimit-Remaining": "0",
                "X-RateLimit-Reset": f"{reset:.3f}",
                "X-RateLimit-Reset-After": f"{fault.retry_after:.3f}",
                "X-RateLimit-Bucket": "fakebucket",
                "X-RateLimit-Scope": "global" if fault.is_global else "user",
                "Via": "1.1 google",
            }
            if fault.is_global:
                headers["X-RateLimit-Global"] = "true"
            body = fault.body or {
                "message": "You are being rate limited.",
                "retry_after": fault.retry_after,
                "global": fault.is_global,
                "code": 0,
            }
            return json_response(body, status=429, headers=headers)
        body = fault.body or {"code": 0, "message": f"{fault.status}: injected fault"}
        return json_response(body, status=fault.status)
