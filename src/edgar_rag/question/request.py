"""What a figure question asks, read once into a typed value: the transform it wraps a figure
in (its level, a change in dollars, a percent change, a change in percentage points, a compound
growth rate, a mean over years), the years it spans, whether a balance is asked at year end or on
average, what it takes for granted (growth, a fall, a loss, a dividend cut), and the words that
no reading of this module accounts for.

The words left open are what the planner in ``figures`` must account for with the metric or line
item it plans; a word it cannot account for ("per square foot", "declared", "premium") is a part
of the question no plan answers, so code does not answer it. That is the rule which keeps code
from answering a neighbour of the question asked.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

from edgar_rag.question.words import stem
from edgar_rag.rules import SMALL_NUMBERS


class Transform(StrEnum):
    """What is done to the measured figure before it is stated."""

    LEVEL = "level"
    """The figure itself (a reported line, a margin, a ratio)."""
    AMOUNT_CHANGE = "amount_change"
    """The later figure less the earlier, in the figure's unit ("by how much did capex rise")."""
    PERCENT_CHANGE = "percent_change"
    """The change as a percentage of the earlier figure ("by what percentage did sales fall")."""
    POINT_CHANGE = "point_change"
    """A percentage's change in percentage points ("how many points did the margin widen")."""
    CAGR = "cagr"
    """The compound annual growth rate from the first year named to the last."""
    AVERAGE = "average"
    """The mean of the figure over several fiscal years ("three-year average net margin")."""


class Premise(StrEnum):
    """What a question takes for granted about its subject."""

    RISE = "rise"
    FALL = "fall"
    LOSS = "loss"
    PROFIT = "profit"
    CUT = "cut"
    SUSPENSION = "suspension"
    RAISE = "raise"
    EVENT = "event"
    """An act no figure decides ("when did it exit the cloud business", "why did it close
    its plants"): only a passage saying it can back an answer."""


@dataclass(frozen=True, slots=True)
class TakenForGranted:
    """A premise and the words naming what it is about ("net sales", "its dividend")."""

    premise: Premise
    subject: str
    said: str
    """The words that state it, as written ("the growth in net sales")."""
    span: tuple[int, int]
    """Where the question names the subject."""
    event: str = ""
    """The word of the act taken for granted, lower case ("growth", "cut", "exit")."""

    @property
    def said_by(self) -> tuple[str, ...]:
        """Beginnings of the words a passage says the act in ("increas", "grew", "rose" for
        growth; "exit", "withdr", "ceas" for an exit)."""
        if self.premise is not Premise.EVENT:
            return _SAID_BY.get(self.premise, ())
        return _SAID_BY.get(self.event) or (stem(self.event.removesuffix("e")),)


@dataclass(frozen=True, slots=True)
class Request:
    """A question as the planner reads it."""

    text: str
    transform: Transform
    years: frozenset[int]
    """The fiscal years the question names (``Question.years``; as written when read alone)."""
    years_spanned: int | None
    """Over how many years a change, growth rate or mean runs, when the question says it (from
    FY2022 to FY2024: 2; "three-year average": 3)."""
    average_balance: bool
    """A balance asked as the mean of its opening and closing ("return on average equity")."""
    year_end: bool
    """A balance asked at year end ("year-end receivables"): not the average."""
    premise: TakenForGranted | None
    in_dollars: bool
    """The question asks its answer in dollars ("by how many dollars", "in USD millions")."""
    named_text: str
    """The question with only its company names and pointing phrases blanked: where a metric
    whose name holds a transform ("earnings growth", "revenue CAGR") is looked for."""
    measure_text: str
    """The question with the words this module accounts for blanked (the same length, so a
    span found in it is a span of ``text``): where the planner looks for the measure."""

    @property
    def open_words(self) -> tuple[str, ...]:
        """The words of ``measure_text`` that are no filler: what a plan must account for."""
        return open_words(self.measure_text)


_NUMBER_WORDS = {word: count for count, word in enumerate(SMALL_NUMBERS[:11]) if count}


def _count(word: str) -> int | None:
    lowered = word.lower()
    return int(lowered) if lowered.isdigit() else _NUMBER_WORDS.get(lowered)


_N = r"(?:\d{1,2}|" + "|".join(_NUMBER_WORDS) + r")"
_CAGR = re.compile(
    r"\b(?:cagr|compound(?:ed)?\s+annual(?:ized)?\s+(?:(?:growth|increase)(?:\s+rate)?|rate)|"
    r"annuali[sz]ed\s+growth(?:\s+rate)?|compound\s+growth(?:\s+rate)?)\b",
    re.I,
)
_SPAN_WORDS = re.compile(
    rf"\b(?P<n>{_N})[- ](?:fiscal[- ])?years?\b|\b(?:over|across|during|in)\s+(?:the\s+)?"
    rf"(?:last|past|prior|previous|preceding)\s+(?P<m>{_N})\s+(?:fiscal\s+)?years\b",
    re.I,
)
_POINTS = re.compile(
    r"\b(?:percentage|basis)[- ]points?\b|\bhow\s+many\s+points\b|\bpoints?\s+of\s+margin\b"
    r"|\bpp\b(?!&)|\bbps\b",
    re.I,
)
_PERCENT_CHANGE = re.compile(
    r"\b(?:by\s+)?what\s+percent(?:age)?\b(?!\s+of\b)|\bhow\s+many\s+percent\b|\bpercent(?:age)?\s+"
    r"(?:change|increase|decrease|growth|decline|drop|rise|fall|gain|reduction)\b|%\s*"
    r"(?:change|increase|decrease|growth|decline|drop|rise|fall)\b|\bgrowth\s+rate\b|\brate\s+of\s+"
    r"(?:growth|increase|decline|change)\b|"
    r"\bby\s+how\s+many\s+percent\b|\byear[- ]over[- ]year\s+(?:growth|change|increase|decline)\b",
    re.I,
)
_IN_PERCENT = re.compile(r"\bin\s+(?:percent(?:age)?s?|%)(?:\s+terms)?\b", re.I)
_GROWTH = re.compile(r"\b(?:grow|grew|grown|growth)\b", re.I)
_CHANGE = re.compile(
    r"\b(?:change[ds]?|changing|increase[ds]?|increasing|decrease[ds]?|decreasing|rise|rose|risen|"
    r"decline[ds]?|declining|fall|fell|fallen|drop(?:ped|s)?|jump(?:ed|s)?|climb(?:ed|s)?|"
    r"shrink|shrank|shrunk|expand(?:ed|s)?|contract(?:ed|s)?|improve[ds]?|deteriorate[ds]?|"
    r"widen(?:ed|s)?|narrow(?:ed|s)?|gain(?:ed|s)?|lose|lost|swing|swung|moved?|build|built|"
    r"difference|delta|up|down|higher|lower|more|less)\b",
    re.I,
)
_DOLLAR_CHANGE = re.compile(
    r"\bby\s+how\s+(?:much|many\s+(?:dollars|millions|billions))\b|\bdollar\s+(?:change|increase|"
    r"decrease|amount)\b|\bin\s+dollars?\b|\bin\s+(?:absolute|dollar)\s+terms\b",
    re.I,
)
_HOW_MUCH = re.compile(r"by\s+how\s+much", re.I)
"""A change asked with no unit of its own ("by how much, in percent, did it fall")."""
_MORE_THAN = re.compile(
    r"\bhow\s+many\s+(?:(?:more|fewer)\s+dollars|dollars\s+(?:more|less|fewer))\b"
    r"(?=.*\bthan\s+(?:in\s+)?(?:fiscal\s+(?:year\s+)?|fy\s*)?\d{4}\b)"
    r"|\bhow\s+much\s+(?:more|less)\b(?=.*\bthan\s+(?:in\s+)?(?:fiscal\s+(?:year\s+)?|fy\s*)?\d{4}\b)",
    re.I,
)
"""One company's figure set against another year's ("how many more dollars did it put into
buybacks in 2024 than in 2023"): the change in dollars."""
_BALANCES = (
    r"(?:total\s+|trade\s+)?(?:stockholders|shareholders|equity|assets|balance|receivables?|inventor|"
    r"payables?|debt|invested|capital|common|net\s+assets|ppe|pp&e|property|accounts|working)"
)
"""The balances an average of opening and closing is taken of ("average total assets")."""
_MEAN = re.compile(
    rf"\b(?:{_N}[- ](?:fiscal[- ])?years?\s+)?(?:average|mean)\b(?!\s+of\s+(?:the\s+)?(?:opening|"
    rf"beginning|start)|\s+{_BALANCES})",
    re.I,
)
_AVERAGE_BALANCE = re.compile(
    rf"\b(?:average|avg\.?|mean)\s+(?={_BALANCES})|\b(?:average|avg\.?|mean)\s+of\s+(?:the\s+)?"
    r"(?:opening|beginning)\s+and\s+(?:closing|ending|year-end)\b",
    re.I,
)
_YEAR_END = re.compile(
    r"\b(?:year[- ]end(?:ing)?|(?:period|fiscal)[- ]end|ending|closing|end[- ]of[- ](?:the[- ])?"
    r"(?:fiscal[- ])?(?:year|period))\b",
    re.I,
)
_NOT_AVERAGE = re.compile(r"\bnot\s+(?:the\s+|an\s+)?(?:average|mean)\b", re.I)
"""A balance asked at year end, "not the average", which ``year_end`` already says."""
_PERIOD_PHRASES = re.compile(
    r"\b(?:the\s+)?(?:most\s+recent|latest|last|prior|previous|preceding|current|past|"
    rf"same)(?:\s+{_N})?\s+(?:fiscal\s+|calendar\s+)?(?:years?|periods?)\b|"
    r"\byear[- ]over[- ]year\b|\byoy\b|\by/y\b|\b(?:fiscal|calendar)\s+years?\b|"
    r"\bfy\s?'?\d{2,4}\b|\b(?:19|20)\d{2}\b|"
    r"\bfiscal\b|\byears?\b|\bannual(?:ly)?\b|\bfull[- ]year\b",
    re.I,
)
_POINTING = re.compile(
    r"\b(?:(?:per|from|on|in|going\s+by|according\s+to|as\s+shown\s+(?:on|in))\s+"
    r"(?:its|the|their)\s+)?(?:consolidated\s+)?"
    r"(?:(?:income|cash[- ]flows?|operations|earnings|comprehensive\s+income)"
    r"\s+statements?|statements?\s+of\s+(?:consolidated\s+)?(?:cash\s+flows?|operations|income|"
    r"earnings|financial\s+position|comprehensive\s+income)|balance\s+sheets?|p\s?&\s?l(?:\s+"
    r"statements?)?|financial\s+statements|10-k|annual\s+report|line\s+items?|md&a)\b",
    re.I,
)
_PREMISES: tuple[tuple[re.Pattern[str], Premise | None], ...] = (
    (
        re.compile(
            r"\b(?:what|which)\s+(?:\w+\s+){0,3}?(?:drove|drives|driving|caused|causes|led\s+to|"
            r"explains?|contributed\s+to|accounts?\s+for|accounted\s+for|(?:was|were|is|are)\s+"
            r"behind|fueled|fuelled|powered)\s+(?P<said>(?:the\s+|its\s+|this\s+|that\s+|[\w.&]+['’]s?\s+)?"
            r"(?:strong\s+|sharp\s+|significant\s+|large\s+)?(?P<event>growth|increase|rise|improvement|"
            r"expansion|jump|surge|gain|decline|decrease|drop|fall|contraction|deterioration|"
            r"reduction)\s+(?:in|of)\s+(?P<subject>[^?.,;]+))",
            re.I,
        ),
        None,
    ),
    (
        re.compile(
            r"\b(?:what|which)\s+(?:\w+\s+){0,3}?(?:drove|drives|driving|caused|causes|led\s+to|"
            r"explains?|contributed\s+to|(?:was|were|is|are)\s+behind|fueled|fuelled|powered)\s+"
            r"(?P<said>(?:the\s+|its\s+|[\w.&]+['’]s?\s+)?(?:strong\s+|sharp\s+|significant\s+|"
            r"large\s+)?(?P<subject>(?:[\w&-]+\s+){0,3}?[\w&-]+)\s+(?P<event>growth|increase|rise|"
            r"improvement|expansion|jump|surge|gain|decline|decrease|drop|fall|contraction|"
            r"deterioration|reduction))\b(?!\s+(?:in|of)\s+(?!(?:fiscal\s+|fy\s*)?\d{4}\b))",
            re.I,
        ),
        None,
    ),
    (
        re.compile(
            r"\b(?:what|which)\s+(?:\w+\s+){0,3}?(?:caused|led|drove|made|pushed|forced)\s+"
            r"(?P<said>(?P<subject>(?:[\w.&'’-]+\s+){1,6}?to\s+(?:post|report|record|incur|suffer|"
            r"book|have|show)\s+an?\s+(?:net\s+|operating\s+)?loss(?:es)?))\b",
            re.I,
        ),
        Premise.LOSS,
    ),
    (
        re.compile(
            r"\bwhy\s+(?:did|does|has|have)\s+(?P<said>(?P<subject>[^?.,;]+?)\s+(?P<event>rise|increase|"
            r"grow|improve|expand|jump|surge|climb|soar|go\s+up|decline|decrease|drop|fall|shrink|"
            r"contract|deteriorate|slump|plunge|go\s+down)\b)",
            re.I,
        ),
        None,
    ),
    (
        re.compile(
            r"\b(?:what|which)\s+(?:\w+\s+){0,3}?(?:drove|drives|driving|caused|causes|led\s+to|"
            r"explains?|contributed\s+to|(?:was|were|is|are)\s+behind)\s+(?P<said>(?:the\s+|its\s+|"
            r"(?:[\w.&]+\s+){0,3}?[\w.&]+['’]s?\s+)?(?P<event>positive|negative|higher|lower|stronger|weaker|rising|"
            r"falling|declining|growing)\s+(?P<subject>[^?.,;]+))",
            re.I,
        ),
        None,
    ),
    (
        re.compile(
            r"\b(?P<said>(?:what|which)\s+(?:\w+\s+){0,3}?(?:caused|led\s+to|drove|explains?|"
            r"contributed\s+to|(?:was|were)\s+behind)\s+(?:the\s+|its\s+|this\s+|[\w.&]+['’]s?\s+)?"
            r"(?P<subject>(?:net\s+|operating\s+)?loss(?:es)?)\b)",
            re.I,
        ),
        Premise.LOSS,
    ),
    (
        re.compile(
            r"\b(?P<said>why\s+did\s+[^?.,;]+?\s+(?:post|report|record|incur|suffer|have|book)\s+an?\s+"
            r"(?P<subject>(?:net\s+|operating\s+)?loss))\b",
            re.I,
        ),
        Premise.LOSS,
    ),
    (
        re.compile(
            r"\b(?P<said>(?:return(?:ed|ing)?|swing|swung|turn(?:ed)?)\s+(?:back\s+)?to\s+"
            r"(?P<subject>profit(?:ability)?)|(?:become|became|was|is)\s+(?P<subject2>profitable))\b",
            re.I,
        ),
        Premise.PROFIT,
    ),
    (
        re.compile(
            r"\b(?:why|when|how)\s+(?:did|does|has|will)\s+[^?.,;]+?\s+(?P<said>(?P<event>cut|reduce|"
            r"lower|suspend|eliminate|halt|stop|scrap|slash|raise|increase|boost|hike)\s+"
            r"(?:its|their|the)\s+(?P<subject>(?:[\w-]+\s+){0,3}?dividends?))\b",
            re.I,
        ),
        None,
    ),
)
_ACTS = (
    r"exit|exited|leave|left|quit|abandon|abandoned|close|closed|shut\s+down|discontinue|"
    r"discontinued|sell|sold|divest|divested|spin\s+off|spun\s+off|acquire|acquired|buy|bought|"
    r"restate|restated|delist|delisted|lay\s+off|laid\s+off|default|defaulted|enter|entered|"
    r"end|ended|terminate|terminated|cancel|cancelled|canceled|pause|paused|resume|resumed"
)
_ACT_PREMISE = re.compile(
    r"\b(?:why|when|how)\s+(?:did|does|has|have|will|would)\s+[^?.,;]+?\s+(?P<said>"
    rf"(?P<event>{_ACTS})\s+(?P<subject>[^?.,;]+))",
    re.I,
)
_SAID_BY: dict[object, tuple[str, ...]] = {
    Premise.RISE: (
        "increa",
        "grow",
        "grew",
        "rose",
        "rise",
        "higher",
        "improv",
        "expand",
        "gain",
        "up",
        "jump",
        "surge",
        "strong",
    ),
    Premise.FALL: (
        "decrea",
        "declin",
        "lower",
        "fell",
        "fall",
        "drop",
        "reduc",
        "down",
        "weak",
        "contra",
        "shrank",
        "lost",
    ),
    Premise.LOSS: ("loss",),
    Premise.CUT: ("cut", "reduc", "lower", "decrea"),
    Premise.SUSPENSION: ("suspen", "halt", "stop", "elimin", "paus", "discon"),
    Premise.RAISE: ("increa", "raise", "raisin", "higher"),
    "exit": ("exit", "withdr", "ceas", "discon", "wind", "wound", "leave", "left"),
    "close": ("close", "closed", "closin", "closur", "shut"),
    "sell": ("sold", "sell", "sale", "divest", "dispos"),
    "acquire": ("acqui", "purcha", "bought", "merge"),
    "restate": ("restat",),
    "delist": ("delist",),
    "default": ("defaul",),
    "enter": ("enter", "launch", "expan"),
    "lay off": ("layoff", "lay", "laid", "reduct", "headco", "workfo"),
    "end": (
        "end",
        "ended",
        "termin",
        "cancel",
        "ceas",
        "discon",
        "suspen",
        "pause",
        "halt",
        "stop",
        "expir",
        "conclu",
        "complet",
    ),
    "resume": ("resum", "restar", "reinst"),
    Premise.PROFIT: ("profit", "income", "earnin"),
}
"""Word beginnings a passage says each act in (``words.stem``'s six letters at most)."""
_ACT_OF = {
    "exited": "exit", "leave": "exit", "left": "exit", "quit": "exit", "abandon": "exit",
    "abandoned": "exit", "closed": "close", "shut down": "close", "discontinue": "close",
    "discontinued": "close", "sold": "sell", "divest": "sell", "divested": "sell",
    "spin off": "sell", "spun off": "sell", "acquired": "acquire", "buy": "acquire",
    "bought": "acquire", "restated": "restate", "delisted": "delist", "defaulted": "default",
    "entered": "enter", "laid off": "lay off", "ended": "end", "terminate": "end",
    "terminated": "end", "cancel": "end", "cancelled": "end", "canceled": "end",
    "pause": "end", "paused": "end", "resumed": "resume",
}  # fmt: skip
_EVENTS = {
    Premise.RISE: "growth increase rise improvement expansion jump surge gain grow improve "
    "expand raise boost hike climb soar go_up positive higher stronger rising growing",
    Premise.FALL: "decline decrease drop fall contraction deterioration reduction shrink "
    "contract deteriorate slump plunge go_down negative lower weaker falling declining",
    Premise.CUT: "cut reduce lower slash",
    Premise.SUSPENSION: "suspend eliminate halt stop scrap",
}
_EVENT_OF = {
    word.replace("_", " "): premise for premise, words in _EVENTS.items() for word in words.split()
}


_FORMERLY = re.compile(
    r"\(?\bformerly\s+(?:known\s+as\s+)?[^)?.,]+\)?|\bif\s+(?:possible|applicable|needed)\b|"
    r"\b(?:return(?:ed|s)?|(?:hand(?:ed|s)?|g[ai]ve|give|pa(?:y|id))\s+back)\s+to\s+(?:its\s+|their\s+)?"
    r"(?:shareholders|stockholders|investors)\b",
    re.I,
)
"""Words beside the measure that say nothing of it: a company's former name ("Block (formerly
known as Square)"), "if possible", "returned to shareholders" (through dividends)."""


def read_request(
    text: str,
    company_spans: tuple[tuple[int, int], ...] = (),
    years: frozenset[int] = frozenset(),
) -> Request:
    """Read ``text`` (a question, or one sentence of an answer) into a request; the spans of the
    company names the question says are blanked with the rest this module accounts for, and
    ``years`` are the fiscal years the question names (``periods.asked_fiscal_years``)."""
    measure = blank(text, company_spans)
    measure = _blank_matches(_POINTING, measure)
    measure = _blank_matches(_FORMERLY, measure)
    named_text = measure
    cagr = _CAGR.search(measure)
    points = _POINTS.search(measure)
    spans = list(_SPAN_WORDS.finditer(measure))
    spanned = next((_count(m["n"] or m["m"] or "") for m in spans), None)
    mean = None if cagr else _MEAN.search(measure)
    average_balance = _AVERAGE_BALANCE.search(measure) is not None
    percent_change = _PERCENT_CHANGE.search(measure)
    dollar_change = _DOLLAR_CHANGE.search(measure) or _MORE_THAN.search(measure)
    changes = list(_CHANGE.finditer(measure))
    growth = _GROWTH.search(measure)
    if cagr:
        transform = Transform.CAGR
    elif points:
        transform = Transform.POINT_CHANGE
    elif mean and (spanned or len(years) > 1):
        transform = Transform.AVERAGE
    elif percent_change or (growth and not dollar_change):
        transform = Transform.PERCENT_CHANGE
    elif dollar_change or changes:
        transform = Transform.AMOUNT_CHANGE
    else:
        transform = Transform.LEVEL
    if transform is Transform.AMOUNT_CHANGE and not dollar_change and not _asks_change(measure):
        transform = Transform.LEVEL  # "what was its revenue, up from the year before" aside
    in_percent = _IN_PERCENT.search(measure)
    only_how_much = dollar_change is not None and _HOW_MUCH.fullmatch(dollar_change.group())
    if transform is Transform.AMOUNT_CHANGE and in_percent and (not dollar_change or only_how_much):
        transform = Transform.PERCENT_CHANGE  # "how much did revenue change, in percent"
        percent_change = in_percent
    for found in (cagr, points, mean, percent_change, dollar_change, growth, *changes, *spans):
        if found is not None and (transform is not Transform.LEVEL or found in spans):
            measure = blank(measure, ((found.start(), found.end()),))
    premise = _premise(text) or _act_of_company(text, company_spans)
    measure = _blank_matches(_AVERAGE_BALANCE, measure)  # its "closing" is no year-end balance
    year_end = _YEAR_END.search(measure) is not None
    measure = _blank_matches(_YEAR_END, measure)
    measure = _blank_matches(_PERIOD_PHRASES, measure)
    measure = _blank_matches(_NOT_AVERAGE, measure)
    measure = _blank_instructions(measure)
    measure = blank(measure, [m.span(1) for m in _WHICH_MORE.finditer(measure)])
    return Request(
        text=text,
        transform=transform,
        years=years,
        years_spanned=spanned,
        average_balance=average_balance,
        year_end=year_end,
        premise=premise,
        in_dollars=_DOLLARS.search(text) is not None,
        named_text=named_text,
        measure_text=measure,
    )


_SEGMENT = re.compile(r"[^.?!:;]+[.?!:;]?")
_INSTRUCTION = re.compile(
    r"^\W*(?:please\s+)?(?:respond|answer|(?:give|provide)(?=\s+(?:your|the|an?|it|answers?|"
    r"responses?|results?)\b)|approach|use|using|calculate|compute|assume|assuming|base|basing|"
    r"round|express|extract|consider|considering|rely|relying|"
    r"we\s+(?:need|want)|you\s+are|here['’]?s|drawing|taking|in\s+agreement|according|"
    r"based|only|do\s+not|don['’]t)\b",
    re.I,
)
_ASKING = re.compile(r"^\W*(?:what|how|which|who|whom|when|where|why)\b|\?\s*$", re.I)
"""A sentence that asks: it opens with a question word or ends with a question mark. "Give
your answer in millions" tells how to answer; "Give both companies' net income" what."""


def _blank_instructions(text: str) -> str:
    """``text`` with the sentences that tell how to answer blanked ("Respond to the question by
    assuming the perspective of an analyst who can only use the cash flow statement."), where
    another sentence asks the question; a question put as one instruction ("Calculate its
    inventory turnover as ...") is kept whole."""
    segments = list(_SEGMENT.finditer(text))
    told = [m for m in segments if _INSTRUCTION.match(m[0]) and not _ASKING.search(m[0])]
    if not told or len(told) == len(segments):
        return text
    if not any(_ASKING.search(m.group(0)) for m in segments if m not in told):
        return text
    return blank(text, [m.span() for m in told])


_DOLLARS = re.compile(
    r"\b(?:dollars?|usd)\b|\bin\s+(?:millions|billions)\b|\bhow\s+many\s+\$", re.I
)
_ASKS_CHANGE = re.compile(
    r"\b(?:how\s+(?:much|did|has)|by\s+how\s+much|what\s+(?:was|is)\s+the\s+(?:\w+\s+)?"
    r"(?:change|increase|decrease|decline|rise|drop|difference)|change\s+in|increase\s+in|"
    r"decrease\s+in|decline\s+in|rise\s+in|drop\s+in|difference\s+in|did\s+.+?\s+(?:change|"
    r"increase|decrease|rise|fall|decline|drop|grow|shrink|improve|widen|narrow|expand|contract))\b",
    re.I,
)


def _asks_change(text: str) -> bool:
    return _ASKS_CHANGE.search(text) is not None


def _premise(text: str) -> TakenForGranted | None:
    """What the question takes for granted: a move of a figure, a loss, a dividend's cut or
    raise (which figures may decide), else an act (which only a passage can say)."""
    for pattern, fixed in _PREMISES:
        found = pattern.search(text)
        if found is None:
            continue
        if fixed is not None:
            premise = fixed
        else:
            premise = _EVENT_OF.get(" ".join(found["event"].lower().split()), Premise.RISE)
            if "dividend" in found["subject"].lower() and premise is Premise.RISE:
                premise = Premise.RAISE
        group = "subject" if found["subject"] is not None else "subject2"
        subject = " ".join(found[group].split())
        said = " ".join(found["said"].split())
        event = (found["event"] if "event" in found.groupdict() else subject).lower()
        return TakenForGranted(premise, subject, said, found.span(group), event)
    act = _ACT_PREMISE.search(text)
    if act is None:
        return None
    event = " ".join(act["event"].lower().split())
    return TakenForGranted(
        Premise.EVENT, " ".join(act["subject"].split()), " ".join(act["said"].split()),
        act.span("subject"), _ACT_OF.get(event, event),
    )  # fmt: skip


_WHY_DID = re.compile(r"^\W*why\s+(?:did|has|have|would)\s+", re.I)
_ACTED = re.compile(r"\s+(?P<event>[a-z]{3,})\s+(?P<subject>[^?.;]+)", re.I)
_NO_ACT = frozenset(
    "have has had make made do did need use used see take took get got choose chose decide "
    "decided want expect plan continue say said report record disclose include includes keep "
    "consider believe view treat account present show change classify".split()
)
"""Verbs after "why did <company>" that state no act a passage must say ("why did it decide
to", "why did it report"): what follows them is the question's topic."""


def _act_of_company(
    text: str, company_spans: tuple[tuple[int, int], ...]
) -> TakenForGranted | None:
    """The act a "why did <company> <verb> ..." question takes for granted, its verb right
    after the company's name ("Why did Visa walk away from its planned acquisition of Pismo?":
    a walking away), which only a passage saying it can back; None when the question is not
    of that form or the verb states no act."""
    why = _WHY_DID.match(text)
    start = next((s for s, _ in company_spans if why and s == why.end()), None)
    if why is None or start is None:
        return None
    end = next(e for s, e in company_spans if s == start)
    acted = _ACTED.match(text, end)
    if acted is None or acted["event"].lower() in _NO_ACT:
        return None
    event = acted["event"].lower()
    return TakenForGranted(
        Premise.EVENT, " ".join(acted["subject"].split()),
        " ".join(text[acted.start("event") : acted.end("subject")].split()),
        acted.span("subject"), event,
    )  # fmt: skip


def blank(text: str, spans: Iterable[tuple[int, int]]) -> str:
    """``text`` with each span spaced out, its length and every other offset kept."""
    chars = list(text)
    for start, end in spans:
        chars[start:end] = " " * (end - start)
    return "".join(chars)


_WHICH_MORE = re.compile(
    r"\bwhich\s+(?:[\w'’]+\s+){0,3}?(more|higher|larger|bigger|greater|less|lower|smaller|fewer)\b",
    re.I,
)
"""The comparative a comparison asks by ("which earned more"): what the comparison's sentence
answers ("... is the higher"), no measure of its own."""


def _blank_matches(pattern: re.Pattern[str], text: str) -> str:
    return blank(text, [(m.start(), m.end()) for m in pattern.finditer(text)])


FILLER = frozenset(
    (
        "a an the of for in on at by to from and or as with within during over between than "
        "its it it's their his her they them this that these those there here what what's which "
        "who whom whose how much many did does do done has have had is was were are be been being "
        "s company company's companies firm corporation corp inc co ltd plc group holdings "
        "report reported reports reporting record recorded records disclose disclosed discloses "
        "show shows shown showed state stated states present presented list listed say says said "
        "total overall consolidated entire whole aggregate amount figure figures value level size "
        "give given response answer answers respond question please tell me us we our you your "
        "rely relying based base basis according using use used utilizing utilize details detail "
        "data information clearly calculate calculated compute computed calculation asked ask "
        "provide find determine approximately roughly about around exactly "
        "round rounded rounding nearest decimal decimals place places tenth hundredth whole "
        "usd dollars dollar millions million billions billion thousands thousand terms units unit "
        "spend spent spending generate generated generating earn earned earning bring brought post "
        "posted book booked make made produce produced deliver delivered achieve achieved see saw "
        "experience experienced incur incurred pay paid paying invest invested "
        "end ended ending period periods fiscal year years fy then now "
        "compared compare comparison versus vs relative prior previous last latest recent most "
        "up down respectively each both all one two three four five six seven eight nine ten "
        "com earlier before later through thru out went go goes going represent represents came "
        "come comes coming contributed contribute contributes "
        "represented against balance balances wider higher lower larger bigger smaller fast "
        "quickly take taking using measuring measured defined define i e ie namely "
        "january february march april may june july august september october november december "
        "primarily primary extract extracted provided outlined judgments judgment basing off "
        "drawing conclusions conclusion only following best abilities ability need want help "
        "financial metric into account agreement considering consider assuming assume access "
        "displayed solution approach standpoint resource resources analyst equities public "
        "investment banker statement statements shown items line lines reasonable approximation "
        "possible units within banking exact plainly number here's heres actually simply put "
        "puts putting hand hands handed"
    ).split()
)
"""Words that say nothing of which figure is asked or what is done to it: the question's
scaffolding, its units and rounding, the verbs that have a figure ("spent", "generated")."""
_OPEN_WORD = re.compile(r"[a-z0-9][a-z0-9&'’-]*|%|\$", re.I)


def open_words(text: str) -> tuple[str, ...]:
    """The words of ``text`` that are no filler (possessives and plain numbers aside)."""
    words = []
    for raw in _OPEN_WORD.findall(text):
        word = re.sub(r"['’]s?$", "", raw.lower()).strip("-")
        if not word or word in FILLER or word in {"%", "$"} or word.replace(".", "").isdigit():
            continue
        words.append(word)
    return tuple(words)
