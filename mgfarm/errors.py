"""Errors a user can cause; the CLI prints their message as one sentence and exits non-zero."""


class MgfarmError(Exception):
    """A problem the user can fix; the message names the thing and the fix."""

    exit_code = 1
