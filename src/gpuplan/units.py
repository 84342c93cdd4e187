"""Units shared by every layer: the billing month, whole instances, durations, and amounts of money
and counts written for people."""

from __future__ import annotations

import math
import re
from decimal import Decimal
from typing import Any, TypeVar

from gpuplan.errors import Phrase
from gpuplan.i18n import N_
from gpuplan.i18n.numbers import format_hours

__all__ = [
    "ASSUMED_DISK_GBPS",
    "BATCH_CHUNK_BATCHES",
    "BUDGET_EXAMPLES",
    "CHECKPOINTS_KEPT",
    "CHECKPOINT_WRITE_SHARE",
    "CHECKPOINT_WRITE_SHARE_FLAGGED",
    "DEFAULT_CHECKPOINT_INTERVAL_MIN",
    "HOURS_PER_MONTH",
    "MAX_BUDGET_CNY",
    "MAX_BUDGET_USD",
    "MAX_RUNS_PER_MONTH",
    "MAX_SPOT_NOTICE_S",
    "MAX_SPOT_RATE_PER_HOUR",
    "MAX_STORAGE_GBPS",
    "MIN_BUDGET",
    "MIN_STORAGE_GBPS",
    "NOT_AN_AMOUNT",
    "UNSUPPORTED_CURRENCY",
    "WRONG_CURRENCY",
    "as_typed",
    "batch_chunk_hours",
    "default_checkpoint_interval_min",
    "format_hours",
    "instances_for",
    "other_currency",
    "read_amount",
    "read_count",
    "read_money",
    "split_list",
    "with_digits",
]

_Number = TypeVar("_Number", float, Any)

#: Batches of a batch inference job in one output chunk: what the batch job ``gpuplan deploy``
#: writes keeps whole (its runner's ``CHUNK_BATCHES``, and vLLM's chunk of requests), and so what a
#: spot reclaim makes it run again at most — the planner's and tco's spot model of it.
BATCH_CHUNK_BATCHES = 64


#: The interval a training job checkpoints at where nothing sets a shorter one, minutes: the
#: ``CHECKPOINT_INTERVAL_MIN`` of the train.py ``gpuplan deploy`` writes for an on-demand, reserved
#: or monthly option (a spot option's is the planner's Young/Daly interval), and the interval the
#: planner prices the writes of such an option at. 30 min bounds the work a crash or a spot reclaim
#: loses at half an hour, at a write cost that is small for models that fit one node; a checkpoint
#: whose writes would take more than :data:`CHECKPOINT_WRITE_SHARE` of the job is written less often
#: (:func:`default_checkpoint_interval_min`). One figure for both, so that the plan prices the
#: checkpoints the launch writes.
DEFAULT_CHECKPOINT_INTERVAL_MIN = 30.0

#: gpuplan's own policy off spot, where the workload does not set ``checkpoint.every_min``: the
#: writes take at most this share of the job's time, 5 % (an interval at least 20 writes long).
#: On demand, on a reservation or at a monthly price nothing reclaims the instances: a written
#: interval protects only against a hardware failure, and a lost interval is paid only then.
#: Failures are rare at a few nodes: Meta's Llama 3 training saw 419 unexpected interruptions in 54
#: days on 16,384 H100 GPUs (Llama Team, AI @ Meta, "The Llama 3 Herd of Models", arXiv:2407.21783,
#: §3.3.4, 2024-07), about one per 50,000 GPU-hours: a 16-GPU job fails about once in 3,000 hours,
#: where Young's balance of writes against lost work (``plan/spot.py``) puts a 22.5 min write every
#: 49 h, under 1 % of the job. 5 % is well above that balance, on the side that loses less work to a
#: failure, and keeps the writes a small share of the bill where 30 min would let a large
#: checkpoint's take nearly half of it (177 GB at the assumed 0.131 GB/s is a 22.5 min write: every
#: 30 min, 43 % of the job). The workload's ``checkpoint.every_min`` overrides it.
CHECKPOINT_WRITE_SHARE = 0.05

#: A share of the job's time spent writing checkpoints at the workload's own interval
#: (``checkpoint.every_min``) above which the plan says so, with what the writes cost: 20 %.
CHECKPOINT_WRITE_SHARE_FLAGGED = 0.20


def default_checkpoint_interval_min(write_min: float) -> float:
    """The interval a job off spot checkpoints at where the workload does not set one, minutes:
    :data:`DEFAULT_CHECKPOINT_INTERVAL_MIN`, or longer where one write takes more than
    :data:`CHECKPOINT_WRITE_SHARE` of it — ``write_min`` / 0.05, up to a whole minute, so that the
    writes take at most 5 % of the job (C / (τ + C) ≤ 0.05 / 1.05). e.g. a 22.55 min write: 451 min;
    a ResNet-50's 0.03 min write: 30 min."""
    if not write_min > 0 or not math.isfinite(write_min):
        return DEFAULT_CHECKPOINT_INTERVAL_MIN
    return max(DEFAULT_CHECKPOINT_INTERVAL_MIN, float(math.ceil(write_min / CHECKPOINT_WRITE_SHARE - 1e-9)))


#: Checkpoints on disk at once at the most, the one being written included, where the workload's
#: ``checkpoint.keep`` does not say: train.py's ``KEEP_CHECKPOINTS`` (it deletes the oldest down to
#: one before each write), and what the plan prices as stored. Two: the last good one survives a
#: write cut short.
CHECKPOINTS_KEPT = 2


def batch_chunk_hours(step_time_s: _Number) -> _Number:
    """Hours one output chunk of a batch inference job takes at ``step_time_s`` a batch: a number, or
    numpy's array of them (a step time not known, NaN, stays NaN: the caller then takes the work as
    starting over)."""
    return BATCH_CHUNK_BATCHES * step_time_s / 3600.0


#: Hours in a billing month, to turn monthly prices into hourly ones and back.
#: 730 = 8760 h / 12, the convention AWS, Azure and GCP price calculators use.
HOURS_PER_MONTH = 730.0
#: The largest budget a workload, the command line or the service takes: a trillion dollars (ten
#: trillion yuan) is beyond any GPU bill and below where a float's cents stop being exact.
MAX_BUDGET_USD = 1e12
MAX_BUDGET_CNY = 1e13
#: The smallest positive budget, in either currency: one cent (one fen). A smaller one is stored as
#: nothing and shown as "¥0.00 = $0.00" (a budget of 1e-300 yuan was taken).
MIN_BUDGET = 0.01
#: An amount of money that is no number in any of the ways people write one (``{value}``: as given).
NOT_AN_AMOUNT = "{value} is not an amount: write it as {one} or {two}"
#: An amount written in the other currency (``{value}``: as given, ``{option}``: the option or field
#: that takes it).
WRONG_CURRENCY = "{value} is in another currency: give it with {option}"
#: An amount in a currency gpuplan does not take (``{code}``: its ISO code): plans are priced in
#: US dollars, and shown in dollars or yuan, at the catalog's dated CNY rate; it has no dated rate
#: of any other currency to convert one at.
UNSUPPORTED_CURRENCY = (
    "{value} is in {code}, which gpuplan does not price in (the catalog has no dated {code} rate): "
    "give the amount in USD or CNY"
)
#: Other currencies' signs and names, as people write them beside an amount or name the currency
#: (``--currency yen``), by their ISO code: refused by name, where "is not an amount" had not said
#: why, and "did you mean 'CNY'" had offered the yuan for the yen. Yen in each spelling a user may
#: write: ``JP¥``, ``yen``, ``円``, ``日元``; a bare ``¥`` or ``￥`` stays the yuan (:data:`_SIGNS`), as
#: China writes it. The names that end in 元 (日元, 韩元, 港元) are matched before the yuan's 元.
_OTHER_SIGNS = {
    "jp¥": "JPY",
    "jp￥": "JPY",
    "yen": "JPY",
    "円": "JPY",
    "日元": "JPY",
    "日圆": "JPY",
    "£": "GBP",
    "英镑": "GBP",
    "€": "EUR",
    "euro": "EUR",
    "euros": "EUR",
    "欧元": "EUR",
    "₹": "INR",
    "₩": "KRW",
    "won": "KRW",
    "韩元": "KRW",
    "hk$": "HKD",
    "港元": "HKD",
    "港币": "HKD",
}
#: How an amount of yuan or dollars is written beside the number: the currency's signs, codes and
#: names (``5000美元``, ``120万元``, ``5000 人民币``). Matched longest first across both currencies, so
#: 美元 (US dollars) is read before the yuan's 元.
_SIGNS = {
    "cny": ("¥", "￥", "cny", "rmb", "元", "人民币"),
    "usd": ("$", "us$", "usd", "美元", "美金"),
}
#: Each sign with its currency, longest first.
_SIGNS_LONGEST_FIRST = sorted(
    ((sign, code) for code, signs in _SIGNS.items() for sign in signs),
    key=lambda pair: len(pair[0]),
    reverse=True,
)
#: Chinese units of count: 万 (10⁴), 亿 (10⁸); ``k``/``m`` as English writes thousands and millions.
_UNITS = {"万": 1e4, "亿": 1e8, "k": 1e3, "m": 1e6}
#: Units of a count as people write one (``1.28M`` samples, ``2B`` tokens, ``128万``): thousand,
#: million, billion, trillion (short scale, as English writes token counts), 万 (10⁴), 亿 (10⁸).
_COUNT_UNITS = {"k": 10**3, "m": 10**6, "b": 10**9, "t": 10**12, "万": 10**4, "亿": 10**8}
#: Digits of the largest count :func:`read_count` builds (10^24, above every count field's bound,
#: ``data.tokens`` at most 10^18); a larger one is returned as ±10^24 for the field to refuse.
_MOST_COUNT_DIGITS = 24
#: Two ways to write an amount of each currency, for the refusal.
_EXAMPLES = {"cny": ("1,200,000", "120万"), "usd": ("5,000", "5k"), "any": ("¥18.49", "$2.6")}
#: Two ways to write a budget for a year or more of work in either currency (``tco --budget``), for
#: its refusal: amounts of a budget's size, not of a price per hour, and neither starting with ``$``,
#: which a shell reads as a variable outside single quotes.
BUDGET_EXAMPLES = ("250000USD", "¥1200000")
#: The most times a saved plan may run in its month (the service's ``runs_per_month``): hourly
#: through a 31-day month, 24 × 31.
MAX_RUNS_PER_MONTH = 744

#: The most spot reclaims per instance-hour a simulation takes: one a minute. Published rates are
#: far below (AWS's Spot Instance Advisor bands top out at "> 20 %" of instances a month).
MAX_SPOT_RATE_PER_HOUR = 60.0
#: Read and write bandwidth of the disk beside the GPUs where gpuplan does not know it, GB/s: the
#: baseline of AWS's default block volume, gp3, 125 MiB/s = 125 × 2^20 B/s = 0.131072 GB/s, taken
#: as 0.131 (AWS, "Amazon EBS volume types", General Purpose SSD volumes: gp3 "baseline ... 125
#: MiB/s", provisioned up to 1,000 MiB/s; https://docs.aws.amazon.com/ebs/latest/userguide/
#: general-purpose.html, read 2026-12). ASSUMPTION, the conservative bound: a volume provisioned
#: faster or a local NVMe array (tens of GB/s) copies the dataset, writes checkpoints and re-reads an
#: uncached dataset sooner; unknown is never the best case (it had been 0.5 GB/s, four times gp3's
#: baseline, which no plan's disk was said to be provisioned for).
ASSUMED_DISK_GBPS = 0.131
#: The fastest weights read a replica's start is taken at: 1,000 GB/s, over any cloud volume or
#: local NVMe array (a gp3 volume's baseline is 0.131 GB/s; local NVMe arrays reach tens of GB/s).
MAX_STORAGE_GBPS = 1000.0
#: The slowest: 1 MB/s, far below any cloud volume (a smaller figure is a slip of the unit; 1e-300
#: GB/s printed a cold start of a 300-digit number of seconds).
MIN_STORAGE_GBPS = 0.001
#: The longest warning before a spot reclaim a simulation takes: an hour, thirty times the longest
#: any cloud gives (AWS: a two-minute interruption notice; Azure and Google Cloud: 30 seconds).
MAX_SPOT_NOTICE_S = 3600.0


def as_typed(text: str) -> str:
    """``text`` with the full-width forms a Chinese (or Japanese) input method types read as the
    ASCII ones they stand for (Unicode NFKC): ``１２ｈ`` → ``12h``, ``３２．５`` → ``32.5``,
    ``A100，L4`` → ``A100,L4``, the ideographic space as a space. For text that names a number, a
    duration or a list of names; never for a path or a name kept as written. Only the full-width
    block is read so: NFKC's other folds (``²`` → ``2``, ``ⅰ`` → ``i``) would pass a character no
    one types for a digit off as one."""
    return text.translate(_FULL_WIDTH)


#: U+FF01–U+FF5E, the full-width forms of ASCII's printable characters, and the ideographic space.
_FULL_WIDTH = {0xFF01 + i: 0x21 + i for i in range(0x5E)} | {0x3000: 0x20}


#: Commas that separate the names of a list: ASCII's, and the Chinese enumeration comma 、 (the
#: full-width ， is ASCII's once :func:`as_typed`).
_LIST_COMMAS = re.compile(r"[,、]")


def split_list(text: str) -> tuple[str, ...]:
    """The names of a comma list as people type one (``A100,L4``, ``A100，L4``, ``A100、L4``), each
    stripped, the empty ones left out; full-width letters and digits read as ASCII."""
    return tuple(s.strip() for s in _LIST_COMMAS.split(as_typed(text)) if s.strip())


#: Chinese numerals: the digits (两 is two, as in 两周) and the units ten and a hundred.
_CHINESE_DIGITS = {
    "零": 0,
    "一": 1,
    "二": 2,
    "两": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "七": 7,
    "八": 8,
    "九": 9,
}
_CHINESE_UNITS = {"十": 10, "百": 100}
_CHINESE_NUMBER = re.compile(f"[{''.join(_CHINESE_DIGITS)}{''.join(_CHINESE_UNITS)}]+")


def _chinese_number(text: str) -> int | None:
    """The whole number a run of Chinese numerals writes (``十二`` 12, ``二十`` 20, ``一百零五``
    105), or None where it is no number as written (``三三``, ``十百``)."""
    total, digit, last_unit = 0, None, 1000
    for ch in text:
        if ch in _CHINESE_UNITS:
            unit = _CHINESE_UNITS[ch]
            if unit >= last_unit or digit == 0:
                return None
            total += (1 if digit is None else digit) * unit
            digit, last_unit = None, unit
        elif digit is not None and not (digit == 0 and ch != "零"):
            return None  # two digits in a row: 三三
        else:
            digit = _CHINESE_DIGITS[ch]
    if digit == 0 and text != "零":
        return None  # a trailing 零
    return total + (digit or 0)


def with_digits(text: str) -> str:
    """``text`` with each number written in Chinese numerals (up to 百) in ASCII digits: ``三天`` →
    ``3天``, ``两周`` → ``2周``, ``十二小时`` → ``12小时``, ``一年`` → ``1年``; a run that is no number
    as written is left as it is (for the caller to refuse). For durations and terms, where a numeral
    is a count; not for names (``一汽``)."""

    def digits(m: re.Match[str]) -> str:
        n = _chinese_number(m.group(0))
        return m.group(0) if n is None else str(n)

    return _CHINESE_NUMBER.sub(digits, text)


def instances_for(gpus: float, per_instance: float) -> int:
    """Whole instances of ``per_instance`` GPUs that ``gpus`` GPUs take: at least one, a part
    instance bought whole (a 1-GPU run on an 8-GPU machine: 1; 16 GPUs of 8: 2)."""
    return max(1, math.ceil(gpus / per_instance - 1e-9))


def read_amount(value: object, currency: str, other: str) -> float:
    """An amount of ``currency`` (``cny``, ``usd``) as people write one: ``1200000``, ``1,200,000``,
    ``1_200_000``, ``120万``, ``1.2亿``, ``¥1,200,000``, ``1200000元``, ``$5k``; a number is taken as
    it is. An amount signed in the other currency is refused naming ``other`` (the option or field
    that takes it: ``--budget-cny``, ``budget_cny``). Its range and finiteness are the caller's to
    check (the command line's ``money_in``, a workload field's bounds).

    The refusal is pydantic's ``PydanticCustomError`` (``amount_parsing``, ``wrong_currency``), in
    the words of :data:`NOT_AN_AMOUNT` and :data:`WRONG_CURRENCY`: Typer and a workload file both
    validate with pydantic, and each translates those words."""
    from pydantic_core import PydanticCustomError  # lazily: most commands read no amount

    number, code = _read_signed(value, _EXAMPLES[currency])
    if code is not None and code != currency:
        raise PydanticCustomError(
            "wrong_currency", WRONG_CURRENCY, {"value": str(value).strip()[:40], "option": other}
        )
    return number


def read_money(value: object, examples: tuple[str, str] | None = None) -> tuple[float, str | None]:
    """An amount as :func:`read_amount` reads it, in whichever currency it is signed: the number and
    ``cny`` or ``usd``, or None where it names none (a bare ``18.49``: the caller decides what that
    means, or asks). For a figure either currency may be given in (a price per hour on the command
    line, where ``--currency`` sets only how the report shows money). ``examples``: the two ways of
    writing one the refusal gives (default: a price per hour's; :data:`BUDGET_EXAMPLES` for a
    budget)."""
    return _read_signed(value, examples or _EXAMPLES["any"])


def _read_signed(value: object, examples: tuple[str, str]) -> tuple[float, str | None]:
    from pydantic_core import PydanticCustomError

    if isinstance(value, float | int) and not isinstance(value, bool):
        return float(value), None
    given = str(value).strip()
    one, two = examples
    refused = {"value": given[:40], "one": one, "two": two}
    text = given.lower().replace(" ", "")
    if (code := _signed_other(text)) is not None:
        raise PydanticCustomError(
            "unsupported_currency", UNSUPPORTED_CURRENCY, {"value": given[:40], "code": code}
        )
    found: str | None = None
    for sign, code in _SIGNS_LONGEST_FIRST:
        if text.startswith(sign) or text.endswith(sign):
            if found is not None and found != code:  # "$5元": signed twice, each another currency
                raise PydanticCustomError("amount_parsing", NOT_AN_AMOUNT, refused)
            found = code
            text = text.removeprefix(sign).removesuffix(sign)
    scale = 1.0
    if text[-1:] in _UNITS:
        scale, text = _UNITS[text[-1]], text[:-1]
    ungrouped = _ungrouped(text)
    if ungrouped is None:
        raise PydanticCustomError("amount_parsing", NOT_AN_AMOUNT, refused)
    try:
        number = float(ungrouped)
    except ValueError:
        raise PydanticCustomError("amount_parsing", NOT_AN_AMOUNT, refused) from None
    return number * scale, found


def _signed_other(text: str) -> str | None:
    """The ISO code of the currency other than USD and CNY that ``text`` (an amount, lower case, no
    spaces) is signed in (``jp¥60000000``, ``6000万円``, ``60,000,000jpy``, ``€5k``), or None."""
    for sign in sorted(_OTHER_SIGNS, key=len, reverse=True):
        if text.startswith(sign) or text.endswith(sign):
            return _OTHER_SIGNS[sign]
    # a code beside the number itself (``jpy60000``, ``60,000jpy``, ``5keur``), not three letters of a
    # word (``cheap``)
    for code, beside, number_end in (
        (text[:3], text[3:4], "0123456789."),
        (text[-3:], text[-4:-3], "0123456789km万亿"),
    ):
        if len(text) > 3 and beside and beside in number_end and _other_code(code):
            return code.upper()
    return None


def _other_code(code: str) -> bool:
    """Whether ``code`` (lower case) is an ISO 4217 currency code other than USD and CNY, as
    pycountry's table holds them (a code written beside an amount, ``60,000,000 JPY``, or given as
    ``--currency``): refused as a currency gpuplan does not take. pycountry is read only for three
    letters that could be one."""
    if len(code) != 3 or not code.isascii() or not code.isalpha() or code in ("usd", "cny"):
        return False
    import pycountry  # lazy: an amount in dollars or yuan never needs it

    return pycountry.currencies.get(alpha_3=code.upper()) is not None


def other_currency(name: str) -> str | None:
    """The ISO code of the currency other than USD and CNY that ``name`` names whole (``yen``,
    ``JPY``, ``円``, ``日元``, ``EUR``, ``€``), or None: a currency gpuplan does not take, to be
    refused as such, not offered the nearest spelling of USD or CNY."""
    key = as_typed(name).strip().lower().replace(" ", "")
    if _other_code(key):
        return key.upper()
    return _OTHER_SIGNS.get(key)


def _ungrouped(text: str) -> str | None:
    """``text`` without its digit grouping (``1,200,000.5``, ``1_200_000``: ``1200000.5``); None
    where its commas do not group thousands (``1,20``)."""
    text = text.replace("_", "")
    if "," not in text:
        return text
    whole, dot, fraction = text.partition(".")
    groups = whole.split(",")
    if not (1 <= len(groups[0]) <= 3 and all(len(g) == 3 for g in groups[1:])):
        return None
    return "".join(groups) + (f".{fraction}" if dot else "")


#: A scale written as a word after the number (``100 billion``), the letter :func:`read_count`
#: takes for it: the refusal shows the count in the forms that are read.
_COUNT_WORDS = {"thousand": "K", "million": "M", "mn": "M", "billion": "B", "bn": "B", "trillion": "T"}
_WORDED_COUNT = re.compile(r"(?P<number>[0-9][0-9,_]*(?:\.[0-9]+)?)(?P<word>[a-z]+?)s?")


def _not_a_count(value: str, text: str) -> Phrase:
    """Why ``value`` (``text``: lower case, spaces dropped) is not a count, with forms that are:
    the same count in them where it names its scale in a word (``100 billion``: 100B or
    100,000,000,000), else one of each kind, billions included."""
    worded = _WORDED_COUNT.fullmatch(text)
    letter = _COUNT_WORDS.get(worded["word"]) if worded else None
    if worded and letter:
        digits = _ungrouped(worded["number"])
        count = Decimal(digits) * _COUNT_UNITS[letter.lower()] if digits else None
        if count is not None and count == count.to_integral_value():
            return Phrase(
                N_("{value!r} is not a count: write it as {short} or {whole}"),
                value=value,
                short=f"{digits}{letter}",
                whole=f"{int(count):,}",
            )
    return Phrase(
        N_("{value!r} is not a count: write it as 1281167, 1,281,167, 1.28M, 2B or 128万"), value=value
    )


def read_count(value: object) -> object:
    """A count as people write one, for a workload's count fields (``data.samples``,
    ``data.tokens``): ``1281167``, ``1,281,167``, ``1_281_167``, ``1.28M``, ``2B``, ``128万``,
    ``1.2亿``, as :func:`read_amount` reads money. Anything but text is returned as it is, for the
    field's own checks; text that is no count raises ValueError with a :class:`Phrase` naming the
    ways to write one.

    A count that is not whole (``1.2345K``: 1,234.5) raises ValueError with a :class:`Phrase`
    saying so: samples are not split, and rounding it silently would plan a data set the user did
    not write. Decimal arithmetic: ``1.1M`` is 1,100,000, not float's 1,100,000.0000000002."""
    if not isinstance(value, str):
        return value
    text = value.strip().lower().replace(" ", "")
    scale = 1
    if text[-1:] in _COUNT_UNITS:
        scale, text = _COUNT_UNITS[text[-1]], text[:-1]
    ungrouped = _ungrouped(text)
    try:
        given = Decimal(ungrouped) if ungrouped else None
    except ArithmeticError:  # InvalidOperation: "1.2.3"
        given = None
    if given is not None and given.is_finite() and given.adjusted() + len(str(scale)) > _MOST_COUNT_DIGITS:
        # Past every count field's bound: the field says so with the text as given, without
        # building an integer of a billion digits first.
        return -(10**_MOST_COUNT_DIGITS) if given < 0 else 10**_MOST_COUNT_DIGITS
    number = given * scale if given is not None else None
    if number is None or not number.is_finite():
        raise ValueError(_not_a_count(value, text))
    if number != number.to_integral_value():
        near = f"{max(1, round(number)):,}"
        if scale == 1 or number.adjusted() < -6:  # "2.5"; or a number too small to write out
            raise ValueError(
                Phrase(
                    N_("{value} is not a whole count: write the count itself, e.g. {whole}"),
                    value=value.strip(),
                    whole=near,
                )
            )
        raise ValueError(
            Phrase(
                N_("{value} is {number}, not a whole count: write the count itself, e.g. {whole}"),
                value=value.strip(),
                number=f"{number:,f}".rstrip("0"),
                whole=near,
            )
        )
    return int(number)


#: The least a measured speed-up or throughput may be (``gpuplan estimate --measured-speedup`` and
#: ``--measured-throughput``, and the service's estimate request): a positive figure; 0 is no
#: measurement.
MIN_MEASURED = 0.001
#: The most a measured throughput may be, tokens or samples a second.
MAX_MEASURED_THROUGHPUT = 1e12
