"""What the slow loop still has to do, said to the user (issue 38: background work shows itself).

Facts are read from messages and insights crystallized in the background; until then ``thea
insights``, ``thea memories`` and the page would look empty or behind with nothing saying why.
Each says this line instead when work waits: how many jobs are queued, how many of the user's
messages are still to be read, and roughly how long at the pace of the last jobs.
"""

from __future__ import annotations

#: how far back a message still waiting to be read counts (one whose job failed long ago is for
#: ``thea jobs``, not for this line)
UNREAD_WINDOW_MS = 7 * 24 * 3600 * 1000


def about(seconds: float) -> str:
    """ "about 40 s", "about 3 min", "about 2 h"."""
    if seconds < 60:
        return f"about {max(round(seconds), 1)} s"
    if seconds < 3600:
        return f"about {round(seconds / 60)} min"
    return f"about {seconds / 3600:.1f} h".replace(".0 h", " h")


def backlog_summary(jobs: int, unread: int, eta_s: float | None, at_least: bool = False) -> str:
    """One line for people, or "" when nothing waits. ``unread`` counts only while jobs are
    queued (a message whose job is gone is not "being read"); ``at_least``: some jobs have no
    pace known yet and are not in ``eta_s``."""
    if jobs <= 0:
        return ""
    line = f"The slow loop is still at work: {jobs} job{'s' if jobs != 1 else ''} queued"
    unread = min(unread, jobs)
    if unread:
        line += f", {unread} of your messages still to be read"
    if eta_s is not None:
        line += f" ({'at least ' if at_least else ''}{about(eta_s)})"
    return line + "; facts and insights appear as they are done."
