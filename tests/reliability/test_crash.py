"""The real bot process, SIGKILLed at random moments 10 times: every job lands exactly once."""

from __future__ import annotations

from pathlib import Path

from tests.reliability.crashkit import crash_run


async def test_sigkill_cycles_lose_nothing_and_duplicate_nothing(tmp_path: Path) -> None:
    report = await crash_run(tmp_path, jobs=500, cycles=10)
    print(report)
    assert report.lost == 0, report
    assert report.duplicates == 0, report
    assert report.unfinished == 0, report
