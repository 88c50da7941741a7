"""Formulas a question writes itself, read by code into the tree of ``formula.py``.

FinanceBench writes them the way analysts do: "Fixed asset turnover ratio is defined as: FY2019
revenue / (average PP&E between FY2018 and FY2019)", "Define working capital ratio as total
current assets divided by total current liabilities", "CCC is defined as: DIO + DSO - DPO. DIO is
defined as: ...". A definition is read into the formal grammar: operator words become operators,
"FY2018 x" the line item at that year, "average x between FY2018 and FY2019" the mean of the two
year-end balances, "change in x between ..." the difference; each remaining phrase must name a
line item of the library, another definition of the same question, or a library metric. What
cannot be read is a typed decline saying why; nothing is guessed.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from edgar_rag.figures.formula import (
    Binary,
    Dimension,
    Expr,
    FormulaError,
    FormulaProblem,
    Ref,
    average_over_years,
    dimension,
    map_refs,
    parse_formula,
    refs,
    render,
)
from edgar_rag.figures.library import Metric, MetricLibrary, ResultUnit


@dataclass(frozen=True, slots=True)
class StatedFormula:
    """A question's own formula, ready for the resolver and the calculator."""

    name: str
    definition: str
    """The definition as the question writes it."""
    formula: Expr
    """Relative to ``fiscal_year``: ``revenue[-1]`` is the year before it."""
    fiscal_year: int | None
    """The latest fiscal year the question names, which offsets count from."""
    unit: ResultUnit
    decimals: int | None
    """Decimals the question asks the answer rounded to, if it says."""
    scale: int | None
    """For a dollar answer, the power of ten asked ("in USD millions": 6), if it says."""


@dataclass(frozen=True, slots=True)
class FormulaDecline:
    problem: FormulaProblem
    detail: str
    phrase: str = ""
    """The words of the formula that name no line item (``UNKNOWN_LINE_ITEM``)."""


_NAME = r"(?P<name>[^.?!:;]{1,80}?)"
_BODY = r":?\s*(?P<body>.+?)(?=\.\s|\.?$)"
_LEAD_BODY = r"\s*(?P<body>.+?)(?=,\s*(?:what|how|which|by\s+how)\b|\?|\.\s|\.?$)"
"""A definition leading the question ("Taking debt as A plus B, what was ..."): up to the ask."""
_OWNED = r"(?:['’]s|\bthe|\bits|\btheir)\s+(?P<name>[a-z][\w&-]*(?:\s+[\w&-]+){0,4}?)"
"""A measure named after its owner ("Union Pacific's operating ratio", "its loss ratio")."""
_TAIL_BODY = r"(?P<body>[^?:]+?)(?=\?|:|\.\s|\.?$)"
"""A definition after its name, up to the question's mark or the colon before its ask."""
_DEFINITIONS = (
    re.compile(rf"(?:^|(?<=[.?!:])\s+){_NAME}\s+(?:here\s+)?is\s+defined\s+as{_BODY}"),
    re.compile(rf"\bdefine\s+{_NAME}\s+as{_BODY}", re.IGNORECASE),
    re.compile(
        rf"^\s*(?:defining|taking|treating|computing|measuring|measure|counting)\s+{_NAME}\s+"
        rf"(?:simply\s+)?as\b{_LEAD_BODY}",
        re.IGNORECASE,
    ),
    re.compile(rf"^\s*using\s+{_NAME}\s*=\s*{_LEAD_BODY}", re.IGNORECASE),
    # "Union Pacific's fixed-asset turnover in 2024, i.e. operating revenues over ..."
    re.compile(
        rf"{_OWNED}(?:\s+(?:in|for)\s+(?:fiscal\s+|fy\s?)?\d{{4}})?\s*,?\s+(?:i\.e\.|that\s+is,?|"
        rf"meaning|calculated\s+as|computed\s+as|measured\s+as|defined\s+as)\s*{_TAIL_BODY}",
        re.IGNORECASE,
    ),
    # "Union Pacific's operating ratio (operating expenses over operating revenues)"
    re.compile(
        rf"{_OWNED}\s*\((?P<body>[^()]*?\b(?:over|divided\s+by|plus|minus|less)\b[^()]*)\)",
        re.IGNORECASE,
    ),
)
_YEAR = re.compile(r"\b(?:fy\s?|fiscal\s+(?:year\s+)?)(\d{4})\b", re.IGNORECASE)
_NOTE = re.compile(
    r"\[[^\]]*\]|\((?:from|using|as reported|excluding|in|not|both)\b[^)]*\)"
    r"|\b(?:from|in|on)\s+the\s+(?:statement\s+of\s+)?(?:cash\s+flows?|income|balance\s+sheet|"
    r"p&l)(?:\s+statement)?\b"
)
_WORD_OPERATORS = (
    (re.compile(r"\bdivided\s+by\b|\bover\b"), "/"),
    (re.compile(r"\bmultiplied\s+by\b|\btimes\b|×"), "*"),
    (re.compile(r"\bless\b|\bminus\b"), "-"),
    (re.compile(r"\bplus\b"), "+"),
)
_OVER_ALL = re.compile(
    r",\s*(?:divided\s+by|over)\b|\bas\s+an?\s+(?:percentage|percent|share|proportion|fraction)"
    r"\s+of\b"
)
"""A division of everything written before it: after a comma, or "as a percentage of"."""
_SPAN = re.compile(
    r"\b(?P<kind>average|change\s+in)\s+(?P<phrase>[^()+\-*/]+?)\s+between\s+"
    r"fy\s?(?P<first>\d{4})\s+and\s+fy\s?(?P<last>\d{4})"
)
_SPLIT = re.compile(r"(\s*(?:[()+*/^]|(?<![a-z])-|-(?![a-z]))\s*)")
"""Operators between phrases; a hyphen inside a word ("short-term debt") is none."""
_LEADING_YEAR = re.compile(
    r"^(?:year-end\s+)?(?:fy\s?|fiscal\s+(?:year\s+)?)?((?:19|20)\d{2})\s+(.+)$"
)
_NUMBER = re.compile(r"^\d+(?:\.\d+)?$")
_OWNERS_SHARE = re.compile(
    r"\s+attributable\s+to\s+(?!.*\b(?:non-?controlling|minority|redeemable)\b).+$"
)
"""Net income "attributable to Walmart" (to the company, its common shareholders): the
parent's share, which is what the library's line items hold; never the noncontrolling part."""
_YEAR_END_PHRASE = re.compile(r"^(?:year-end|year\s+end|ending|closing)\s+")
_AVERAGE_PHRASE = re.compile(r"^(?:average|avg\.?|mean)\s+(?:of\s+(?:the\s+)?)?(.+)$")
_DECIMALS = re.compile(r"\b(one|two|three|four|zero|\d)\s+decimal\s+place", re.IGNORECASE)
_DECIMAL_WORDS = {"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4}
_DAYS_NAMES = re.compile(r"\bdays\b|\bdpo\b|\bdso\b|\bdio\b|\bccc\b|\bcycle\b", re.I)
_PERCENT_NAMES = re.compile(r"\b(?:margin|return|rate|yield|share|proportion)\b", re.I)
"""Names of a figure analysts state in percent ("return on equity", "gross profit rate", "the
fuel share")."""
_DAYS_IN_YEAR = re.compile(r"\b36[05]\s*[*x×]", re.I)
"""A definition that multiplies by the days of a year counts in days (``365 * AR / revenue``)."""


def read_stated_formula(
    question: str, library: MetricLibrary
) -> StatedFormula | FormulaDecline | None:
    """The formula the question defines (its first definition, with the later ones it names),
    a decline saying why it cannot be used, or None when the question defines none."""
    definitions = _definitions(question)
    if not definitions:
        return None
    anchor = max((int(y) for y in _YEAR.findall(question)), default=None)
    name, body = next(iter(definitions.items()))
    try:
        text = _formal(body, anchor, library, definitions, seen=(name,))
        formula, metric = _as_asked(question, name, parse_formula(text), library, anchor)
        measured = dimension(formula, library.dimensions)
    except FormulaError as error:
        return FormulaDecline(
            error.kind, f"the question's formula for {name}: {error}", error.phrase
        )
    unit, scale = _unit(question, name, measured)
    named = library.find_metric(name)
    if (
        unit is ResultUnit.RATIO
        and named is not None
        and named.unit is ResultUnit.PERCENT
        and asked_decimals(question) is None
    ):  # the library's own metric in its unit ("fcf conversion"), unless the question asks a
        # decimal to its places ("ROA ... to two decimal places": 0.01)
        unit = ResultUnit.PERCENT
    if metric is not None:
        name, unit = metric.name, metric.unit  # its own debt in the library's debt-to-equity
    if unit.dimension != measured:
        return FormulaDecline(
            FormulaProblem.MIXES_UNITS,
            f"the question asks {name} in {unit}, but its formula measures {measured}",
        )
    return StatedFormula(
        name=name,
        definition=body,
        formula=formula,
        fiscal_year=anchor,
        unit=unit,
        decimals=asked_decimals(question),
        scale=scale,
    )


_ASKED = re.compile(
    r"\bwhat\s+(?:is|was)\s+(?:the\s+)?(?:[\w.&'’]+\s+)??(?:fy\s?\d{4}(?:\s*-\s*fy\s?\d{4})?\s+)?"
    r"(?P<asked>[^?]+?)(?:\s+for\s+[^?]+)?\?",
    re.IGNORECASE,
)
_YEARS_AVERAGE = re.compile(r"\b(\d|two|three|four|five)[ -]year\s+average\b")
_COUNT_WORDS = {"two": 2, "three": 3, "four": 4, "five": 5}


def _as_asked(
    question: str, name: str, defined: Expr, library: MetricLibrary, anchor: int | None
) -> tuple[Expr, Metric | None]:
    """The defined formula as the question's own ask wraps it: "the 3 year average unadjusted
    EBITDA % margin" is the mean over three years of EBITDA over revenue, "unadjusted EBITDA
    less capex" the defined figure minus capital expenditures; "taking debt as A plus B, what
    was its debt-to-equity ratio" the library's metric with the question's debt in it (the
    metric returned beside the formula)."""
    match = _ASKED.search(question)
    asked = " ".join(match["asked"].lower().split()) if match else ""
    if name not in asked or asked == name:
        return defined, None
    formula = defined
    after = asked.split(name, 1)[1]
    if re.match(r"[\w-]", after):
        return _inside_metric(asked, name, defined, library)
    after = after.strip()
    if re.match(r"(?:%\s*)?margin\b", after):
        formula = Binary("/", formula, Ref("revenue"))
    elif re.match(r"(?:less|minus|plus)\s", after):
        operator, rest = after.split(maxsplit=1)
        other = parse_formula(_phrase(rest, anchor, library, {}, ()))
        formula = Binary("+" if operator == "plus" else "-", formula, other)
    years = _YEARS_AVERAGE.search(asked.split(name, 1)[0])
    if years:
        count = years.group(1)
        formula = average_over_years(
            formula, int(count) if count.isdigit() else _COUNT_WORDS[count]
        )
    return formula, None


def _inside_metric(
    asked: str, name: str, defined: Expr, library: MetricLibrary
) -> tuple[Expr, Metric]:
    """The library metric the ask names, its line item ``name`` replaced by the question's
    definition of it; FormulaError when the ask names no metric using that item at its year."""
    named = library.metric_span(asked)
    item = library.item_named(name)
    if named is not None and item is not None:
        metric = named[0]
        used = [ref for ref in refs(metric.formula) if ref.item == item.key]
        if used and not any(ref.offset or ref.average for ref in used):
            changed = map_refs(metric.formula, lambda r: defined if r.item == item.key else r)
            return changed, metric
    raise FormulaError(
        FormulaProblem.DOES_NOT_PARSE,
        f"the question defines {name} but asks {asked}, of which it is a part",
    )  # "taking debt as ..., what is its average debt": not the debt itself


def asked_decimals(question: str) -> int | None:
    """The decimal places a question asks for ("round to two decimal places": 2)."""
    match = _DECIMALS.search(question)
    if match is None:
        return None
    word = match.group(1).lower()
    return int(word) if word.isdigit() else _DECIMAL_WORDS[word]


def definition_spans(question: str) -> list[tuple[int, int]]:
    """Where the question defines its terms (each definition whole, name and body), so that
    the rest of it can be read apart from them."""
    return [match.span() for pattern in _DEFINITIONS for match in pattern.finditer(question)]


def _definitions(question: str) -> dict[str, str]:
    found: list[tuple[int, str, str]] = []
    for pattern in _DEFINITIONS:
        for match in pattern.finditer(question):
            name = re.sub(
                r"^(?:the|its|their)\s+", "", " ".join(match["name"].split()).strip(), flags=re.I
            )
            found.append((match.start("name"), name, match["body"].strip()))
    return {name.lower(): body for _, name, body in sorted(found)}


def _formal(
    body: str,
    anchor: int | None,
    library: MetricLibrary,
    definitions: Mapping[str, str],
    seen: tuple[str, ...],
) -> str:
    """The definition's body in the formal grammar."""
    text = _NOTE.sub(" ", body.lower())
    whole = _OVER_ALL.search(text)
    if whole is not None:  # "net sales less cost of sales, over net sales": all of it over
        text = f"( {text[: whole.start()]} ) over {text[whole.end() :]}"
    for pattern, operator in _WORD_OPERATORS:
        text = pattern.sub(f" {operator} ", text)
    spans: list[str] = []

    def span(match: re.Match[str]) -> str:
        first, last = int(match["first"]), int(match["last"])
        if last != first + 1:
            raise FormulaError(
                FormulaProblem.DOES_NOT_PARSE,
                f"{match[0]!r} spans {last - first} years; only a year and the one before it",
            )
        key = _item_key(match["phrase"], library)
        offset = last - (anchor or last)
        ref = key if offset == 0 else f"{key}[{offset}]"
        prior = f"{key}[{offset - 1}]"
        spans.append(f"avg({ref})" if match["kind"] == "average" else f"({ref} - {prior})")
        return f" @{len(spans) - 1} "

    text = _SPAN.sub(span, text)
    pieces = []
    for piece in _SPLIT.split(text):
        stripped = piece.strip()
        if not stripped or stripped in "()+-*/^":
            pieces.append(stripped)
        elif stripped.startswith("@") and stripped[1:].isdigit():
            pieces.append(spans[int(stripped[1:])])
        else:
            pieces.append(_phrase(stripped, anchor, library, definitions, seen))
    return " ".join(p for p in pieces if p)


def _phrase(
    phrase: str,
    anchor: int | None,
    library: MetricLibrary,
    definitions: Mapping[str, str],
    seen: tuple[str, ...],
) -> str:
    phrase = phrase.strip(" ,;")
    if _NUMBER.match(phrase):
        return phrase
    offset = 0
    year = _LEADING_YEAR.match(phrase)
    if year:
        offset = int(year.group(1)) - (anchor or int(year.group(1)))
        phrase = year.group(2)
    phrase = _YEAR_END_PHRASE.sub("", phrase.removeprefix("the ").strip())  # its balance then
    averaged = _AVERAGE_PHRASE.match(phrase)
    if averaged is not None:  # "average properties, net": the mean of its two year-ends
        inner = _phrase(averaged.group(1), anchor, library, definitions, seen)
        if re.fullmatch(r"[a-z_]+(?:@[\w-]+)?", inner) is None:
            raise FormulaError(
                FormulaProblem.DOES_NOT_PARSE, f"{phrase!r}: an average of one line item only"
            )
        return f"avg({inner})" if offset == 0 else f"avg({inner}[{offset}])"
    if phrase in definitions and phrase not in seen:
        inner = _formal(definitions[phrase], anchor, library, definitions, (*seen, phrase))
        return f"({inner})"
    item = library.item_named(phrase) or library.item_named(_OWNERS_SHARE.sub("", phrase))
    if item is not None:
        return item.key if offset == 0 else f"{item.key}[{offset}]"
    metric = library.find_metric(phrase)
    if metric is not None and metric.synonyms and phrase in metric.synonyms:
        return f"({render(metric.formula)})"
    raise FormulaError(FormulaProblem.UNKNOWN_LINE_ITEM, f"{phrase!r} names no line item", phrase)


def _item_key(phrase: str, library: MetricLibrary) -> str:
    named = phrase.strip().removeprefix("the ")
    item = library.item_named(named)
    if item is None:
        raise FormulaError(
            FormulaProblem.UNKNOWN_LINE_ITEM, f"{phrase!r} names no line item", named
        )
    return item.key


def _unit(question: str, name: str, measured: Dimension) -> tuple[ResultUnit, int | None]:
    lowered = question.lower()
    scale = 9 if "billions" in lowered else 6 if "millions" in lowered else None
    if measured is Dimension.USD:
        return ResultUnit.USD, scale
    if measured is Dimension.USD_PER_SHARE:
        return ResultUnit.USD_PER_SHARE, None
    if "percent" in lowered or "%" in lowered:
        return ResultUnit.PERCENT, None
    if _DAYS_NAMES.search(name) or _DAYS_IN_YEAR.search(question):
        return ResultUnit.DAYS, None
    if _PERCENT_NAMES.search(name):
        return ResultUnit.PERCENT, None  # "return on equity", "loss ratio" is not: a ratio
    return ResultUnit.RATIO, None


_OPERATOR_GAPS = (
    # "how many times did operating income cover interest expense": the one over the other
    (re.compile(r"^(?:divided\s+by|divide\s+(?:it\s+)?by|over|/|÷|cover(?:s|ed)?)$"), "/"),
    (
        re.compile(
            r"^(?:and\s+|then\s+)?(?:times|multiplied\s+by|multiply\s+(?:it\s+|that\s+)?by|x|\*|×)$"
        ),
        "*",
    ),
    (re.compile(r"^(?:plus|\+|added\s+to)$"), "+"),
    (re.compile(r"^(?:minus|less|-|subtracting|after\s+subtracting)$"), "-"),
)
_GAP_FILLER = re.compile(
    r"\b(?:the|its|their|a|an|fiscal\s+(?:year\s+)?\d{4}|fy\s?\d{4}|\d{4}|total|net|then)\b|[,;]"
)
_AVERAGE_OF = re.compile(
    r"(?:the\s+)?(?:average|avg\.?|mean)(?:\s+of\s+(?:the\s+)?(?:opening|beginning)\s+and\s+"
    r"(?:closing|ending|year-end))?(?:\s+balances?\s+of)?\s*$"
)
_YEAR_END_BEFORE = re.compile(r"(?:year-end|year\s+end|ending|closing)\s*$")
_CONSTANT = re.compile(r"(?<![\w.,$])(\d{2,3}(?:\.\d+)?)(?![\w%]|[.,]\d|\s*%|,\s*\d{4})")
"""A constant of arithmetic (365, 100), not a year or a day of a date ("June 28, 2024")."""
_MONTH_BEFORE = re.compile(
    r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s*$"
)


@dataclass(frozen=True, slots=True)
class WrittenFormula:
    """Arithmetic a question writes inline ("year-end receivables divided by revenue times
    365"), read into the grammar: it binds, whatever the library defines the metric as."""

    formula: Expr
    span: tuple[int, int]
    """Where the question writes it (operands and operators)."""


def read_written_formula(text: str, library: MetricLibrary) -> WrittenFormula | None:
    """The arithmetic ``text`` writes between line items it names (``/``, ``*``, ``+``, ``-``
    in words, constants such as 365, "average of opening and closing X", "year-end X"), or
    None when it joins no two operands by an operator word."""
    lowered = text.lower()
    operands: list[tuple[int, int, str]] = [
        (start, end, item.key) for (start, end), item in library.item_spans(lowered)
    ]
    operands += [
        (m.start(1), m.end(1), m.group(1))
        for m in _CONSTANT.finditer(lowered)
        if not _MONTH_BEFORE.search(lowered[: m.start(1)])
    ]
    operands.sort()
    best: list[str] = []
    best_span = (0, 0)
    run: list[str] = []
    run_start = 0
    previous_end = None
    for start, end, key in operands:
        leaf = _leaf(lowered[:start], key)
        if previous_end is not None and run:
            gap = lowered[previous_end:start]
            operator = _gap_operator(gap, leaf is not None)
            if operator is not None:
                if operator in "*/" and "," in gap and len(run) > 1:
                    run = ["(", *run, ")"]  # "A minus B, divided by C" is (A - B) / C
                run += [operator, leaf or key]
                previous_end = end
                if len(run) > len(best):
                    best, best_span = list(run), (run_start, end)
                continue
        run, run_start, previous_end = [leaf or key], start, end
    if len(best) < 3:
        return None
    try:
        return WrittenFormula(parse_formula(" ".join(best)), best_span)
    except FormulaError:
        return None


def _leaf(before: str, key: str) -> str | None:
    """The operand as its leading words qualify it: ``avg(key)`` after "average (of opening and
    closing)", the key itself after "year-end"; None when nothing qualifies it."""
    if key[0].isdigit():
        return key
    if _AVERAGE_OF.search(_GAP_FILLER.sub(" ", before[-80:]).rstrip()):
        return f"avg({key})"
    return key


def _gap_operator(gap: str, qualified: bool) -> str | None:
    """The operator the words between two operands say, once filler and the next operand's
    qualifier ("average of opening and closing") are set aside; None when they say none."""
    words = _AVERAGE_OF.sub(" ", gap) if qualified else gap
    words = _YEAR_END_BEFORE.sub(" ", words)
    words = " ".join(_GAP_FILLER.sub(" ", words).split())
    for pattern, operator in _OPERATOR_GAPS:
        if pattern.match(words):
            return operator
    return None
