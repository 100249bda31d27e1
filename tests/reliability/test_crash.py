"""The real bot process, SIGKILLed at random moments: every job's answer lands exactly once.

Kills land during start-up, mid-delivery or recording, and between a marker and its
answer (inside the re-feed); a job counts only when its answer was posted once.
"""

from __future__ import annotations

from pathlib import Path

from tests.reliability.crashkit import crash_run


async def test_sigkill_cycles_lose_nothing_and_duplicate_nothing(tmp_path: Path) -> None:
    report = await crash_run(tmp_path, jobs=150, cycles=6, finish_timeout=150)
    print(report)
    assert report.refeed_kills >= 1, report  # the marker-to-answer window was hit
    assert report.lost == 0, report
    assert report.duplicates == 0, report
    assert report.marker_lost == 0 and report.marker_duplicates == 0, report
    assert report.unfinished == 0, report
