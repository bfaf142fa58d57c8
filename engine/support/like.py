"""SQL LIKE and MySQL host patterns, matched in linear-ish time without regexes.

``%`` matches any sequence (also empty), ``_`` exactly one character, ``\\`` makes the next
character literal (a trailing ``\\`` is itself literal, as in MySQL). No regex, no backtracking:
the pattern is split at ``%`` into segments of literals and ``_``; the first segment must match
at the start, the last at the end, and each one between is placed at its leftmost fit (always
safe, since a ``%`` follows it). Candidate positions come from ``str.find`` on a segment's longest
literal run, so the worst case is O(len(pattern) · len(text)) and common cases are linear —
thousands of ``%`` cost nothing, unlike the exponential backtracking of a translated regex.

https://dev.mysql.com/doc/refman/8.0/en/string-comparison-functions.html#operator_like
"""

from __future__ import annotations

from dataclasses import dataclass

ANY_SEQUENCE = "%"
ANY_ONE = "_"
ESCAPE = "\\"


@dataclass(frozen=True)
class _Segment:
    """The pattern between two ``%``: its length and its literal runs (``_`` are the gaps)."""

    length: int
    runs: tuple[tuple[int, str], ...]  # (offset, literal text)

    def at(self, text: str, i: int, end: int) -> bool:
        return i + self.length <= end and all(text.startswith(s, i + o) for o, s in self.runs)

    def find(self, text: str, lo: int, hi: int) -> int:
        """The leftmost position in [lo, hi) where the segment fits and matches, or -1."""
        if not self.runs:
            return lo if lo + self.length <= hi else -1
        offset, anchor = max(self.runs, key=lambda r: len(r[1]))
        pos = text.find(anchor, lo + offset, hi - self.length + offset + len(anchor))
        while pos >= 0:
            if self.at(text, pos - offset, hi):
                return pos - offset
            pos = text.find(anchor, pos + 1, hi - self.length + offset + len(anchor))
        return -1


@dataclass(frozen=True)
class LikePattern:
    """A compiled LIKE pattern; ``fullmatch`` answers whether the whole text matches."""

    pattern: str
    case_insensitive: bool = True
    escapes: bool = True

    def __post_init__(self) -> None:
        pattern = _fold(self.pattern) if self.case_insensitive else self.pattern
        object.__setattr__(self, "_segments", _compile(pattern, self.escapes))

    def fullmatch(self, text: str) -> bool:
        segments: list[_Segment] = self._segments  # type: ignore[attr-defined]
        return _match(segments, _fold(text) if self.case_insensitive else text)


def like(text: str, pattern: str, case_insensitive: bool = True, escapes: bool = True) -> bool:
    """``text LIKE pattern`` (MySQL's default collation is case-insensitive)."""
    return LikePattern(pattern, case_insensitive, escapes).fullmatch(text)


def _fold(text: str) -> str:
    # lower() may expand a character (İ → i̇); pattern and text are folded the same way
    return text.lower()


def _compile(pattern: str, escapes: bool) -> list[_Segment]:
    """Pattern text → the segments between ``%`` (always at least one)."""
    segments: list[_Segment] = []
    runs: list[tuple[int, str]] = []
    length, i = 0, 0
    while i < len(pattern):
        ch = pattern[i]
        if escapes and ch == ESCAPE and i + 1 < len(pattern):
            ch, i = pattern[i + 1], i + 1
        elif ch == ANY_SEQUENCE:
            segments.append(_Segment(length, tuple(runs)))
            runs, length, i = [], 0, i + 1
            continue
        elif ch == ANY_ONE:
            length, i = length + 1, i + 1
            continue
        if runs and runs[-1][0] + len(runs[-1][1]) == length:
            runs[-1] = (runs[-1][0], runs[-1][1] + ch)
        else:
            runs.append((length, ch))
        length, i = length + 1, i + 1
    segments.append(_Segment(length, tuple(runs)))
    return segments


def _match(segments: list[_Segment], text: str) -> bool:
    """First segment at the start, last at the end, the ones between leftmost in order."""
    first, last = segments[0], segments[-1]
    if len(segments) == 1:
        return first.length == len(text) and first.at(text, 0, len(text))
    if not first.at(text, 0, len(text)):
        return False
    lo, hi = first.length, len(text) - last.length
    if hi < lo or not last.at(text, hi, len(text)):
        return False
    for segment in segments[1:-1]:
        pos = segment.find(text, lo, hi)
        if pos < 0:
            return False
        lo = pos + segment.length
    return True
