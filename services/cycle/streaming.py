"""How an answer reaches the user as it is written: text the model did not write, a request's
answer cut where its list ends, and what a held-back or cut answer still has to show."""

from __future__ import annotations

from services.cycle.hygiene import MAX_POINTS, is_looping, points_cut, too_many_points
from services.cycle.steps import CycleState
from services.cycle.voice import VoiceStream


async def send_text(state: CycleState, text: str) -> None:
    """Stream text the model did not write (an acknowledgement, a note) to the user."""
    if state.on_token is not None and text:
        maybe = state.on_token(text)
        if maybe is not None:
            await maybe


class ShownPoints:
    """Streams an answer; a request's answer no further than its list may go (five points, none
    given twice: hygiene.points_cut), however the model's output arrives in pieces."""

    def __init__(self, state: CycleState, voice: VoiceStream, request: bool) -> None:
        self.state, self.voice, self.request = state, voice, request
        self.ended = False

    async def feed(self, piece: str) -> None:
        if self.ended:
            return
        cut = points_cut(self.voice.raw + piece, points_limit(self.request))
        if cut is not None:
            self.ended = True
            piece = (self.voice.raw + piece)[:cut][len(self.voice.raw) :]
        await send_text(self.state, self.voice.feed(piece))


async def send_rest(state: CycleState, voice: VoiceStream | None, answer: str, note: str) -> None:
    """What the user has not seen of the answer: all of it when it was held back (``voice``
    None), else what the stream has not shown, and a loop's note when the cut fell short of it."""
    if voice is None:
        await send_text(state, answer)
        return
    rest = voice.finish(answer)
    await send_text(state, rest)
    if note and not rest.endswith(note):  # a loop cut short of what was shown: the note alone
        await send_text(state, note)


def request_stop(text: str) -> bool:
    return is_looping(text) or too_many_points(text)


def points_limit(request: bool) -> int | None:
    """How many points a list may give: five for help asked for, any number otherwise; a point
    given again ends a list either way (live: "what could I make for dinner tonight that's
    quick?" listed "A simple stir-fry with mixed greens and tofu." three times)."""
    return MAX_POINTS if request else None


def points_kept(answer: str, request: bool = True) -> str:
    """The answer without the points past the limit or given twice."""
    cut = points_cut(answer, points_limit(request), whole=True)
    return answer if cut is None else answer[:cut].rstrip()
