"""The words of a question: which to match lexically, and which name the figure it asks about.

"Revenues" in a question is "Total net sales" in Apple's income statement and "profit" is "net
income"; a window of the passage should find that row, and an answer should cite a passage that
names what was asked. Words are compared by their first six letters, so "repurchases" meets
"repurchase" and "inventories" meets "inventory".
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_TERM = re.compile(r"[a-z0-9][a-z0-9'&.-]*[a-z0-9]|[a-z0-9]", re.IGNORECASE)
STOPWORDS = frozenset(
    (
        "a an and are as at be been by did do does for from had has have how i in is it its "
        "of on or s the their them there these they this those to was were what when where "
        "which who whom why will with would you your company company's fiscal year years much "
        "many report reported say says tell me please about"
    ).split()
)


def query_terms(question: str) -> list[str]:
    """The words of a question worth matching lexically (stopwords and repeats removed)."""
    words = [w.lower().strip(".'") for w in _TERM.findall(question)]
    return list(dict.fromkeys(w for w in words if w and w not in STOPWORDS))


STEM_CHARS = 6

SYNONYM_GROUPS: tuple[tuple[str, ...], ...] = (
    ("revenue", "revenues", "sales", "turnover"),
    ("profit", "earnings", "income"),
    ("eps", "earnings", "per", "share"),
    ("buybacks", "repurchases", "repurchase", "repurchased", "treasury"),
    ("capex", "capital", "expenditures", "property", "plant", "equipment"),
    ("r&d", "research", "development"),
    ("inventory", "inventories"),
    ("shareholders", "stockholders", "equity"),
    ("debt", "borrowings", "notes"),
    ("tax", "taxes", "provision"),
    ("dividends", "dividend"),
    ("cash", "equivalents"),
    ("flow", "flows", "activities"),
    ("end", "ending", "ended"),
    ("long-term", "noncurrent"),
)
"""Words that name the same figure; a question word in a group stands for all of it."""

GENERIC = frozenset(
    "fiscal year years end ended ending report reported reports much many total amount company "
    "value figure level annual full quarter reporting balance expense expenses spend spent paid "
    "pay amounts record recorded gaap nongaap percent percentage dollars dollar usd".split()
)
"""Question words that say when, how much or what kind of amount, not which figure: they name no
metric ("research and development expense" is named by its first three words, not by a
depreciation row's "Operating expenses"); "GAAP" and "non-GAAP" say on which basis, and a line
of adjusted EBITDA need not repeat it; "in percent", "how many dollars" say the unit."""

_STRICT = {"profit": ("profit", "earnings", "net")}
"""Synonyms too loose to say that a line names the metric: "gross profit" is not "Operating
income", though a window for a profit question should still show the income rows."""
QUALIFIERS = frozenset({"current", "other", "deferred", "preferred", "before"})
"""Words that make a row another line item than the one asked unless the question says them:
"Total current liabilities" is not "total liabilities", "Income before income taxes" is no tax."""
DISTINGUISHING = frozenset({"gross", "operating", "diluted", "basic"})
"""Words that, when the question says them, the line must say too: "operating income" is not
"Net income", "diluted EPS" is not the basic row."""

_WORD = re.compile(r"[a-z0-9&]+")
_NON_GAAP = re.compile(r"\bnon[\s-]+gaap\b")
_POSSESSIVE = re.compile(r"['’]s?$")
_PERIOD = re.compile(r"(?:fy|q[1-4])?'?\d+")
SYNONYMS_OF = {word: group for group in SYNONYM_GROUPS for word in group}
"""Each word of a synonym group, to its group."""


def stem(word: str) -> str:
    """The word's first letters, a short plural made singular first ("taxes" is "tax", "assets"
    "asset"), since its first six letters would keep the "s"."""
    if len(word) <= STEM_CHARS + 1 and word.endswith("s") and not word.endswith("ss"):
        word = word[:-2] if word.endswith("xes") else word[:-1]
    return word[:STEM_CHARS]


def text_stems(text: str) -> frozenset[str]:
    """The stems of ``text``'s words of three letters or more."""
    return frozenset(stem(w) for w in lower_words(text) if len(w) > 2)


_HYPHENATED = re.compile(r"\b([a-z]+)-([a-z]+)\b")


def prose_stems(text: str) -> frozenset[str]:
    """The stems of ``text``'s words, a hyphenated word's also as one word: prose writes
    "back-up facilities" where a question asks for "backup arrangements"."""
    lower = text.lower()
    return text_stems(lower) | text_stems(_HYPHENATED.sub(r"\1\2", lower))


def lower_words(text: str) -> list[str]:
    """Lower-case words; "non-current" is one word, so that it never reads as "current", and
    "non-GAAP" (or "non GAAP") one word, the basis of a measure, never the word "non"."""
    lowered = _NON_GAAP.sub("nongaap", text.lower().replace("non-current", "noncurrent"))
    return _WORD.findall(lowered)


SYNONYM_WEIGHT = 0.5
"""What a synonym of a question's word counts for, against the word itself: "operating income"
is the ``Operating income`` row before the ``Earnings per share`` row its synonym finds."""


def question_weights(question: str) -> dict[str, float]:
    """The stems of the question's content words (hyphenated ones split: "year-end" is "end of
    year") at 1, and of their synonyms at ``SYNONYM_WEIGHT``."""
    terms = query_terms(question)
    words = [part for w in terms for part in w.split("-") if part]
    own = {stem(w) for w in words if len(w) > 2 or w in SYNONYMS_OF}
    weights = dict.fromkeys(expand([*terms, *words]), SYNONYM_WEIGHT)
    weights.update(dict.fromkeys(own, 1.0))
    return weights


def expand(words: Iterable[str], *, strict: bool = False) -> frozenset[str]:
    """The stems of ``words`` and of their synonyms (words of one or two letters skipped);
    ``strict`` leaves out the loose ones (``profit`` then is not any ``income``)."""
    stems: set[str] = set()
    for word in words:
        if len(word) <= 2 and word not in SYNONYMS_OF:
            continue
        stems.add(stem(word))
        synonyms = _STRICT.get(word) if strict else None
        stems.update(stem(w) for w in (synonyms or SYNONYMS_OF.get(word, ())))
    return frozenset(stems)


def metric_words(question: str, company: str | None, *others: str) -> tuple[str, ...]:
    """What the question asks for: the phrase after ``how many`` or ``how much`` when it has
    one ("How many employees did ..."), else its content words; without where it points to read
    ("according to the risk factors"), the companies' names, years and numbers, and the generic
    words of time and size (``fiscal``, ``total``, ``much``). ``others`` are other names the
    question calls companies by."""
    names = " ".join([company or "", *others]).lower()
    ignored = {stem(w) for w in [*GENERIC, *MONTHS, *_LINKING, *_DEGREE, *_WORD.findall(names)]}
    text = _HOW_SO.sub(" ", _SOURCE.sub(" ", question))
    asked = _HOW_MANY.search(text)
    said = asked is not None and _WORD.search(asked["phrase"]) is not None
    if said and asked is not None and not _NOT_A_THING.match(asked["phrase"]):
        phrase = asked["phrase"]
    else:  # "how much did it pay", "how many dollars did it cut": the rest says of what
        phrase = text
    words = (_POSSESSIVE.sub("", w) for w in query_terms(phrase))
    return tuple(
        w
        for w in dict.fromkeys(words)
        if stem(w) not in ignored and not _PERIOD.fullmatch(w) and (len(w) > 2 or w in SYNONYMS_OF)
    )


_LINKING = (
    "came come comes coming generated generate account accounts accounted attributable "
    "represent represents represented estimated estimate make makes made goes go out "
    "that among amongst between across within"
).split()
"""Verbs that link the figure asked to its subject ("how much of its revenue came from its
largest customer"), the pronoun that joins a verb to it ("the cash proceeds that it realised"),
and prepositions that place it ("sales among its largest wholesalers"): what a passage's
sentence says in its own words, if at all."""
_DEGREE = "any single large big significant major actually really".split()
"""Words of how big the figure asked may be ("does any single customer account for a large
share"): the figure says it, no line need say it. A superlative stays: "its largest customer"
is one customer of several, which the line must name."""
MONTHS = (
    "january february march april may june july august september october november december "
    "jan feb mar apr jun jul aug sep sept oct nov dec".split()
)
"""A date's month names the period, not the figure ("as of September 27, 2025")."""
_SOURCE = re.compile(
    r"\b(?:according\s+to|based\s+on|bas(?:e|ing)\s+your\s+\w+\s+(?:on|off\s+of)|as\s+"
    r"(?:shown|reported|stated|disclosed|described|presented)\s+in)\s+[^,?.;]*",
    re.IGNORECASE,
)
"""Where the question points to read ("according to the risk factors", "based on the cash flow
statement"): no words of the figure asked."""
_HOW_SO = re.compile(
    r"\bhow\s+(?!many\b|much\b)[a-z]+(?=\s+(?:is|are|was|were|has|have|had|did|does|do)\b)",
    re.IGNORECASE,
)
"""How the question frames the figure ("how concentrated were its sales", "how large is it"):
the degree it asks about, said by the figure itself, not a word of the metric."""
_HOW_MANY = re.compile(
    r"\bhow\s+(?:many|(?P<much>much))\s+(?P<phrase>.*?)(?=\s+(?:did|does|do|is|are|was|were|has|have|"
    r"had|will|would|can|could|in|at|for|during|as|of\s+(?:its|the)\b)\b|[?,.;]|$)",
    re.IGNORECASE,
)
"""A count or an amount asked for: the words that say of what ("how many stores did")."""
SHARE_NOUNS = r"(?<!per\s)(?:share|percent(?:age)?|portion|proportion|fraction)"
"""The nouns that ask a part of a whole when "of" follows ("share of", "percentage of"), never
after "per" ("per share of Class C stock"): one pattern for every reader of a share."""
_SHARE_OF = re.compile(rf"\b{SHARE_NOUNS}\s+of\b", re.I)


def names_share(text: str) -> bool:
    """``text`` asks a part of a whole ("what share of revenue", "the percentage of sales"): a
    percentage answers it."""
    return _SHARE_OF.search(text) is not None


_PORTION = re.compile(
    r"\bwhat\s+(?:share|percentage|percent|portion|proportion|fraction)\s+of\b", re.IGNORECASE
)
"""A portion asked for ("what share of its revenue"): a percentage answers it."""


def counted_noun(question: str) -> str | None:
    """What a count asked for counts: the last word of the phrase after ``how many`` before any
    preposition ("how many individual shipper lawsuits from the ... litigation" counts lawsuits;
    "how many common shareholders of record", shareholders), or the noun of a count it names
    ("employee count", "headcount"); None when the question asks no count ("how much" asks an
    amount: of money, of space, a share of something)."""
    named = _COUNT_NAMED.search(question)
    if named is not None:
        return (named["noun"] or "headcount").lower()
    asked = _HOW_MANY.search(question)
    if asked is None or asked["much"] or _NOT_A_THING.match(asked["phrase"]):
        return None
    head = _PREPOSITION.split(asked["phrase"], maxsplit=1)[0]
    words = [_POSSESSIVE.sub("", w) for w in lower_words(head)]
    known = [w for w in words if w in COUNTED_AS]  # "how many people worked at": people
    return known[-1] if known else words[-1] if words else None


COUNT_NOUNS: tuple[tuple[str, ...], ...] = (
    ("employees", "employee", "people", "associates", "headcount", "workforce", "staff"),
    ("shareholders", "stockholders", "holders"),
    ("shares", "stock"),
    ("lawsuits", "cases", "actions", "claims", "suits", "complaints"),
    ("stores", "locations", "outlets", "clubs", "warehouses", "restaurants", "branches"),
    ("space", "feet", "footage", "area"),
)
"""The words that count the same thing ("people" are its employees, "space" is square feet):
for the words printed beside a figure and the count ranking's search (``retrieve.counts``),
never for the question's own terms or the prompt's windows."""
COUNTED_AS = {word: group for group in COUNT_NOUNS for word in group}
"""Each word that counts something, to the words that count the same thing."""
_COUNT_NAMED = re.compile(r"\b(?:(?P<noun>[a-z]+)\s+count|headcount)\b", re.I)
"""A count the question names outright: "employee count", "headcount"."""
_NOT_A_THING = re.compile(
    r"(?:of|did|does|do|is|are|was|were|has|have|had|will|would|can|could)\b|(?:more\s+|fewer\s+)?"
    r"(?:dollars?|usd|percent(?:age)?(?:\s+points?)?|points?|basis\s+points?|bps|times)\b",
    re.I,
)
"""A phrase after "how many" or "how much" that names no thing counted or measured: "how much
of its revenue", "how much did it pay", "how many dollars", "how many percentage points"."""
_PREPOSITION = re.compile(
    r"\s+(?:of|from|by|with|on|under|across|within|to|in|at|for|that|which|who)\s+", re.I
)


def counting_words(noun: str) -> tuple[str, ...]:
    """``noun`` and the words that count the same thing ("people" for employees)."""
    return COUNTED_AS.get(noun, (noun,))


def counting_stems(noun: str) -> frozenset[str]:
    """The stems of ``noun`` and of the words that count the same thing."""
    return frozenset(stem(w) for w in counting_words(noun))


def asks_amount(question: str) -> bool:
    """The question asks how many, how much or what share: a right answer states a figure."""
    return _HOW_MANY.search(question) is not None or _PORTION.search(question) is not None


def share_class(text: str) -> str | None:
    """The class of stock ``text`` names first ("Class A" -> ``a``, "class B-1" -> ``b-1``)."""
    named = _SHARE_CLASS.search(text)
    return named["name"].lower() if named else None


def share_classes(text: str) -> frozenset[str]:
    """Every class of stock ``text`` names, as ``share_class`` spells them."""
    return frozenset(name.lower() for name in _SHARE_CLASS.findall(text))


_SHARE_CLASS = re.compile(r"\bclass\s+(?P<name>[a-c](?:-\d)?)\b", re.IGNORECASE)


def ends_in_change_by(text: str) -> bool:
    """``text``, what stands before a figure, ends in "by", perhaps hedged ("reduced headcount
    by approximately"): the figure says how much something changed, not its value."""
    return _CHANGE_BY.search(" ".join(lower_words(text)[-_HEDGED:])) is not None


_CHANGE_BY = re.compile(
    r"\bby(?:\s+(?:approximately|about|around|nearly|some|over|more|than|almost|roughly))*$"
)
_HEDGED = 4
"""How many words may stand between "by" and the figure ("by more than approximately")."""
NOT_SAID = STOPWORDS | {"s", *MONTHS}
"""Words that say nothing of what a figure counts: "the", "as of", "January"."""


def asks_degree(question: str) -> bool:
    """The question asks how big, concentrated or dependent something is ("how large is its
    network"): a figure answers it, though it says neither how many nor how much."""
    return _HOW_SO.search(question) is not None


def unasked_qualifiers(label: str, question_words: Iterable[str]) -> frozenset[str]:
    """The qualifiers (``current``, ``deferred`` …) that ``label`` says and the question not."""
    return (QUALIFIERS - set(question_words)) & set(lower_words(label))
