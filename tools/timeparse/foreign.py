"""Time phrases in other languages, read through dateparser's locales as a fallback.

English is read by our own grammar (fast, predictable). When that finds nothing, a
phrase in German, Spanish, French, Portuguese or Polish ("morgen um 9 Uhr", "mañana a
las 9", "demain à 9h", "amanhã às 9", "jutro o 9") is handed to dateparser, imported
lazily on first use so start-up and English parsing never pay for it.

The result is an `Understood` instant: a datetime that also says how it was read
("read as German: Tue 24 Nov 2026 09:00"), so a confirmation can show what was
understood before anything is scheduled. A fallback reading is only accepted when the
phrase has real words (not "A4 A5"), and a clock time dateparser would drop
("um 9 Uhr") is rewritten to "09:00" first so it is never silently lost.
"""

from __future__ import annotations

import re
from datetime import datetime, tzinfo
from typing import Any

LANGUAGES = ("de", "es", "fr", "pt", "pl")
_NAMES = {"de": "German", "es": "Spanish", "fr": "French", "pt": "Portuguese", "pl": "Polish"}
DEFAULT_HOUR = 9
MAX_LEN = 120
# dateparser's search grows super-linearly in words (40 repeated Spanish words: ~0.5 s,
# 20: ~6 ms); a reminder written in another language is well under this many words.
MAX_SEARCH_WORDS = 24

# A word of at least three letters in any script: "A4 A5" or "2 3" is no phrase.
_WORD = re.compile(r"(?<![\w])[^\W\d_]{3,}(?![\w])")
# "um 9 Uhr", "a las 9", "à 9h30", "às 9", "o 9", "o godzinie 9", "9 Uhr" → "09:00".
_CLOCK = re.compile(
    r"(?:\b(?:um|gegen|ab|a\s+las?|sobre\s+las?|hacia\s+las?|à|a|às|as|pelas|o\s+godzinie|"
    r"o\s+godz\.?|o|godz\.?|vers)\s+)?"
    r"(?P<h>[01]?\d|2[0-3])(?:\s*(?:[:.h]|uhr\s*)(?P<m>[0-5]\d))?"
    r"\s*(?P<u>uhr|h|heures?|horas?|hrs?)?(?![\w:./])",
    re.IGNORECASE,
)
_CLOCK_LEAD = re.compile(
    r"\b(?:um|gegen|a\s+las?|sobre\s+las?|hacia\s+las?|à|às|as|pelas|o\s+godzinie|o\s+godz\.?|"
    r"o|godz\.?|vers)\s+$",
    re.IGNORECASE,
)
# "next"/"this" before a weekday: dateparser reads the bare weekday as the coming one.
_NEXT = re.compile(
    r"\b(?:nächsten|nächste|nächster|kommenden|kommende|diesen|el\s+próximo|la\s+próxima|"
    r"próximo|próxima|este|esta|el|la|le|ce|prochain|prochaine|o\s+próximo|a\s+próxima|"
    r"na\s+próxima|no\s+próximo|w\s+przyszły|w\s+przyszłą|w\s+najbliższy|w\s+najbliższą|w|we|"
    r"am)\b\s*",
    re.IGNORECASE,
)
# Common time words of the fallback languages (none of them an English word), so that an
# English phrase our grammar does not read never pays for loading dateparser.
_LEXICON = frozenset(
    """
    heute morgen übermorgen gestern vorgestern uhr montag dienstag mittwoch donnerstag
    freitag samstag sonnabend sonntag januar februar märz juni juli oktober dezember stunde
    stunden minuten tage tagen woche wochen monat monate monaten jahr jahre jahren
    nächste nächsten nächster kommenden mittag abend abends morgens nacht nachts früh
    vormittag nachmittag einer einem halb viertel mitternacht hoy mañana pasado ayer lunes
    martes miércoles jueves viernes sábado domingo enero febrero marzo abril mayo junio
    julio agosto septiembre setiembre octubre noviembre diciembre hora horas minuto minutos
    día días semana semanas mes meses año años próximo próxima tarde noche mediodía
    medianoche dentro aujourd'hui demain hier après-demain lundi mardi mercredi jeudi
    vendredi samedi dimanche janvier février avril juin juillet août septembre octobre
    novembre décembre heure heures jour jours semaine semaines mois année années prochain
    prochaine soir matin midi minuit dans hoje amanhã ontem segunda terça quarta quinta
    sexta janeiro fevereiro março maio junho julho setembro outubro dezembro mês ano anos
    noite manhã daqui depois dzisiaj dziś jutro pojutrze wczoraj poniedziałek wtorek środa
    środę czwartek piątek sobota sobotę niedziela niedzielę stycznia lutego marca kwietnia
    maja czerwca lipca sierpnia września października listopada grudnia styczeń luty marzec
    kwiecień czerwiec lipiec sierpień wrzesień październik listopad grudzień godzina godziny
    godzin godzinę minut minuty dzień dni tydzień tygodnie miesiąc rok rano wieczorem
    południe północ przyszły przyszłą
    """.split()  # noqa: SIM905 - a word list reads better as text
)
_TOKEN = re.compile(r"[^\W\d_][\w'-]*")


def looks_foreign(text: str) -> bool:
    """Whether a phrase has a time word of one of the fallback languages (cheap check)."""
    return any(w in _LEXICON for w in _TOKEN.findall(text.lower()))


class Understood(datetime):
    """An instant read by the multilingual fallback, with what was understood."""

    # Defaults: arithmetic and astimezone() may hand back this type without the instance's
    # own attributes.
    understood: str = ""
    language: str = ""


def _settings(base: datetime) -> dict[str, Any]:
    return {
        "PREFER_DATES_FROM": "future",
        "RETURN_AS_TIMEZONE_AWARE": False,
        "RELATIVE_BASE": base,  # "morgen" counts from the user's now, on their wall clock
    }


def _clock_sub(m: re.Match[str]) -> str:
    s = m.string
    lead = _CLOCK_LEAD.search(s[: m.start("h")])
    if not (m["m"] or m["u"] or lead):
        return m.group(0)  # a bare number: a day, a count, a year — leave it
    return f" {int(m['h']):02d}:{m['m'] or '00'} "


# Parts of the day dateparser does not read, as the hour a reminder would use (the same
# hours as the English grammar: morning 9, afternoon 15, evening 18, night 21).
_PARTS_OF_DAY: list[tuple[re.Pattern[str], int]] = [
    (re.compile(p, re.IGNORECASE), h)
    for p, h in (
        (r"\b(?:am\s+)?(?:(?:sehr\s+)?früh(?:morgens)?|morgens|vormittags?|am\s+morgen)\b", 9),
        (r"\b(?:am\s+)?(?:(?:sehr\s+)?(?:frühe[nr]?\s+)?nachmittags?|nach\s+mittag)\b", 15),
        (r"\b(?:am\s+)?(?:mittags?|ab\s+mittag)\b", 12),
        (r"\b(?:am\s+)?(?:(?:späte[nr]?\s+)?abends?)\b", 18),
        (r"\b(?:in\s+der\s+)?nachts?\b", 21),
        (r"\bpor\s+la\s+mañana\b|\bde\s+manhã\b|\ble\s+matin\b|\bmatin\b|\brano\b", 9),
        (r"\bal\s+mediodía\b|\bà\s+midi\b|\bmidi\b|\bw\s+południe\b", 12),
        (
            r"\bpor\s+la\s+tarde\b|\bà\s+tarde\b|\bde\s+tarde\b|\baprès-midi\b|"
            r"\bpo\s+południu\b",
            15,
        ),
        (r"\bsoir\b|\bwieczorem\b|\bwieczór\b", 18),
        (r"\bpor\s+la\s+noche\b|\bà\s+noite\b|\bde\s+noite\b|\bw\s+nocy\b", 21),
    )
]
# Words around a time that change nothing a reminder needs: "ca", "gegen", "nach", "ab".
_HEDGES = re.compile(
    r"\b(?:ca\.?|circa|etwa|gegen|ungefähr|frühestens|spätestens|nicht\s+vor|nach|ab|den|der|"
    r"dem|hacia|sobre|vers|environ|por\s+volta\s+d[ae]s?|około|koło)\b\s*",
    re.IGNORECASE,
)


def _rewrite(text: str) -> tuple[str, bool]:
    """The phrase with clock times as HH:MM, parts of the day as their hour and "next" and
    hedge words dropped; whether it names a clock time."""
    clocked = _CLOCK.sub(_clock_sub, text)
    has_clock = clocked != text or bool(re.search(r"\b\d{1,2}:\d{2}\b", text))
    for pat, hour in _PARTS_OF_DAY:
        if pat.search(clocked):
            clocked = pat.sub(" " if has_clock else f" {hour:02d}:00 ", clocked, count=1)
            has_clock = True
            break
    plain = _HEDGES.sub("", _NEXT.sub("", clocked))
    return " ".join(plain.split()), has_clock


def parse_foreign(text: str, *, now: datetime, zone: tzinfo) -> Understood | None:
    """A future or past instant for a non-English time phrase, or None."""
    if len(text) > MAX_LEN or not _WORD.search(text):
        return None
    phrase, has_clock = _rewrite(text)
    if not phrase:
        return None
    from dateparser.date import DateDataParser  # lazy: ~0.3 s to import, English never needs it

    base = now.astimezone(zone).replace(tzinfo=None)
    try:
        data = DateDataParser(languages=list(LANGUAGES), settings=_settings(base)).get_date_data(
            phrase
        )
    except (ValueError, OverflowError, TypeError, KeyError, IndexError, AttributeError):
        return None
    got = data.date_obj
    if got is None or data.locale is None:
        return None
    lang = str(data.locale).split("-")[0]
    if lang not in LANGUAGES:
        return None
    if (
        not has_clock
        and not re.search(r"\d", phrase)
        and got.date() != base.date()
        and (got.hour, got.minute) == (base.hour, base.minute)
    ):
        # "morgen", "mañana", "lundi": a day (dateparser keeps now's clock); 09:00 as in
        # English. Counted offsets ("in 2 Tagen") keep the clock, as "in 2 days" does.
        got = got.replace(hour=DEFAULT_HOUR, minute=0, second=0)
    return _understood(got, lang, has_clock, zone)


def _understood(got: datetime, lang: str, has_clock: bool, zone: tzinfo) -> Understood:
    if got.tzinfo is not None:
        got = got.astimezone(zone).replace(tzinfo=None)
    if not has_clock and (got.hour, got.minute, got.second) == (0, 0, 0):
        got = got.replace(hour=DEFAULT_HOUR)  # a day without a time: 09:00, as in English
    at = datetime(got.year, got.month, got.day, got.hour, got.minute, tzinfo=zone)
    at = at.astimezone(zone)
    out = Understood(
        at.year, at.month, at.day, at.hour, at.minute, at.second, tzinfo=at.tzinfo, fold=at.fold
    )
    out.language = _NAMES.get(lang, lang)
    out.understood = f"read as {out.language}: {out:%a %d %b %Y %H:%M}"
    return out


def split_foreign(text: str, *, now: datetime, zone: tzinfo) -> tuple[Understood, str] | None:
    """The first non-English time phrase inside a message and the other words, or None."""
    if len(text) > 160 or len(text.split()) > MAX_SEARCH_WORDS or not looks_foreign(text):
        return None  # dateparser's search grows fast with length: messages, not essays
    from dateparser.search import search_dates

    clocked = " ".join(_CLOCK.sub(_clock_sub, text).split())
    base = now.astimezone(zone).replace(tzinfo=None)
    try:
        found = search_dates(clocked, languages=list(LANGUAGES), settings=_settings(base))
    except (ValueError, OverflowError, TypeError, KeyError, IndexError, AttributeError):
        return None
    for span, _ in found or []:
        if not looks_foreign(span) and not re.search(r"\d", span):
            continue  # a stray word read as a date ("a", "me"): not a time phrase
        start = clocked.find(span)
        lead = _LEAD_NEXT.search(clocked[:start])
        if lead:
            start = lead.start()
        phrase = clocked[start : clocked.find(span) + len(span)]
        at = parse_foreign(phrase, now=now, zone=zone)
        if at is not None:
            rest = (clocked[:start] + " " + clocked[start + len(phrase) :]).strip()
            return at, " ".join(rest.split())
    return None


_LEAD_NEXT = re.compile(
    r"\b(?:nächsten|nächste|nächster|kommenden|el\s+próximo|la\s+próxima|próximo|próxima|"
    r"prochain|prochaine|o\s+próximo|a\s+próxima|w\s+przyszły|w\s+przyszłą|am|el|le|w)\s+$",
    re.IGNORECASE,
)
