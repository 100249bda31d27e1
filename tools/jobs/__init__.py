"""The job lifecycle, one module per stage: `model` (values and typed follow-up state),
`limits` (guardrails), `commands` (create/read/change), `runs` (claim/decide/record and
the pure advances), `reminders` (follow-ups, acknowledge, snooze), `retry`, `marker`
(the marker and the fired prompt), and `engine` (the object that composes them)."""
