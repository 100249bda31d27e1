"""The errors a user can cause, each with a message that says what to do instead."""

from tools.message_size import trim


class UserError(ValueError):
    """Something a person asked for cannot be done; `message` is safe to show them."""

    @property
    def message(self) -> str:
        return str(self.args[0]) if self.args else "That request is not valid."


class JobNotFound(UserError):
    pass


class NotAllowed(UserError):
    pass


class LimitReached(UserError):
    pass


class NoSuchDate(UserError):
    """A date its month does not have ("Feb 30"): only the person can say which day they meant."""


class ScheduleError(UserError):
    """A schedule a user asked for cannot work; the message says what to type instead."""


QUOTE_LIMIT = 60  # characters of a person's own input an error message repeats back


def quoted(text: str, limit: int = QUOTE_LIMIT) -> str:
    """A person's input as an error message repeats it: on one line, at most `limit`
    characters (whole characters, then "…"), in quotes. A message never echoes a wall of
    pasted text back, nor breaks its own layout with the input's line breaks."""
    return f"“{trim(' '.join(text.split()), limit)}”"
