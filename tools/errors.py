"""The one error type a user can cause, with a message that says what to do instead."""


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
