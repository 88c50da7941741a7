"""The company guard: decline, before the model, a question about another company than the filer.

Companies are known by name (without legal suffixes; a few aliases), ticker and CIK, from the
indexed companies and edgartools' offline list of public companies. Precision comes first: an
ordinary-word name counts only when capitalised; companies past the first ``prominent`` rows
of the list (the SEC orders it by market value) only by a name of two or more words or
``$TICKER``; one-letter tickers only as ``$V`` or ``ticker V``.
"""

from __future__ import annotations

import marshal
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Literal

from edgar_rag.domain import FilingMeta
from edgar_rag.rules import (
    LEGAL_FORMS,
    ListedCompany,
    display_name,
    listed_companies,
    name_words,
    strip_forms,
)

_WEAK_SUFFIXES = frozenset(
    "group holdings holding technologies platforms systems communications brands international "
    "worldwide reit".split()
)
_ALIASES = {
    "alphabet": ("google",), "meta platforms": ("facebook", "meta"), "walmart": ("wal mart",),
    "wal mart stores": ("walmart", "wal mart"), "johnson & johnson": ("j & j",),
    "procter & gamble": ("p & g",), "international business machines": ("ibm",),
    "exxon mobil": ("exxon", "exxonmobil"), "berkshire hathaway": ("berkshire",),
    "jpmorgan chase": ("jpmorgan", "jp morgan", "j p morgan"),
    "schwab charles": ("charles schwab", "schwab"),
}  # fmt: skip
_JOINERS = frozenset({"of", "and", "the", "&", "de"})
_STOPWORDS = frozenset(
    "a about all also am an and any are as at be but by can do for from here i if in is it its "
    "new no not now of on one or our out over so the this to two up us we what who you "
    "nasdaq".split()
)
# Words of prominent companies' names that are ordinary in a question about a 10-K; a name made
# only of them counts only when capitalised ("Target", "Visa", "General Motors").
_COMMON_WORDS = _STOPWORDS | frozenset(
    "advanced affirm airlines align american apple applied arm automatic ball below best block "
    "booking bp brands brokers buy cadence capital carnival carrier chart charter check citizens "
    "coherent communications connections cooper crane data design digital dollar dover dow "
    "dynamics electric element encompass energy enterprise entertainment equitable equity "
    "essential expand express federal fields financial first five flex food foods fox gap general "
    "global globe gold grid group health holding holdings homes income industrial industries "
    "infrastructure innovation interactive international investment life lineage live management "
    "match materials meta monster motors nation national news northern nova nu onto oracle paper "
    "paramount partners payments performance platforms point pool popular post power principal "
    "processing products progressive public realty regions reliance rent rentals residential "
    "restaurant rocket sea semiconductor service shell software solar solutions southern square "
    "state steel sterling storage strategy street systems take target technologies technology "
    "toast transfer travelers trip trust union united utilities vale venture viking visa waste "
    "water waters western williams works zoom".split()
)
# Upper-case words of financial prose that are also tickers; they count only as $X or "ticker X".
_TICKER_STOPWORDS = frozenset(
    "AG AI ALL AM AMT AN AR ARE AS BE BY CAN CASH COO CTO EU FAST FCF FOR GHG GO HAS HE HR ICE "
    "IP IRS IT KEY LIFE LTM MA MS NET NOW ON OR OUT PAY PC PR PS SA SE SO TV TX UK UP USA WAY "
    "WELL YOU".split()
)
_SUFFIX_WORDS = LEGAL_FORMS | _WEAK_SUFFIXES
_LOWER = _JOINERS | _SUFFIX_WORDS
_QUESTION_TOKEN = re.compile(r"[A-Za-z0-9]+(?:['’][A-Za-z0-9]+)*|&")
_TICKER = re.compile(r"(?<![\w$])(\$)?([A-Z][A-Z0-9]{0,5}(?:[.-][A-Z])?)(?![\w-])")
_TICKER_CUE = re.compile(r"\b(?:ticker|symbol)(?:\s+symbol)?\s*[:=]?\s*$", re.I)
_OBJECT_BEFORE = re.compile(
    r"\b(?:with|vs\.?|versus|against|than|about|from|like|such\s+as|including|between|"
    r"(?:compared?|comparison|relative|similar|sales|payments?|paid|owed|exposure)\s+(?:to|with))"
    r"\s+(?:the\s+|its\s+|their\s+|our\s+)?$",
    re.I,
)
_OBJECT_NEAR = re.compile(
    r"\b(?:compet\w*|rivals?|peers?|partner\w*|customers?|clients?|suppliers?|vendors?|licens\w*"
    r"|mention\w*|referenc\w*|acqui\w*|merg\w*|divest\w*|spin-?offs?|spun|separation|stake"
    r"|joint\s+venture|collaborat\w*|alliance|agreements?|contracts?|deals?|relationships?"
    r"|arrangements?|lawsuits?|litigation|sued|suing|disputes?|settlements?|ratings?|rated"
    r"|rel(?:y|ies|iance)\s+on|depend\w*|concentration|vs|versus)\b",
    re.I,
)
_WORDS_AROUND = 6
_FORMAT = 1
"""The layout ``CompanyDirectory.to_bytes`` writes; a change to it bumps this."""
_CIK = re.compile(r"\bCIK\s*(?:#|no\.?|number)?\s*:?\s*(\d{1,10})\b", re.I)


@dataclass(frozen=True, slots=True)
class Company:
    name: str
    cik: int | None
    tickers: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class CompanyMention:
    """Words of a question that name a company: by ``name``, ``ticker`` or ``cik``."""

    text: str
    """As written, without a possessive ``'s``."""
    start: int
    end: int
    companies: tuple[Company, ...]
    """Every company the words may mean (usually one)."""
    kind: Literal["name", "ticker", "cik"]


@dataclass(frozen=True, slots=True)
class _Token:
    text: str
    start: int
    end: int
    forms: tuple[str, ...]
    """Lower case, without apostrophes; a possessive gives both ``apple`` and ``apples``."""
    possessive: bool
    sentence_start: bool


class CompanyDirectory:
    """Names, tickers and CIKs of public companies, found inside questions."""

    def __init__(
        self,
        listing: Iterable[ListedCompany],
        indexed: Iterable[ListedCompany] = (),
        *,
        prominent: int = 1000,
        any_case: bool = False,
    ) -> None:
        """``listing``: public companies in the SEC's order, largest first (empty: the indexed
        companies alone). ``any_case`` reads every name in any case, ordinary words too
        (``Apple Card`` names Apple)."""
        self._any_case = any_case
        self._companies: list[Company] = []
        self._prominent: list[bool] = []
        self._number_of: dict[str, int] = {}
        self._by_ticker: dict[str, list[int]] = {}
        self._names: dict[tuple[str, ...], set[tuple[int, bool]]] = {}
        self._longest = 0
        for name, ticker, cik in indexed:
            self._add(name, ticker, cik, prominent=True)
        for rank, (name, ticker, cik) in enumerate(listing):
            self._add(name, ticker, cik, prominent=rank < prominent)

    @classmethod
    def from_edgartools(
        cls, indexed: Iterable[ListedCompany] = (), *, prominent: int = 1000
    ) -> CompanyDirectory:
        """Over the public companies edgartools ships (``rules.listed_companies``)."""
        return cls(listed_companies(), indexed, prominent=prominent)

    def to_bytes(self) -> bytes:
        """The directory as built, for ``from_bytes`` in a later process: building it from the
        list reads ~10,000 names into ~30,000 spellings (0.2 s), loading it takes a tenth."""
        return marshal.dumps(
            (
                _FORMAT,
                [(company.name, company.cik, company.tickers) for company in self._companies],
                self._prominent,
                self._number_of,
                self._by_ticker,
                {variant: tuple(numbers) for variant, numbers in self._names.items()},
                self._longest,
                self._any_case,
            )
        )

    @classmethod
    def from_bytes(cls, data: bytes) -> CompanyDirectory:
        """The directory ``to_bytes`` wrote; ValueError if the bytes are not one."""
        try:
            fmt, companies, prominent, number_of, by_ticker, names, longest, any_case = (
                marshal.loads(data)
            )
        except (EOFError, TypeError, ValueError) as error:
            raise ValueError(f"not a company directory: {error}") from error
        if fmt != _FORMAT:
            raise ValueError(f"a company directory of format {fmt!r}, not {_FORMAT}")
        directory = cls((), any_case=any_case)
        directory._companies = [
            Company(name, cik, tuple(tickers)) for name, cik, tickers in companies
        ]
        directory._prominent = prominent
        directory._number_of = number_of
        directory._by_ticker = by_ticker
        directory._names = {variant: set(numbers) for variant, numbers in names.items()}
        directory._longest = longest
        return directory

    def company(self, cik: int) -> Company | None:
        number = self._number_of.get(f"cik:{cik}")
        return None if number is None else self._companies[number]

    def find(self, question: str) -> tuple[CompanyMention, ...]:
        """The companies a question names, in order; a name wins over a ticker inside it."""
        all_caps = not any(char.islower() for char in question)
        found = list(self._find_names(question, _tokens(question), all_caps))
        for mention in self._find_codes(question, all_caps):
            if not any(_overlap(mention, name) for name in found):
                found.append(mention)
        return tuple(sorted(found, key=lambda mention: mention.start))

    def _add(self, name: str, ticker: str | None, cik: int | None, *, prominent: bool) -> None:
        key = f"cik:{cik}" if cik is not None else "name:" + " ".join(name_words(name))
        number = self._number_of.setdefault(key, len(self._companies))
        if number == len(self._companies):
            self._companies.append(Company(display_name(name), cik, ()))
            self._prominent.append(prominent)
        prominent = self._prominent[number] = self._prominent[number] or prominent
        company, symbol = self._companies[number], (ticker or "").strip().upper().replace(".", "-")
        if symbol and symbol not in company.tickers:
            self._companies[number] = Company(company.name, cik, (*company.tickers, symbol))
            self._by_ticker.setdefault(symbol, []).append(number)
        for variant, capitalised in _variants(name, prominent=prominent):
            self._names.setdefault(variant, set()).add((number, capitalised and not self._any_case))
            self._longest = max(self._longest, len(variant))

    def _find_names(
        self, question: str, tokens: list[_Token], all_caps: bool
    ) -> Iterator[CompanyMention]:
        """Longest names first; a possessive word (``Apple's``, ``Lowe's``) ends a name."""
        position = 0
        while position < len(tokens):
            found = self._name_at(tokens, position, all_caps)
            if found is None:
                position += 1
                continue
            end, bare, numbers = found
            start, stop = tokens[position].start, tokens[end - 1].end - (2 if bare else 0)
            companies = tuple(self._companies[number] for number in sorted(numbers))
            yield CompanyMention(question[start:stop], start, stop, companies, "name")
            position = end

    def _name_at(
        self, tokens: list[_Token], start: int, all_caps: bool
    ) -> tuple[int, bool, set[int]] | None:
        for end in range(min(len(tokens), start + self._longest), start, -1):
            if any(token.possessive for token in tokens[start : end - 1]):
                continue
            words = tuple(token.forms[0] for token in tokens[start : end - 1])
            for number, last in enumerate(tokens[end - 1].forms):
                numbers = {
                    company
                    for company, capitalised in self._names.get((*words, last), ())
                    if not capitalised or _written_as_name(tokens, start, end, all_caps)
                }
                if numbers:
                    return end, tokens[end - 1].possessive and number == 0, numbers
        return None

    def _find_codes(self, question: str, all_caps: bool) -> Iterator[CompanyMention]:
        for match in _TICKER.finditer(question):
            symbol = match.group(2).replace(".", "-")
            numbers = self._by_ticker.get(symbol, [])
            explicit = bool(match.group(1) or _TICKER_CUE.search(question[: match.start()]))
            plain = not all_caps and len(symbol) >= 2 and symbol not in _TICKER_STOPWORDS
            if explicit or (plain and any(self._prominent[number] for number in numbers)):
                companies = tuple(self._companies[number] for number in numbers)
                if companies:
                    yield CompanyMention(match.group(), *match.span(), companies, "ticker")
        for match in _CIK.finditer(question):
            cik = int(match.group(1))
            company = self.company(cik) or Company(f"CIK {cik}", cik, ())
            yield CompanyMention(match.group(), *match.span(), (company,), "cik")


def company_guard(
    question: str, mentions: tuple[CompanyMention, ...], filing: FilingMeta
) -> str | None:
    """None unless the question asks about another company than the filer's, else why;
    ``mentions`` are the companies a directory found in it (``CompanyDirectory.find``).

    The filer is the implicit subject when the question names it too ("What does Apple say
    about its agreement with Google?", "How much did Google pay Apple?"), or names the other
    company only as an object of the filer's statements: right after *with*, *vs*, *against*,
    *than*, *about*, *from*, *like*, *such as*, *including*, *between* or *compared to*, or
    within six words of a relational word (*competitors*, *customer*, *supplier*, *partner*,
    *agreement*, *deal*, *acquisition*, *lawsuit*, *mention*, *rating*, *depends*...).
    """
    filer = CompanyDirectory((), [(filing.company, filing.ticker, filing.cik)], any_case=True)
    own = [
        mention
        for mention in filer.find(question)
        if (mention.kind != "cik" or mention.companies[0].cik == filing.cik)
        and not any(_inside(mention, other) for other in mentions)
    ]
    others = [
        mention
        for mention in mentions
        if not any(_overlap(mention, mine) for mine in own)
        and all(company.cik is None or company.cik != filing.cik for company in mention.companies)
    ]
    if own or len(others) < len(mentions):
        return None
    subjects = [mention for mention in others if not _names_an_object(question, mention)]
    if not subjects:
        return None
    named = list(dict.fromkeys(map(_describe, subjects)))
    listed = named[0] if len(named) == 1 else ", ".join(named[:-1]) + " and " + named[-1]
    return f"the question asks about {listed}; this filing is {filing.company}'s"


def _variants(name: str, *, prominent: bool) -> Iterator[tuple[tuple[str, ...], bool]]:
    """Each way of writing the name, and whether it must be written capitalised."""
    full = name_words(name)
    legal = strip_forms(full)
    short = strip_forms(legal, _SUFFIX_WORDS)
    variants = {full, legal} | ({short} if not _all_common(short) else set())
    for variant in list(variants):
        variants.update(tuple(alias.split()) for alias in _ALIASES.get(" ".join(variant), ()))
    for variant in variants:
        if len(variant) == 1 and (not prominent or variant[0] in _STOPWORDS or len(variant[0]) < 2):
            continue
        if not all(word.isdigit() for word in variant):
            yield variant, not prominent or variant == short != legal or _all_common(variant)


def _all_common(words: tuple[str, ...]) -> bool:
    return all(word in _COMMON_WORDS or word.isdigit() for word in words)


def _tokens(question: str) -> list[_Token]:
    tokens: list[_Token] = []
    for match in _QUESTION_TOKEN.finditer(question):
        text = match.group().replace("’", "'")
        possessive = text.lower().endswith("'s")
        base = (text[:-2] if possessive else text).replace("'", "").lower()
        gap = question[tokens[-1].end if tokens else 0 : match.start()]
        starts = not tokens or any(mark in gap for mark in ".?!:;")
        forms = (base, base + "s") if possessive else (base,)
        tokens.append(_Token(match.group(), *match.span(), forms, possessive, starts))
    return tokens


def _written_as_name(tokens: list[_Token], start: int, end: int, all_caps: bool) -> bool:
    """Capitalised as a name and, for one word, not inside a longer proper noun (``Red Sea``,
    ``Target Date Fund``); capitals say nothing in a question written all in upper case."""
    span = tokens[start:end]
    if all_caps or any(not t.text[0].isupper() and t.forms[0] not in _LOWER for t in span):
        return False
    if len(span) > 1:
        return True
    word, before = span[0], tokens[start - 1] if start > 0 else None
    after = tokens[end] if end < len(tokens) else None
    if before and before.text[0].isupper() and not (word.sentence_start or before.sentence_start):
        return False
    return not (
        after
        and after.text[0].isupper()
        and not (word.possessive or after.sentence_start or after.forms[0] in _SUFFIX_WORDS)
    )


def _names_an_object(question: str, mention: CompanyMention) -> bool:
    before, after = question[: mention.start], question[mention.end :]
    around = before.split()[-_WORDS_AROUND:] + after.split()[:_WORDS_AROUND]
    return bool(_OBJECT_BEFORE.search(before) or _OBJECT_NEAR.search(" ".join(around)))


def _describe(mention: CompanyMention) -> str:
    name = mention.companies[0].name
    plain = mention.kind == "name" or len(mention.companies) != 1 or name == mention.text
    return mention.text if plain else f"{mention.text} ({name})"


def _overlap(first: CompanyMention, second: CompanyMention) -> bool:
    return first.start < second.end and second.start < first.end


def _inside(inner: CompanyMention, outer: CompanyMention) -> bool:
    shorter = inner.end - inner.start < outer.end - outer.start
    return shorter and outer.start <= inner.start and inner.end <= outer.end
