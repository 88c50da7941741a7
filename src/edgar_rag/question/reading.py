"""A question read once, at the door: its search terms, the fiscal years and companies it names,
the words of the metric it asks about, and what kind of question it is.

Retrieval, the guards, the prompt's windows and the verifier all take this value, so no stage
re-derives companies, years or metric words from the text (and two stages can never read the
same question differently).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from edgar_rag.domain import FilingMeta
from edgar_rag.question.companies import CompanyDirectory, CompanyMention
from edgar_rag.question.periods import asked_fiscal_years, asked_quarters, outlook_years
from edgar_rag.question.request import Request, read_request
from edgar_rag.question.words import (
    asks_amount,
    asks_degree,
    counted_noun,
    lower_words,
    metric_words,
    query_terms,
    question_weights,
    share_class,
)


class Kind(StrEnum):
    """What a question asks for; each kind is answered (and will be searched) its own way."""

    LOOKUP = "lookup"
    """One reported figure: ``What was Apple's diluted EPS in fiscal 2024?``."""
    COMPUTATION = "computation"
    """A figure computed from reported ones: a margin, a growth rate, a ratio, an average."""
    COMPARISON = "comparison"
    """Two companies, or two periods set against each other."""
    NARRATIVE = "narrative"
    """Prose: what a risk factor says, who oversees cybersecurity, how many people it employs."""


@dataclass(frozen=True, slots=True)
class Question:
    """A question as every stage of answering reads it."""

    text: str
    terms: tuple[str, ...]
    """The words worth matching lexically, stopwords and repeats removed."""
    words: tuple[str, ...]
    """Every word in lower case (``non-current`` as one word)."""
    weights: Mapping[str, float] = field(hash=False)
    """The stems of its content words at 1, of their synonyms at less (``words.SYNONYM_WEIGHT``)."""
    metric: tuple[str, ...]
    """The words that name the figure asked about: no company name, years or words of size;
    none when it asks for no figure (``asks_figure``), so a figure a prose answer mentions on
    the way is checked against its passages only."""
    years: frozenset[int]
    """The fiscal years it names, in the calendar of the filing it was read against (none
    named: empty; read without a filing: the years as written)."""
    companies: tuple[CompanyMention, ...]
    """The companies it names, in order (empty when read without a company directory)."""
    kind: Kind
    asks_amount: bool = False
    """It asks how many or how much: a right answer states a figure."""
    counted: str | None = None
    """What that figure counts ("employees" for "how many full-time employees"), if it asks."""
    share_class: str | None = None
    """The class of stock it asks about ("Class A" -> ``a``), which a line printing another
    class's figure does not answer."""
    sections: frozenset[str] = frozenset()
    """The Items it points to read ("according to the cover": ``Cover``; "in its risk factors":
    ``Item 1A``), as chunks name them; empty when it points nowhere."""
    request: Request | None = field(default=None, hash=False)
    """What it asks of a figure (its transform, span, premise and open words), for the
    planner; read with the question (None only for a value built by hand)."""
    quarters: frozenset[int] = frozenset()
    """The fiscal quarters it names (``Q2``, ``the second quarter``); empty when none."""
    outlook: frozenset[int] = frozenset()
    """The years of ``years`` it asks the filing's outlook about, later than any the filing
    reports (``periods.outlook_years``): no figure of the filing is theirs, but its text
    may speak of them."""

    @property
    def asked(self) -> Request:
        """``request``, read from the text when the value was built without one."""
        return self.request if self.request is not None else read_request(self.text)


def read_question(
    text: str, filing: FilingMeta | None = None, directory: CompanyDirectory | None = None
) -> Question:
    """Read ``text`` once, against the filing it is asked of (None: corpus-wide) and the known
    companies (None: names are not looked up)."""
    companies = directory.find(text) if directory is not None else ()
    years = asked_fiscal_years(text, filing) if filing is not None else frozenset()
    named = (mention.text for mention in companies)
    kind = question_kind(text, companies)
    request = read_request(text, _company_spans(text, companies, filing), years)
    metric = (  # what it measures, read without its transform ("by how much ... decline")
        metric_words(request.measure_text, filing.company if filing is not None else None, *named)
        if asks_figure(text, kind)
        else ()
    )
    return Question(
        text=text,
        terms=tuple(query_terms(text)),
        words=tuple(lower_words(text)),
        weights=question_weights(text),
        metric=metric,
        years=years,
        quarters=asked_quarters(text),
        outlook=outlook_years(text, years, filing) if filing is not None else frozenset(),
        companies=companies,
        kind=kind,
        asks_amount=asks_amount(text),
        counted=counted_noun(text),
        share_class=share_class(text),
        sections=named_sections(text),
        request=request,
    )


def _company_spans(
    text: str, companies: tuple[CompanyMention, ...], filing: FilingMeta | None
) -> tuple[tuple[int, int], ...]:
    """Where the question names a company: each mention, and the scoped filer's own name words
    and ticker wherever they stand ("Apple's", "AAPL")."""
    spans = [(m.start, m.end) for m in companies]
    if filing is not None:
        words = {w for w in re.findall(r"[a-z0-9&]+", filing.company.lower()) if len(w) > 2}
        words -= _NAME_FILLER
        if filing.ticker:
            words.add(filing.ticker.lower())
        for word in words:
            pattern = rf"(?<![\w&]){re.escape(word)}(?:['’]s?)?(?![\w&])"
            spans.extend(m.span() for m in re.finditer(pattern, text, re.I))
    return tuple(spans)


_NAME_FILLER = frozenset({"inc", "corp", "corporation", "company", "the", "and", "group", "co"})


_SECTIONS: tuple[tuple[re.Pattern[str], frozenset[str]], ...] = tuple(
    (re.compile(rf"\b(?:{names})\b", re.I), frozenset(items))
    for names, items in (
        (r"cover(?:\s+page)?", {"Cover"}),
        (r"risk\s+factors?", {"Item 1A"}),
        (r"human\s+capital|business\s+section|description\s+of\s+(?:the|its)\s+business",
         {"Item 1"}),
        (r"legal\s+proceedings", {"Item 3"}),
        (r"properties\s+section", {"Item 2"}),
        (r"md&a|management[’']?s\s+discussion", {"Item 7"}),
        (r"balance\s+sheets?|income\s+statements?|cash\s+flows?\s+statements?|statements?\s+of\s+"
         r"(?:cash\s+flows?|operations|income|earnings|financial\s+position)|financial\s+"
         r"statements|notes\s+to\s+(?:the\s+)?(?:consolidated\s+)?financial\s+statements",
         {"Item 8", "Item 15"}),
    )
)  # fmt: skip
"""Where a 10-K says each thing, by the Item that holds it (a filing that prints its statements
in an exhibit holds them in Item 15)."""
_POINTING = re.compile(
    r"\b(?:according\s+to|per|in|from|on|using|based\s+(?:\w+\s+)?on|as\s+(?:shown|reported|"
    r"stated|disclosed|described|presented)\s+in)\s+"
    r"(?:(?:the\s+)?(?:information|data|figures|details)\s+(?:\w+\s+){0,2}?(?:in|on)\s+)?"
    r"(?:the\s+|its\s+|their\s+|[a-z&.\-]+['’]s\s+)?"
    r"(?:(?:fiscal\s+)?(?:\d{4}\s+)?(?:10-k|annual\s+report)['’]?s?\s+)?"
    r"(?:consolidated\s+)?(?P<where>[a-z&’' ]{3,60})",
    re.I,
)
"""A phrase pointing where to read: "according to the cover", "in its risk factors", "per the
cover of its fiscal 2024 10-K", "based on the cash flow statement"."""


def named_sections(text: str) -> frozenset[str]:
    """The Items the question points to read (``_SECTIONS``): the section a pointing phrase
    names, never a section's name said in passing ("what risk factors does it name")."""
    found: set[str] = set()
    for pointing in _POINTING.finditer(text):
        where = pointing["where"]
        for names, items in _SECTIONS:
            if names.match(where):
                found |= items
    return frozenset(found)


_COMPARISON = re.compile(
    r"\b(?:compar(?!able\s+(?:sales|store|restaurant|transaction))\w*|versus|vs\.?|relative\s+to|differ\w*\s+between|than"
    r"|which\s+(?:of\s+\w+\s+)?(?:company|companies|segment|year)\b)",
    re.I,
)
_COMPUTATION = re.compile(
    r"\b(?:margins?|ratios?|growth|grow|grew|cagr|increased?|decreased?|changed?\s+by|"
    r"change\s+in\s+(?!(?:fy|fiscal|the\s+(?:fiscal\s+)?year|\d))|"
    r"(?:percent(?:age)?|net|year[-\s]over[-\s]year)\s+change|"
    r"averages?|turnover|return\s+on|ro[aeic]|roic|days\s+\w+\s+outstanding|d[sip]o|"
    r"conversion\s+cycle|ccc|coverage|payout|retention|yield|ebitda|free\s+cash\s+flow|fcf|"
    r"working\s+capital|defined\s+as|as\s+an?\s+(?:%|percent\w*|share|proportion|fraction)|"
    r"per\s*cent(?:age)?\s+of|share\s+of|effective\s+tax\s+rate|quick\s+ratio|times)\b"
    r"|%\s+of\b|\bas\s+a\s+%",
    re.I,
)
_TELL = re.compile(r"\b(?:why|describe\w*|explain\w*|discuss\w*|summari[sz]e\w*)\b", re.I)
"""Words that ask for prose whatever figure the question names."""
_NARRATIVE = re.compile(
    r"^\s*(?:why|how\s+(?:does|do|did|is|are|has|have|will|would|could|can|concentrated|"
    r"exposed|dependent)|describe|explain|summari[sz]e|who|where|when|which|list|discuss)\b"
    r"|\b(?:describe|explain|discuss\w*|mention\w*|disclos\w*\s+about|say\w*\s+about|risks?|"
    r"strateg\w*|policy|policies|litigation|lawsuits?|proceedings|employ\w*|headcount|"
    r"competit\w*|customers?|suppliers?|segments?|cybersecurity|oversee\w*|approach|"
    r"factors?|plans?|programs?|regulat\w*|obligations?|agreements?|outlook|"
    r"(?<!your\s)judge?ments?|dr(?:ove|ive[sn]?|ivers?)|assumptions?|estimates|terms|conditions|limit(?:s|ed|ations?)?|restrict\w*|"
    r"track\s+record|decid\w*|structure)\b",
    re.I,
)
_FIGURE = re.compile(
    r"\b(?:how\s+much|amount|total|revenues?|sales|income|profit|earnings|eps|assets|"
    r"liabilit\w*|equity|cash|debt|borrowings|capex|capital\s+expenditures?|inventor\w*|"
    r"dividends?|buybacks?|repurchase\w*|expenses?|costs?|cogs|r&d|research\s+and\s+development|"
    r"tax(?:es)?|depreciation|amortization|receivables?|payables?|goodwill|property|ppe|pp&e|"
    r"top\s+line|bottom\s+line|in\s+usd|usd\s+(?:millions|billions|thousands))\b",
    re.I,
)


_MEASURE = re.compile(
    r"\b(?:share|percent(?:age)?|proportion|portion|count|number|headcount|workforce|size|rate|"
    r"ratio|margin|backlog)\b",
    re.I,
)
"""Nouns of a measure a figure gives: "what share of", "its employee count", "the backlog", "its
combined ratio"."""


def asks_figure(text: str, kind: Kind) -> bool:
    """The question asks for a figure: a lookup, computation or comparison; how many, how much
    or how large; or, put as prose, it names a reported figure or a measure ("What was its
    headcount at year end?"). "How does Tesla talk about recruiting talent?" asks for none."""
    return (
        kind is not Kind.NARRATIVE
        or asks_amount(text)
        or asks_degree(text)
        or _FIGURE.search(text) is not None
        or _MEASURE.search(text) is not None
    )


def asks_for_prose(text: str) -> bool:
    """The question asks to be told (``why``, ``describe``, ``explain``), whatever figure it
    names: no figure computed in code answers it."""
    return _TELL.search(text) is not None


def sets_against(text: str) -> bool:
    """``text`` sets things against each other in words ("compare", "versus", "than"): two
    companies named without such words are one company and its customer, rival or partner."""
    return _COMPARISON.search(text) is not None


def question_kind(text: str, companies: tuple[CompanyMention, ...] = ()) -> Kind:
    """The kind of ``text``, by its words: a comparison sets two things against each other
    (or names two companies), a computation names a derived metric (a margin, growth, a ratio),
    a lookup asks for a reported figure, and the rest is narrative.

    A narrative cue (``why``, ``describe``, ``risk``) outweighs the words of a figure, since
    prose questions name figures too ("What risks does its debt pose?").
    """
    distinct = {mention.companies[0].cik or mention.text for mention in companies}
    if sets_against(text) or len(distinct) >= 2:
        return Kind.COMPARISON
    if _TELL.search(text):
        return Kind.NARRATIVE
    if _COMPUTATION.search(text):
        return Kind.COMPUTATION
    if _FIGURE.search(text) and not _NARRATIVE.search(text):
        return Kind.LOOKUP
    return Kind.NARRATIVE
