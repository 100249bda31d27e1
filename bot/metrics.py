"""Prometheus metrics: jobs by status, deliveries, lateness, failures and model calls."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from datetime import datetime

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

from bot.dispatcher import Delivered, Delivery, DeliveryError, Transport
from storage.jobs import JobStore

LATENESS_BUCKETS = (0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 3600)
MODEL_BUCKETS = (0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 60)


class Metrics:
    """One process's metrics, in a registry of its own (several bots may share a test process)."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        self.jobs = Gauge(
            "homar_jobs", "Jobs by status (active = pending).", ["status"], registry=r
        )
        self.due = Gauge("homar_jobs_due", "Active jobs whose time has come.", registry=r)
        self.fired = Counter(
            "homar_deliveries",
            "Runs delivered, by route (thread, dm, parent).",
            ["route"],
            registry=r,
        )
        self.lateness = Histogram(
            "homar_delivery_lateness_seconds",
            "Delivery time minus the scheduled time.",
            buckets=LATENESS_BUCKETS,
            registry=r,
        )
        self.failures = Counter(
            "homar_delivery_failures", "Failed delivery attempts.", ["retryable"], registry=r
        )
        self.model_requests = Counter(
            "homar_model_requests", "Agent runs, by outcome.", ["outcome"], registry=r
        )
        self.model_latency = Histogram(
            "homar_model_latency_seconds",
            "How long an agent run took.",
            buckets=MODEL_BUCKETS,
            registry=r,
        )

    def counted(self, transport: Transport, now: Callable[[], datetime]) -> Transport:
        """The transport, counting what it delivers and fails (give it to the dispatcher)."""
        return _Counted(transport, self, now)

    @asynccontextmanager
    async def model_call(self) -> AsyncIterator[Callable[[str], None]]:
        """Time one agent run; call the yielded function with its outcome (ok, error, …)."""
        outcome = ["ok"]
        started = time.perf_counter()
        try:
            yield lambda value: outcome.__setitem__(0, value)
        except BaseException:
            outcome[0] = "error" if outcome[0] == "ok" else outcome[0]
            raise
        finally:
            self.model_latency.observe(time.perf_counter() - started)
            self.model_requests.labels(outcome[0]).inc()

    async def refresh(self, store: JobStore, now: datetime) -> None:
        """Job counts from the database (on scrape: other processes change them too)."""
        for status, count in (await store.count_by_status()).items():
            self.jobs.labels(status).set(count)
        self.due.set(await store.count_due(now))


class _Counted:
    def __init__(self, inner: Transport, metrics: Metrics, now: Callable[[], datetime]) -> None:
        self.inner = inner
        self.metrics = metrics
        self.now = now

    async def deliver(self, delivery: Delivery) -> Delivered:
        try:
            result = await self.inner.deliver(delivery)
        except DeliveryError as exc:
            self.metrics.failures.labels(str(exc.retryable).lower()).inc()
            raise
        except Exception:
            self.metrics.failures.labels("true").inc()
            raise
        self.metrics.fired.labels(result.route).inc()
        late = (self.now() - delivery.scheduled_for).total_seconds()
        self.metrics.lateness.observe(max(0.0, late))
        return result

    def __getattr__(self, name: str) -> object:
        return getattr(self.inner, name)
