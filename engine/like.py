"""SQL LIKE matching in linear time per pattern position: no regex, no backtracking.

``%`` matches any sequence, ``_`` one character, ``\\`` escapes the next character. Matching is
case-insensitive, as MySQL's default collations compare names. The greedy two-pointer algorithm
remembers only the last ``%``: O(len(pattern) * len(text)) in the worst case, never exponential.
"""

from __future__ import annotations


def _tokens(pattern: str, escape: str) -> list[tuple[str, str]]:
    """The pattern as (kind, char) items: kind is 'any' (%), 'one' (_) or 'lit'."""
    out: list[tuple[str, str]] = []
    i, n = 0, len(pattern)
    while i < n:
        ch = pattern[i]
        if ch == escape and i + 1 < n:
            out.append(("lit", pattern[i + 1]))
            i += 2
            continue
        if ch == "%":
            if not out or out[-1][0] != "any":  # %% is %
                out.append(("any", ""))
        elif ch == "_":
            out.append(("one", ""))
        else:
            out.append(("lit", ch))
        i += 1
    return out


def matches(pattern: str, text: str, escape: str = "\\", case_sensitive: bool = False) -> bool:
    if not case_sensitive:
        pattern, text = pattern.casefold(), text.casefold()
    tokens = _tokens(pattern, escape)
    p = t = 0
    star_p, star_t = -1, 0
    while t < len(text):
        if p < len(tokens) and tokens[p][0] == "any":
            star_p, star_t = p, t
            p += 1
        elif p < len(tokens) and (tokens[p][0] == "one" or tokens[p][1] == text[t]):
            p += 1
            t += 1
        elif star_p >= 0:
            p = star_p + 1
            star_t += 1
            t = star_t
        else:
            return False
    while p < len(tokens) and tokens[p][0] == "any":
        p += 1
    return p == len(tokens)
