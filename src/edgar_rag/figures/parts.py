"""The parts of a company its filing reports figures of: a segment, a product or service line, a
region, each tagged in XBRL as one member of one axis. A question's words no plan accounts for
("Greater China", "the Data Center", "International Operated Markets segment") name a part
when they are its member's words; the part's figures are then read as the filing's own.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from edgar_rag.domain import Fact
from edgar_rag.figures.library import Part
from edgar_rag.figures.resolve import part_of

_GENERIC = frozenset(
    "segment segments business businesses division divisions reportable unit units category "
    "categories line lines group end-market end-markets market markets stock common capital "
    "share shares shareholders stockholders".split()
)
"""Words a question puts beside a part's name that its member does not spell."""
_JOINING = frozenset({"and", "the", "of", "&"})
_SEGMENTS = "us-gaap:StatementBusinessSegmentsAxis"
_COUNTRIES = {"US": "United States", "CN": "China", "JP": "Japan", "TW": "Taiwan"}
"""The ``country:`` members a question names by name."""
_SHARE_CLASS = re.compile(r"Class([A-Z])(\d?)Member$")
"""A class of stock's member, its letter and any series (Visa's Class B-1)."""
_CAMEL = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")


def part_name(member: str) -> str:
    """A member as a sentence names it: ``aapl:GreaterChinaSegmentMember`` is ``Greater China``,
    ``nvda:DataCenterMember`` ``Data Center``, ``country:CN`` ``China``."""
    prefix, _, local = member.partition(":")
    if prefix == "country":
        return _COUNTRIES.get(local, local)
    share_class = _SHARE_CLASS.search(local)
    if share_class is not None:  # "CapitalClassCMember", "CommonClassB1Member"
        return f"Class {share_class[1]}{share_class[2] and '-' + share_class[2]}"
    local = re.sub(r"(?:Segments?)?Member$", "", local)
    return " ".join(_CAMEL.findall(local))


def _key(words: Iterable[str]) -> str:
    """Words as one spelling, whatever their spacing, case and plural: ``data center`` and
    ``DataCenter``, ``iPhone`` and ``I Phone``, ``services`` and ``Service``."""
    kept = (w.lower().removesuffix("s") for w in words if w.lower() not in _JOINING)
    return "".join(re.sub(r"[^a-z0-9]", "", w) for w in kept)


def find_part(
    words: Sequence[str], text: str, facts: Iterable[Fact], company: Iterable[str] = ()
) -> Part | None:
    """The one part the filing tags whose name ``text`` says ("Greater China", "iPhone", "Data
    Center"; its initials, "AWS") and whose words hold every one of ``words`` (a question's
    words no plan accounts for, the generic ``segment`` or ``business`` set aside), named as
    ``text`` writes it; None when none is, or more than one (a segment and a product line of
    one name are the segment). A member that starts with the company's name (``company``: its
    words, lower case) is named without it: ``ba:BoeingDefenseSpaceSecuritySegmentMember`` is
    "Defense, Space & Security"."""
    tokens = list(_TOKEN.finditer(text))
    spellings = {
        _key(t.group() for t in tokens[i:j]): text[tokens[i].start() : tokens[j - 1].end()]
        for i in range(len(tokens))
        for j in range(i + 1, min(i + 5, len(tokens) + 1))
    }
    left = {_key([w]) for w in words if w.lower() not in _GENERIC}
    own = {w.lower() for w in company}
    found: dict[tuple[str, str], str] = {}
    initialisms = {t.group() for t in tokens if t.group().isupper() and len(t.group()) >= 2}
    for fact in facts:
        tagged = part_of(fact)
        if tagged is None or tagged in found:
            continue
        full = part_name(tagged[1])
        name = _without_company(full, own)
        said = spellings.get(_key(name.split())) or _initials(full, initialisms)
        if said is not None and left <= {_key([w]) for w in name.split()} | {_key(said.split())}:
            found[tagged] = said
    longest = {  # "Global Services" names that segment, not the Service line inside its words
        tagged: said
        for tagged, said in found.items()
        if not any(said != other and said in other for other in found.values())
    }
    if len(set(longest.values())) == 1 and len(longest) > 1:
        # One name on two axes (Amazon's AWS segment and its AWS product line): the segment's.
        longest = {tagged: said for tagged, said in longest.items() if tagged[0] == _SEGMENTS}
    if len(longest) != 1:
        return None
    (((axis, member), said),) = longest.items()
    return Part(axis, member, said)


def _initials(name: str, said: set[str]) -> str | None:
    """The initialism of a part's name the text writes ("AWS" for Amazon Web Services), if any."""
    letters = "".join(w[0] for w in name.split() if w.lower() not in _JOINING).upper()
    return letters if len(letters) >= 2 and letters in said else None


def _without_company(name: str, company: set[str]) -> str:
    words = name.split()
    while len(words) > 1 and words[0].lower() in company:
        words.pop(0)
    return " ".join(words)


_TOKEN = re.compile(r"[A-Za-z0-9]+(?:[.&][A-Za-z0-9]+|['’](?![sS]\b)[A-Za-z0-9]+)*")
"""A word of a part's name, without a possessive ("AWS's" is "AWS")."""
