"""The shared words of gpuplan: every closed list of names, as string enums with one ``cast()``.

A name list is defined here once and used by the pydantic models, the catalog, the planner and
deploy. ``Choice.cast`` turns what a user wrote (any case; ``-``, ``_`` and spaces alike) into a
member, or raises :class:`~gpuplan.errors.UnknownChoiceError` with "did you mean …". Members are
``str`` subclasses, so ``PricingModel.SPOT == "spot"`` and a table keyed by the enum is looked up by
the plain string too. A pricing model's billing rule and its names (translated where shown) are
:data:`PRICING_RULES`, beside the enum; a price confidence's name is :data:`CONFIDENCE_NAMES`.

A list known only when the program runs, because a layer above this one owns it, is a :class:`Names`
with the same ``cast``. The providers are one: each provider's module
(``catalog/providers/<name>.py``) declares its code, and ``gpuplan.catalog.PROVIDERS`` casts against
the registry's codes — so adding a provider touches no table here.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from enum import Enum
from types import MappingProxyType
from typing import Any, NoReturn, Protocol, TypeVar, overload

from gpuplan.errors import InputError, Phrase, UnknownChoiceError, closest
from gpuplan.i18n import N_, _
from gpuplan.i18n.phrases import listed
from gpuplan.units import HOURS_PER_MONTH, as_typed, other_currency, with_digits

__all__ = [
    "COMMITTED_PRICING",
    "CONFIDENCE_NAMES",
    "HOURLY_PRICING",
    "PRICING_RULES",
    "ActivationCheckpointing",
    "AdapterDtype",
    "AttentionImpl",
    "BaseQuantization",
    "CastsToStr",
    "Choice",
    "Commitment",
    "Confidence",
    "Currency",
    "DataTransfer",
    "FusedKernel",
    "GpuLink",
    "HostRule",
    "InputPipelineKind",
    "LossKind",
    "MemoryFormat",
    "MemoryVerdict",
    "Names",
    "Objective",
    "OptimizerName",
    "Parallelism",
    "Precision",
    "PriceUnit",
    "PricingModel",
    "PricingRule",
    "QuantizationLibrary",
    "ServingEngine",
    "StackLevel",
    "Task",
    "TensorParallelPlan",
    "Upfront",
    "confidence_name",
    "missing_members",
    "pricing_name",
    "pydantic_cast",
    "sharing_name",
]

C = TypeVar("C", bound="Choice")

_SEPARATORS = re.compile(r"[\s_-]+")


def _key(text: str) -> str:
    """What two spellings of one name share: lower case, runs of ``-``, ``_`` and spaces as ``_``."""
    return _SEPARATORS.sub("_", text.strip().lower())


class Choice(str, Enum):
    """A closed list of names users write. Subclasses may override :meth:`kind`, :meth:`aliases`
    (other spellings that are accepted) and :meth:`hints` (names that are refused with a pointer)."""

    def __str__(self) -> str:
        return str(self.value)

    @classmethod
    def kind(cls) -> str:
        """What one member is called in messages (``pricing model``)."""
        return re.sub(r"(?<!^)(?=[A-Z])", " ", cls.__name__).lower()

    @classmethod
    def aliases(cls) -> Mapping[str, str]:
        """Other accepted spellings (keys as :func:`_key` writes them) -> member value."""
        return {}

    @classmethod
    def hints(cls) -> Mapping[str, str | tuple[str, ...]]:
        """Names that look plausible but are not accepted -> the member (or members, likeliest
        first) the user probably means."""
        return {}

    @classmethod
    def hint_notes(cls) -> Mapping[str, str]:
        """A refused name of :meth:`hints` -> a catalog message saying how its suggestions differ."""
        return {}

    @classmethod
    def values(cls) -> tuple[str, ...]:
        """The members' values, in definition order."""
        return tuple(m.value for m in cls)

    @classmethod
    def cast(cls: type[C], value: object) -> C:
        """The member ``value`` names; :class:`UnknownChoiceError` with "did you mean" otherwise."""
        if isinstance(value, cls):
            return value
        # A member's exact value names that member (aliases never shadow one): the common case,
        # taken without building the spelling table (the catalog casts ~40,000 values on seeding).
        members = cls._value2member_map_
        exact = (members.get(value) or members.get(value.lower())) if isinstance(value, str) else None
        if exact is not None:
            return exact  # type: ignore[return-value]
        found = _lookup(value, cls.values(), cls.aliases())
        if found is None:
            _refuse(value, cls.kind(), cls.shown(), cls.hints(), cls.hint_notes(), near=cls._near(value))
        return cls(found)

    @classmethod
    def _near(cls, value: object) -> list[str]:
        """The shown names nearest to ``value``, also by the other spellings :meth:`aliases` takes:
        ``人民b`` is near ``人民币``, so CNY is suggested (the codes alone suggested nothing)."""
        shown = dict(zip(cls.values(), cls.shown(), strict=False))
        aliases = cls.aliases()
        near = closest(str(value), [*shown, *aliases])
        names = [shown.get(aliases.get(n, n), n) for n in near]
        return list(dict.fromkeys(n for n in names if n in shown.values()))

    @classmethod
    def shown(cls) -> tuple[str, ...]:
        """The names messages offer ("did you mean", "use one of"); the values unless overridden."""
        return cls.values()


def _lookup(value: object, values: tuple[str, ...], aliases: Mapping[str, str]) -> str | None:
    """The value among ``values`` (or ``aliases``) that ``value`` spells, or None."""
    key = _key(str(value))
    by_key = {_key(v): v for v in values}
    for alias, target in aliases.items():
        by_key.setdefault(_key(alias), target)
    return by_key.get(key)


def _refuse(
    value: object,
    kind: str,
    shown: tuple[str, ...],
    hints: Mapping[str, str | tuple[str, ...]],
    notes: Mapping[str, str] | None = None,
    *,
    near: list[str] | None = None,
) -> NoReturn:
    key = _key(str(value))
    hint = hints.get(key)
    suggestions = [hint] if isinstance(hint, str) else list(hint or near or ())
    note = (notes or {}).get(key, "")
    raise UnknownChoiceError(kind, str(value), shown, hint=note, suggestions=suggestions or None)


class CastsToStr(Protocol):
    """A list of names that casts to plain strings (:class:`Names`, ``gpuplan.catalog.PROVIDERS``)."""

    def cast(self, value: object, /) -> str: ...


@dataclass(frozen=True)
class Names:
    """A closed list of names known only at run time, cast like a :class:`Choice`: the layer that
    owns the list builds it (``gpuplan.catalog.PROVIDERS``: the provider registry's codes). Members are
    plain strings."""

    kind: str
    """What one name is called in messages (``provider``)."""
    values: tuple[str, ...]
    """The names, in the owner's order."""
    aliases: Mapping[str, str] = field(default_factory=dict)
    """Other accepted spellings -> the name they stand for."""
    cutoff: float = 0.5
    """How near (:func:`gpuplan.errors.closest`) a name must be to be suggested."""
    known_hint: str = ""
    """A catalog message with ``{names}``: where no name is near enough to suggest, the refusal
    lists them all with it (a user who named a provider the registry lacks learns which it has:
    a list too long for the error's own "use one of" had been left out); "" for none."""

    def cast(self, value: object) -> str:
        """The name ``value`` spells; :class:`UnknownChoiceError` with "did you mean" otherwise."""
        if isinstance(value, str) and value in self.values:
            return value  # a name as written (the catalog's own rows: thousands per query)
        found = _lookup(value, self.values, self.aliases)
        if found is None:
            # Near an alias counts too ("amzon" -> aws), suggested by the name it stands for.
            owner = {v: v for v in self.values} | dict(self.aliases)
            hits = closest(str(value), owner, n=6, cutoff=self.cutoff)
            near = list(dict.fromkeys(owner[h] for h in hits))[:3]
            hint: str | Phrase = ""
            if self.known_hint and not near:
                hint = Phrase(self.known_hint, names=listed(sorted(self.values)))
            raise UnknownChoiceError(
                self.kind, str(value), self.values, hint=hint, suggestions=near or None, cutoff=self.cutoff
            )
        return found

    def __iter__(self) -> Iterator[str]:
        return iter(self.values)

    def __contains__(self, value: object) -> bool:
        return value in self.values

    def __len__(self) -> int:
        return len(self.values)


@overload
def pydantic_cast(names: type[C]) -> Callable[[object], C]: ...
@overload
def pydantic_cast(names: CastsToStr) -> Callable[[object], str]: ...
def pydantic_cast(names: type[Choice] | CastsToStr) -> Callable[[object], Choice | str]:
    """``names.cast`` (a :class:`Choice` or :class:`Names`) for a pydantic ``BeforeValidator``: the
    error becomes a ValueError, so pydantic reports it with the field's path (``precision: unknown
    precision 'bf61'; did you mean 'bf16'?``)."""

    def cast(value: object) -> Choice | str:
        try:
            return names.cast(value)
        except UnknownChoiceError as e:
            # The error itself as the argument: str() is its message, and the workload's one-line
            # error can still write it in the user's language.
            raise ValueError(e) from None

    return cast


def missing_members(cls: type[Choice], table: Mapping[Any, Any]) -> list[str]:
    """Members of ``cls`` that ``table`` has no entry for (for the "every table covers every
    member" tests)."""
    return [m.value for m in cls if m not in table]


# --- catalog -----------------------------------------------------------------------------------


class PricingModel(Choice):
    """How an offer is paid for (DESIGN.md "Data")."""

    ON_DEMAND = "on_demand"
    SPOT = "spot"
    MONTHLY = "monthly"
    """A monthly subscription (Chinese clouds' 包月), billed per started month."""
    RESERVED_1Y = "reserved_1y"
    RESERVED_3Y = "reserved_3y"

    @classmethod
    def kind(cls) -> str:
        return "pricing model"

    @classmethod
    def aliases(cls) -> Mapping[str, str]:
        # The Chinese names gpuplan's own zh tables print (按量付费, 包月, 抢占式, 1 年预留), and the
        # clouds' own: 包年包月 (Alibaba, Tencent, Huawei: a subscription, billed per month at the
        # least), 竞价实例 (Tencent's and Volcano Engine's spot), 抢占式实例 (Alibaba's; 抢占 for short).
        return {
            "按量付费": "on_demand",
            "按量": "on_demand",
            "包月": "monthly",
            "包年包月": "monthly",
            "抢占": "spot",
            "抢占式": "spot",
            "抢占实例": "spot",
            "抢占式实例": "spot",
            "竞价": "spot",
            "竞价实例": "spot",
            "1 年预留": "reserved_1y",
            "3 年预留": "reserved_3y",
        }

    @classmethod
    def hints(cls) -> Mapping[str, str]:
        # "yearly" was once accepted by the workload spec and then failed in the planner.
        return {"yearly": "reserved_1y", "annual": "reserved_1y", "1y": "reserved_1y", "3y": "reserved_3y"}


@dataclass(frozen=True, kw_only=True)
class PricingRule:
    """How a pricing model is published and billed."""

    units: frozenset[str]
    """Price units it may be published in (``hour``, ``month``); the catalog's gates check them."""
    term_hours: float | None
    """Length of the commitment, hours (8760 for one year), billed whole; None = no term."""
    committed: bool
    """Binds the user beyond the job (monthly subscriptions, reservations)."""
    name: str
    """How tables name it, marked for translation (translated where shown): the code itself in
    English (``on_demand``), so that the English tables keep the word users type."""
    label: str
    """The model in words, marked for translation (``reserved 1 year``; the tco report's legend)."""

    @property
    def term_months(self) -> int:
        """Months the user commits to: the term in billing months (730 h), one for a monthly
        subscription, none for hourly models."""
        if not self.committed:
            return 0
        return round(self.term_hours / HOURS_PER_MONTH) if self.term_hours else 1


#: The billing rule and the names of every pricing model, in one place (``tests/test_vocab.py``
#: checks that each has one). Monthly prices are billed per started month (``units`` month, 730 h
#: each: see units.py).
PRICING_RULES: Mapping[str, PricingRule] = {
    PricingModel.ON_DEMAND: PricingRule(
        units=frozenset({"hour"}),
        term_hours=None,
        committed=False,
        name=N_("on_demand"),
        label=N_("on demand"),
    ),
    PricingModel.SPOT: PricingRule(
        units=frozenset({"hour"}), term_hours=None, committed=False, name=N_("spot"), label=N_("spot")
    ),
    PricingModel.MONTHLY: PricingRule(
        units=frozenset({"month"}),
        term_hours=None,
        committed=True,
        name=N_("monthly"),
        label=N_("monthly subscription"),
    ),
    PricingModel.RESERVED_1Y: PricingRule(
        units=frozenset({"hour", "month"}),
        term_hours=8760.0,
        committed=True,
        name=N_("reserved_1y"),
        label=N_("reserved 1 year"),
    ),
    PricingModel.RESERVED_3Y: PricingRule(
        units=frozenset({"hour", "month"}),
        term_hours=3 * 8760.0,
        committed=True,
        name=N_("reserved_3y"),
        label=N_("reserved 3 years"),
    ),
}


def pricing_name(code: str) -> str:
    """How tables name a pricing model, in the user's language (``on_demand`` → ``按量付费``); an
    unknown code as it is."""
    rule = PRICING_RULES.get(code)
    return _(rule.name) if rule else code


def pricing_said(code: str) -> Phrase | str:
    """A pricing model named in a line written later in the reader's language (a refusal's field):
    its table name, the code itself in English (``reserved_1y``), 1 年预留 in Chinese, where a
    Chinese refusal had named the code; an unknown code as it is."""
    rule = PRICING_RULES.get(code)
    return Phrase(rule.name) if rule else code


#: The ways ``simulate share`` shares a GPU, each with the name its tables and lines give it: the
#: identifier in English, 整卡、MIG、时间片、MPS in Chinese (where a Chinese table had shown
#: ``time-slice``). The identifier stays where it is typed (``--sharing``) and in JSON.
_SHARING_NAMES = {
    # TRANSLATORS: a way services share a GPU: each has whole GPUs of its own; Chinese: 整卡
    "whole": N_("whole"),
    # TRANSLATORS: a way services share a GPU: NVIDIA Multi-Instance GPU slices; Chinese: MIG
    "mig": N_("mig"),
    # TRANSLATORS: a way services share a GPU: they take turns on it (time-slicing); Chinese: 时间片
    "time-slice": N_("time-slice"),
    # TRANSLATORS: a way services share a GPU: NVIDIA's Multi-Process Service; Chinese: MPS
    "mps": N_("mps"),
}
#: An MPS share of a GPU as the packing names it (``mps-1/3``).
_MPS_SHARE = re.compile(r"mps-(?P<share>1/[0-9]+)")
# TRANSLATORS: a third of a GPU under MPS in the share table ("mps-1/3"); Chinese: "MPS {share}"
_MPS_SHARE_NAME = N_("mps-{share}")


def sharing_name(code: str) -> str:
    """A way of sharing a GPU, or a service's slice of one (``time-slice``, ``mps-1/3``), as the
    reader reads it: the code in English, 时间片 or MPS 1/3 in Chinese; a MIG profile (``1g.10gb``)
    or an unknown code as it is."""
    if code in _SHARING_NAMES:
        return _(_SHARING_NAMES[code])
    mps = _MPS_SHARE.fullmatch(code)
    return _(_MPS_SHARE_NAME).format(share=mps["share"]) if mps else code


#: Pricing models that bind the user beyond the job, and those bought by the hour.
HOURLY_PRICING: tuple[PricingModel, ...] = tuple(
    PricingModel(p) for p, rule in PRICING_RULES.items() if not rule.committed
)
COMMITTED_PRICING: tuple[PricingModel, ...] = tuple(
    PricingModel(p) for p, rule in PRICING_RULES.items() if rule.committed
)


#: A term written out: a count of months or years ("18 months", "2 yr", "6个月", "2年").
_TERM = re.compile(r"([0-9]{1,3})\s*(months?|mos?|m|years?|yrs?|y|个月|月|年)")


class Commitment(Choice):
    """The longest commitment a user accepts (``constraints.commitment``, ``--commitment``)."""

    NONE = "none"
    MONTHLY = "monthly"
    ONE_YEAR = "1y"
    THREE_YEARS = "3y"

    @classmethod
    def aliases(cls) -> Mapping[str, str]:
        # Other words for a term ("12 months", "3年", "三年" are read by cast(): a count of months or
        # years).
        return {
            "one year": "1y",
            "three years": "3y",
            "month": "monthly",
            "包月": "monthly",
            "包年包月": "monthly",
        }

    @classmethod
    def cast(cls, value: object) -> Commitment:
        # A term written out: "12 months", "3 years", "1个月" are the terms they name; another length
        # ("18 months", "2y") is no term sold, and is refused pointing to the longest term no longer
        # than it ("18 months" had been answered "did you mean 'monthly'?", a monthly subscription)
        if isinstance(value, str) and not isinstance(value, cls):
            m = _TERM.fullmatch(with_digits(as_typed(value)).strip().lower())  # 一年, ３年: 1年, 3年
            if m is not None:
                n = int(m.group(1)) * (12 if m.group(2).startswith(("y", "年")) else 1)
                best = max((c for c in cls if c.months <= n), key=lambda c: c.months)
                if best.months == n:
                    return best
                _refuse(value, cls.kind(), cls.shown(), {_key(value): best.value})
        return super().cast(value)

    @property
    def months(self) -> int:
        """The longest term it accepts, months: a pricing model is allowed when its
        :attr:`PricingRule.term_months` is no longer."""
        return {"none": 0, "monthly": 1, "1y": 12, "3y": 36}[self.value]


class Upfront(Choice):
    """How much of a reservation is paid upfront (``constraints.upfront``, ``--upfront``): the
    effective rate a reserved price is costed at (``gpuplan.catalog.upfront``)."""

    NONE = "none"
    PARTIAL = "partial"
    ALL = "all"

    @classmethod
    def kind(cls) -> str:
        return "upfront payment"

    @classmethod
    def aliases(cls) -> Mapping[str, str]:
        # AWS's own names of the payment options, and the Chinese ones (全预付, 部分预付, 无预付).
        return {
            "no upfront": "none",
            "no": "none",
            "partial upfront": "partial",
            "all upfront": "all",
            "full": "all",
            "全预付": "all",
            "全部预付": "all",
            "部分预付": "partial",
            "无预付": "none",
            "不预付": "none",
        }


class HostRule(Choice):
    """Which hosts a plan may run on (``constraints.hosts``, ``--hosts``): ``any`` (the default) or
    ``provider``, only machines a provider runs in its own or vetted data centres (a cloud VM, bare
    metal, a vetted data centre, another cloud's machine resold: ``plan/hosts.py``); a community
    host, and a host whose kind its provider does not state, are then left out."""

    PROVIDER = "provider"
    ANY = "any"

    @classmethod
    def aliases(cls) -> Mapping[str, str]:
        return {"provider run": "provider", "provider only": "provider", "all": "any"}


class GpuLink(Choice):
    """A GPU-to-GPU link inside a node a plan may require (``constraints.interconnect``,
    ``--interconnect``): an offer qualifies when its link names it (``NVLink/NVSwitch`` has both)."""

    NVLINK = "nvlink"
    NVSWITCH = "nvswitch"
    PCIE = "pcie"
    INFINITY_FABRIC = "infinity fabric"

    @classmethod
    def kind(cls) -> str:
        return "GPU link"

    @classmethod
    def aliases(cls) -> Mapping[str, str]:
        return {"xgmi": "infinity fabric", "nv_link": "nvlink", "pci_e": "pcie", "pci": "pcie"}

    @classmethod
    def cast(cls, value: object) -> GpuLink:
        if _key(str(value)) in _NETWORKS:
            raise InputError.worded(
                N_("{name!r} is a network between nodes, not a GPU link inside one: {known}"),
                name=str(value)[:40],
                known=listed(cls.values()),
            )
        return super().cast(value)


#: Networks people write where a GPU link is asked.
_NETWORKS = frozenset({"infiniband", "ib", "efa", "roce", "rdma", "ethernet", "tcp"})


class Currency(Choice):
    """A currency prices are published in. Values are lower case for ``cast``; :attr:`code` is ISO."""

    USD = "usd"
    CNY = "cny"

    @classmethod
    def aliases(cls) -> Mapping[str, str]:
        # How people write them, in English and Chinese (--currency yuan, --currency 人民币).
        return {
            "rmb": "cny",
            "yuan": "cny",
            "renminbi": "cny",
            "人民币": "cny",
            "元": "cny",
            "美元": "usd",
            "美金": "usd",
        }

    @classmethod
    def shown(cls) -> tuple[str, ...]:
        return tuple(m.code for m in cls)

    @classmethod
    def cast(cls, value: object) -> Currency:
        """The currency ``value`` names; a currency gpuplan does not take (``yen``, ``JPY``, ``円``,
        ``EUR``) refused as such, where "did you mean 'CNY'" had offered the yuan for the yen (a
        misspelt code, ``CYN``, is still asked "did you mean")."""
        try:
            return super().cast(value)
        except UnknownChoiceError as e:
            if not isinstance(value, str) or (code := other_currency(value)) is None:
                raise
            raise _not_priced_in(e, value, code) from None

    @property
    def code(self) -> str:
        """ISO 4217 code, upper case (``USD``)."""
        return self.value.upper()


#: A currency gpuplan does not take, named as its ISO code, and as another name of it.
_NOT_PRICED_IN = N_(
    "{code} is not a currency gpuplan prices in (the catalog has no dated {code} rate): use USD or CNY"
)
_NOT_PRICED_IN_NAMED = N_(
    "{name!r} is {code}, not a currency gpuplan prices in (the catalog has no dated {code} rate): use "
    "USD or CNY"
)


def not_priced_in(name: str, code: str) -> tuple[str, dict[str, str]]:
    """The words (template, fields) that refuse ``name`` as ``code``, a currency gpuplan does not
    take: the code alone where ``name`` is it ("EUR is not a currency …"), else both ("'yen' is
    JPY, not …"). The one wording of ``--currency``, a price file's row and the service's field."""
    if name.strip().upper() == code:
        return _NOT_PRICED_IN, {"code": code}
    return _NOT_PRICED_IN_NAMED, {"name": name, "code": code}


def _not_priced_in(error: UnknownChoiceError, name: str, code: str) -> UnknownChoiceError:
    """``error`` (the refusal of ``name`` as a currency) reworded: ``name`` is ``code``, which
    gpuplan does not take. Still an :class:`UnknownChoiceError`, as the callers that catch one
    (a price file's row, the service's ``currency``) expect."""
    template, fields = not_priced_in(name, code)
    error.args = (template.format(**fields),)
    error.template, error.fields, error.suggestions = template, MappingProxyType(fields), []
    return error


class PriceUnit(Choice):
    """What one published amount pays for."""

    HOUR = "hour"
    MONTH = "month"


#: A price's currency and unit as a sentence says them, marked for translation: the codes themselves
#: in English ("32.5 USD/hour"), the reader's words in Chinese (32.5 美元/小时).
_PRICE_WORDS: Mapping[str, str] = {
    "USD": N_("USD"),
    "CNY": N_("CNY"),
    "hour": N_("hour"),
    "month": N_("month"),
}


def price_words(currency: str, unit: str) -> dict[str, Phrase | str]:
    """The ``currency`` and ``unit`` fields of a line that says a price ("{price} {currency}/{unit}"),
    each written in the reader's language with the line; a currency or unit gpuplan does not know
    (a price file's typo) as it was written."""
    money, per = _PRICE_WORDS.get(currency.strip().upper()), _PRICE_WORDS.get(unit.strip().lower())
    return {"currency": Phrase(money) if money else currency, "unit": Phrase(per) if per else unit}


class Confidence(Choice):
    """How far a figure can be trusted: ``high`` (the provider's own list or API), ``secondary``
    (a dated compilation of those lists), ``low`` (marketing-grade tables, undated or suspect)."""

    HIGH = "high"
    SECONDARY = "secondary"
    LOW = "low"


#: How reports and pages name each confidence, marked for translation (translated where shown): the
#: code itself in English, as the JSON and the API keep it (``tests/test_vocab.py`` checks that each
#: has one).
CONFIDENCE_NAMES: Mapping[str, str] = {
    Confidence.HIGH: N_("high"),
    Confidence.SECONDARY: N_("secondary"),
    Confidence.LOW: N_("low"),
}


def confidence_name(code: str) -> str:
    """How reports name a price's confidence, in the user's language (``secondary`` → ``转引来源``);
    an unknown code as it is."""
    name = CONFIDENCE_NAMES.get(code)
    return _(name) if name else code


# --- workload ----------------------------------------------------------------------------------


class Task(Choice):
    """What the job does with the model."""

    TRAIN = "train"
    FINETUNE = "finetune"
    INFER = "infer"


class Precision(Choice):
    """The numerics of a step: ``amp-*`` keeps fp32 weights under autocast; ``bf16`` is all-bf16;
    ``fp16-master`` keeps fp16 weights and gradients and an fp32 master copy in the optimizer;
    ``bf16-master`` bf16 weights, fp32 gradients and an fp32 master copy."""

    FP32 = "fp32"
    TF32 = "tf32"
    AMP_FP16 = "amp-fp16"
    AMP_BF16 = "amp-bf16"
    BF16 = "bf16"
    FP8 = "fp8"
    FP16_MASTER = "fp16-master"
    """fp16 weights and gradients (gradients reduced in fp16), an fp32 master copy of the weights
    and fp32 optimizer state: Megatron-LM ``--fp16``, DeepSpeed ``fp16: {enabled: true}``, apex
    amp ``O2``."""
    BF16_MASTER = "bf16-master"
    """bf16 weights, gradients accumulated into a persistent fp32 buffer (and reduced in fp32), an
    fp32 master copy of the weights and fp32 optimizer state: Megatron-LM ``--bf16``, which forces
    ``accumulate_allreduce_grads_in_fp32`` on (megatron/training/arguments.py, core_v0.6.0)."""

    @classmethod
    def aliases(cls) -> Mapping[str, str]:
        # torch's dtype name of bf16 (torch.bfloat16), all-bf16 weights as bf16 itself
        return {"bfloat16": "bf16"}

    @classmethod
    def hints(cls) -> Mapping[str, str | tuple[str, ...]]:
        # "fp16" and torch's names of it ("float16", "half") to serve are fp16 weights,
        # fp16-master's (the workload loader takes them so for task: infer:
        # :data:`SERVING_PRECISION_ALIASES`); to train they name no one method: the four are offered.
        to_train = ("amp-fp16", "amp-bf16", "fp16-master", "bf16")
        return dict.fromkeys(SERVING_PRECISION_ALIASES, to_train)

    @classmethod
    def hint_notes(cls) -> Mapping[str, str]:
        to_train = N_(
            "fp16 (float16, half) is taken for inference only (fp16 weights, as fp16-master); to "
            "train, name the method: amp-fp16 or amp-bf16 (fp32 weights under torch.autocast), "
            "fp16-master (fp16 weights with an fp32 master copy, as Megatron-LM --fp16 and "
            "DeepSpeed's fp16 train) or bf16 (all-bf16 weights and state)"
        )
        return dict.fromkeys(SERVING_PRECISION_ALIASES, to_train)

    @property
    def master_weights(self) -> bool:
        """Whether the optimizer keeps an fp32 master copy of 16-bit model weights."""
        return self in (Precision.FP16_MASTER, Precision.BF16_MASTER)

    @property
    def fp32_main_grads(self) -> bool:
        """Whether gradients accumulate into a persistent fp32 buffer, reduced in fp32."""
        return self is Precision.BF16_MASTER

    @property
    def sixteen_bit_weights(self) -> bool:
        """Whether the model's own weights are 16-bit (``bf16``, ``fp16-master``, ``bf16-master``);
        the others keep fp32 weights (``amp-*`` and ``fp8`` make 16-bit copies per op)."""
        return self in (Precision.BF16, Precision.FP16_MASTER, Precision.BF16_MASTER)

    @property
    def checkpoint_contents(self) -> str:
        """What one training checkpoint holds at this precision, in words: the trainable weights
        as the model keeps them, the optimizer state as the optimizer keeps it (PyTorch's AdamW
        keeps ``exp_avg`` and ``exp_avg_sq`` in the parameter's dtype; a master copy is the
        optimizer's), and the buffers."""
        if self is Precision.BF16:
            return _("bf16 trainable weights + optimizer state in bf16 + buffers")
        if self.master_weights:
            return _("16-bit trainable weights + optimizer state with its fp32 master copy + buffers")
        return _("fp32 trainable weights + optimizer state + buffers")


#: Precisions a workload of ``task: infer`` may name that training may not (:meth:`Precision.hints`
#: says why there), by key (:func:`_key`), and the member each is: a served model has no optimizer,
#: so fp16-master's master copy is never made and ``fp16`` (plain fp16 weights, ``model.half()``;
#: torch calls the dtype ``float16`` or ``half``) is all that is left of it.
SERVING_PRECISION_ALIASES: Mapping[str, Precision] = MappingProxyType(
    dict.fromkeys(("fp16", "float16", "half"), Precision.FP16_MASTER)
)


def serving_precision(value: object) -> Precision | None:
    """The member an inference workload's ``precision: value`` names by
    :data:`SERVING_PRECISION_ALIASES` (``fp16``, ``float16``, ``half``: fp16-master); None for any
    other value."""
    return SERVING_PRECISION_ALIASES.get(_key(value)) if isinstance(value, str) else None


class OptimizerName(Choice):
    """The optimizers a workload may name."""

    SGD = "sgd"
    ADAM = "adam"
    ADAMW = "adamw"
    ADAMW_FUSED = "adamw-fused"
    ADAFACTOR = "adafactor"
    ADAMW_8BIT = "adamw-8bit"
    """bitsandbytes ``AdamW8bit``: both moments block-wise quantised to 8 bits."""
    PAGED_ADAMW_8BIT = "paged-adamw-8bit"
    """bitsandbytes ``PagedAdamW8bit``: the same state in CUDA managed memory (spills to host)."""

    @classmethod
    def kind(cls) -> str:
        return "optimizer"

    @classmethod
    def aliases(cls) -> Mapping[str, str]:
        # bitsandbytes' own class names, as torchtune configs and HF ``optim=`` spell them.
        return {
            "adamw8bit": "adamw-8bit",
            "adamw_bnb_8bit": "adamw-8bit",
            "pagedadamw8bit": "paged-adamw-8bit",
            "paged_adamw_8bit": "paged-adamw-8bit",
        }

    @property
    def paged(self) -> bool:
        """Whether the optimizer keeps its state in CUDA managed memory."""
        return self is OptimizerName.PAGED_ADAMW_8BIT


class BaseQuantization(Choice):
    """How the frozen base's linear-layer weights of a LoRA fine-tune are stored (bitsandbytes, as
    Hugging Face PEFT/TRL load them with ``BitsAndBytesConfig``; torchtune's QLoRA keeps NF4)."""

    NONE = "none"
    """As the workload's precision says (no quantization)."""
    NF4 = "nf4"
    """4-bit NormalFloat in blocks of 64, dequantized to 16 bits for each matmul (QLoRA)."""
    INT8 = "int8"
    """LLM.int8(): 8-bit weights with one scale per output row."""

    @classmethod
    def hints(cls) -> Mapping[str, str | tuple[str, ...]]:
        # A 4-bit base is nf4 here (bitsandbytes' fp4 is not modelled: nf4 is what QLoRA loads), an
        # 8-bit one int8: "4bit" is one letter nearer "int8" than "nf4", which a plain match offered.
        four, eight = ("nf4",), ("int8",)
        names = {"4bit": four, "4_bit": four, "int4": four, "q4": four, "fp4": four, "bnb4": four}
        return {**names, "8bit": eight, "8_bit": eight, "q8": eight, "bnb8": eight}

    @classmethod
    def hint_notes(cls) -> Mapping[str, str]:
        note = N_("nf4 stores the base in 4 bits a weight; int8 in 8, about twice nf4's memory")
        return dict.fromkeys(cls.hints(), note)


class QuantizationLibrary(Choice):
    """Whose 4-bit matmul runs a quantized base's layers: what it keeps for backward differs."""

    BITSANDBYTES = "bitsandbytes"
    """bitsandbytes ``Linear4bit`` (``MatMul4Bit``; Hugging Face PEFT/TRL, Lightning Fabric, litgpt)
    as released since 0.43.2 (2024-07-23), what ``pip install bitsandbytes`` installs: keeps the
    quantized weight only (``ctx.tensors = (None, B)``: "fix QLoRA mem bug: delete useless buffered
    activation", https://github.com/bitsandbytes-foundation/bitsandbytes/pull/1270, merged
    2024-07-16, read 2026-12-06) and dequantizes into the dtype the weight was quantized from, its
    own since 0.43.0, before the cast to the input's (through 0.50.1, in backward; 0.50's forward
    dequantizes straight into the input's dtype)."""
    BITSANDBYTES_0_42 = "bitsandbytes-0.42"
    """bitsandbytes 0.42 (January 2024; litgpt's ``all`` extra pinned 0.42.0): ``MatMul4Bit`` also
    keeps each layer's input for backward (``ctx.tensors = (A, B)``, although backward reads only
    ``B``; 0.43.0 and 0.43.1 kept it too) and ``Params4bit.cuda`` quantizes a ``torch.half`` copy,
    so the weight is dequantized through fp16 (``bitsandbytes/autograd/_functions.py`` and
    ``bitsandbytes/nn/modules.py`` at tag 0.42.0)."""
    TORCHAO = "torchao"
    """torchao's ``NF4Tensor`` (``LinearNF4``; torchtune's ``qlora_*`` models): keeps the quantized
    weight only."""


class AdapterDtype(Choice):
    """The dtype LoRA adapters, their gradients and their optimizer state are kept in."""

    FP32 = "fp32"
    """fp32 whatever the base's dtype: Hugging Face PEFT's ``get_peft_model`` upcasts bf16 and fp16
    adapters to fp32 by default (``autocast_adapter_dtype=True``: "this will only cast adapter weights
    using float16 or bfloat16 to float32, as this is typically required for stable training",
    huggingface/peft ``src/peft/mapping_func.py``, read 2026-12-04)."""
    MODEL = "model"
    """The model's own weight dtype as ``precision`` sets it (bf16 under ``precision: bf16``, fp32
    under ``amp-*``): torchtune builds the model, adapters included, under
    ``training.set_default_dtype(dtype)`` (pytorch/torchtune@30b8519e
    ``recipes/lora_finetune_single_device.py`` ``_setup_model``); litgpt builds it inside Lightning
    Fabric's ``init_module()``, which sets the precision's default dtype (Lightning-AI/litgpt@03ffc551
    ``litgpt/finetune/lora.py``), read 2026-12-04."""

    @classmethod
    def kind(cls) -> str:
        return "adapter dtype"

    @classmethod
    def aliases(cls) -> Mapping[str, str]:
        return {"float32": "fp32"}

    @classmethod
    def hints(cls) -> Mapping[str, str]:
        # A 16-bit adapter is the model's own dtype under a 16-bit precision.
        return {"bf16": "model", "bfloat16": "model", "fp16": "model", "float16": "model"}


class LossKind(Choice):
    """How a language model's cross-entropy meets its logits."""

    STANDARD = "standard"
    """The whole logits tensor upcast to fp32; cross-entropy keeps fp32 log-probabilities."""
    CHUNKED = "chunked"
    """Whole 16-bit logits, upcast and scored one chunk at a time, the softmax recomputed in
    backward (torchtune ``CEWithChunkedOutputLoss`` with the loss compiled)."""
    CHUNKED_LOGITS = "chunked-logits"
    """The output projection per 128-token chunk, each chunk's 16-bit logits scored in their own
    dtype with nothing recomputed, the logits kept until the next step (litgpt's
    ``lm_head_chunk_size=128`` with ``chunked_cross_entropy``)."""
    FUSED_LINEAR = "fused-linear"
    """The output projection and the loss fused per chunk: the logits never exist whole (Liger
    ``LigerFusedLinearCrossEntropyLoss``, torchtune ``LinearCrossEntropyLoss``)."""

    @classmethod
    def kind(cls) -> str:
        return "loss"

    @classmethod
    def aliases(cls) -> Mapping[str, str]:
        return {"chunked-ce": "chunked", "fused": "fused-linear", "fused-linear-ce": "fused-linear"}


class MemoryVerdict(Choice):
    """Whether a run fits one GPU, judged on the whole band of the memory estimate, not its point.

    The band runs from the low to the high end of what must fit (allocated bytes at the peak × the
    calibration's memory band, allocator fragmentation, CUDA context, workspaces, NCCL buffers).
    """

    FITS = "fits"
    """The high end of the band is within the GPU's usable memory."""
    MAY_NOT_FIT = "may-not-fit"
    """The band straddles the usable memory: the run may fit, or may run out of memory."""
    DOES_NOT_FIT = "does-not-fit"
    """Even the low end of the band is above the usable memory."""

    @classmethod
    def kind(cls) -> str:
        return "memory verdict"


class Parallelism(Choice):
    """How several GPUs share one job."""

    DDP = "ddp"
    FSDP = "fsdp"
    ZERO1 = "zero1"
    ZERO2 = "zero2"
    ZERO3 = "zero3"


class DataTransfer(Choice):
    """How the dataset reaches the nodes of a multi-node job."""

    PER_NODE = "per_node"
    """Each node downloads its own copy from ``data.location`` (each copy pays the transfer)."""
    FAN_OUT = "fan_out"
    """One copy comes into the region; the nodes copy it from each other inside it (no transfer
    charge between instances of one zone on their private addresses)."""

    @classmethod
    def kind(cls) -> str:
        return "data transfer"


class ActivationCheckpointing(Choice):
    """What backward recomputes instead of keeping from forward."""

    NONE = "none"
    FULL = "full"
    """Every transformer block (ResNet stage) is recomputed; only its input is kept."""
    SELECTIVE = "selective"
    """Matmul and attention outputs are kept; the cheap ops between them are recomputed."""

    @classmethod
    def kind(cls) -> str:
        return "activation checkpointing"


class AttentionImpl(Choice):
    """How attention runs: one fused kernel or separate matmul / softmax kernels."""

    FUSED = "fused"
    """``F.scaled_dot_product_attention`` on a flash / memory-efficient kernel: no s×s scores kept."""
    EAGER = "eager"
    """The math path (HF ``attn_implementation="eager"``): the s×s score and probability matrices
    are materialised and saved for backward; scale, mask and an fp32 softmax as separate kernels."""
    FUSED_SOFTMAX = "fused-softmax"
    """Megatron-LM's 2021 attention: the s×s scores of a 16-bit batched GEMM, then one fused
    scale + mask + softmax kernel in 16-bit (``FusedScaleMaskSoftmax``); probabilities saved."""

    @classmethod
    def kind(cls) -> str:
        return "attention"

    @classmethod
    def aliases(cls) -> Mapping[str, str]:
        return {
            "sdpa": "fused",
            "flash": "fused",
            "unfused": "eager",
            "math": "eager",
            "fused-masked-softmax": "fused-softmax",
            "megatron": "fused-softmax",
        }


class StackLevel(Choice):
    """A named software stack: the settings a workload's ``stack`` block starts from."""

    STOCK = "stock"
    """What plain PyTorch code does: NCHW tensors, a DataLoader decoding on the CPU, no hand-fused
    kernels, foreach AdamW (PyTorch's default on CUDA), eager launches (no CUDA graphs)."""
    TUNED = "tuned"
    """What NVIDIA's NGC training scripts do: channels_last, DALI decoding on the GPU, fused dense +
    activation, dropout + residual-add + norm and cross-entropy kernels, fused AdamW, CUDA graphs."""

    @classmethod
    def kind(cls) -> str:
        return "stack level"

    @classmethod
    def aliases(cls) -> Mapping[str, str]:
        return {
            "default": "stock",
            "plain": "stock",
            "ngc": "tuned",
            "optimized": "tuned",
            "optimised": "tuned",
        }


class MemoryFormat(Choice):
    """How 4-D image tensors (and convolution weights) are laid out in memory."""

    CHANNELS_FIRST = "channels-first"
    """NCHW, PyTorch's default: cuDNN transposes to NHWC around each tensor-core convolution."""
    CHANNELS_LAST = "channels-last"
    """NHWC (``model.to(memory_format=torch.channels_last)``): tensor-core convolutions read it as is."""

    @classmethod
    def kind(cls) -> str:
        return "memory format"

    @classmethod
    def aliases(cls) -> Mapping[str, str]:
        return {"nchw": "channels-first", "contiguous": "channels-first", "nhwc": "channels-last"}


class InputPipelineKind(Choice):
    """Where an image job's samples are decoded and augmented."""

    DATALOADER = "dataloader"
    """torchvision transforms in PyTorch DataLoader workers on the host CPUs."""
    DALI = "dali"
    """NVIDIA DALI: JPEG decoding (nvJPEG) and augmentation on the GPU; the CPUs do not bound it."""
    SYNTHETIC = "synthetic"
    """Random tensors made on the GPU (benchmark mode): nothing to decode."""

    @classmethod
    def kind(cls) -> str:
        return "input pipeline"

    @classmethod
    def aliases(cls) -> Mapping[str, str]:
        return {"torchvision": "dataloader", "pytorch": "dataloader", "syntetic": "synthetic"}


class TensorParallelPlan(Choice):
    """Which collectives a tensor-parallel layer runs: where the inputs of its column-parallel
    projections (q, k, v; the MLP's gate and up) are gathered (``perf/stages/communication.py``)."""

    SHARED_INPUT = "shared-input"
    """One gather (all-reduce in backward) of the attention block's input and one of the MLP's,
    shared by their projections: Megatron-core's fused QKV and ``linear_fc1``, PyTorch's Llama plan
    with ``PrepareModuleInput``."""
    PER_PROJECTION = "per-projection"
    """Each column-parallel projection gathers its own input (DTensor ``ColwiseParallel`` with
    ``input_layouts=Shard(1)`` on q, k, v, gate and up), and reduces its own input gradient."""

    @classmethod
    def kind(cls) -> str:
        return "tensor-parallel plan"

    @classmethod
    def aliases(cls) -> Mapping[str, str]:
        return {"fused-input": "shared-input", "megatron": "shared-input", "per-linear": "per-projection"}


class ServingEngine(Choice):
    """The serving engines whose CPU work per iteration is known (``perf/engine_cpu.py``)."""

    VLLM = "vllm"
    SGLANG = "sglang"

    @classmethod
    def kind(cls) -> str:
        return "serving engine"


class FusedKernel(Choice):
    """Hand-fused training kernels a stack may use in place of PyTorch's separate ones."""

    DENSE_ACTIVATION = "dense-activation"
    """The MLP's activation in the first GEMM's epilogue (FlashAttention's ``FusedDense``, Megatron's
    bias-GeLU; SwiGLU's gate × up in one kernel)."""
    DROPOUT_ADD_NORM = "dropout-add-norm"
    """Dropout, the residual add and the layer (RMS) norm in one kernel (FlashAttention's
    ``dropout_add_layer_norm``)."""
    CROSS_ENTROPY = "cross-entropy"
    """Cross-entropy on the 16-bit logits in one kernel, the gradient written over the logits
    (FlashAttention's ``CrossEntropyLoss(inplace_backward=True)``, apex ``xentropy``)."""

    @classmethod
    def kind(cls) -> str:
        return "fused kernel"

    @classmethod
    def aliases(cls) -> Mapping[str, str]:
        return {
            "fused-mlp": "dense-activation",
            "bias-gelu": "dense-activation",
            "swiglu": "dense-activation",
            "dropout-add-layer-norm": "dropout-add-norm",
            "fused-dropout-add-ln": "dropout-add-norm",
            "xentropy": "cross-entropy",
            "fused-cross-entropy": "cross-entropy",
        }


class Objective(Choice):
    """What "best" means to the planner.

    - ``cost``: the lowest expected all-in cost (ties: faster first);
    - ``time``: the shortest expected job time (ties: cheaper first);
    - ``balanced``: the lowest cost × time, i.e. equal weight on relative savings of money and of
      time: a 10 % cheaper option beats a 9 % faster one. Scale-free, so dollars and hours need no
      exchange rate between them.
    """

    COST = "cost"
    TIME = "time"
    BALANCED = "balanced"

    @classmethod
    def aliases(cls) -> Mapping[str, str]:
        # The Chinese words for each: 成本 (cost), 时间 (time), 均衡 (balanced).
        return {"成本": "cost", "时间": "time", "均衡": "balanced"}
