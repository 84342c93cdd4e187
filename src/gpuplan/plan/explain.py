"""Why nothing is feasible: the binding constraint, in one line the user can act on.

The line is built from :class:`~gpuplan.errors.Phrase` pieces so that the CLI writes all of it in
the user's language (``gpuplan.i18n.error_text``); in English it reads as it always has.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np

from gpuplan.catalog.providers import declared_provider
from gpuplan.errors import Phrase
from gpuplan.i18n import N_, money
from gpuplan.i18n.countries import grouped_codes
from gpuplan.i18n.phrases import alternatives, listed, separated
from gpuplan.i18n.places import place
from gpuplan.plan.candidates import REASONS, left_without_precision, named_in, refusal_words
from gpuplan.plan.constraints import MAX_PLANNED_NODES, Reason, counted_labels, label_key, labels_satisfy
from gpuplan.plan.hosts import hosts_left_out
from gpuplan.plan.input_types import IntArray, JobFacts, OfferTable
from gpuplan.plan.load_limit import deadline_limits, load_limits
from gpuplan.plan.named_absent import no_usable_price
from gpuplan.plan.result import Option
from gpuplan.plan.unsold_gpu import unsold_gpu_words
from gpuplan.units import format_hours
from gpuplan.vocab import pricing_said

if TYPE_CHECKING:
    from gpuplan.plan.context import PlanContext

__all__ = ["infeasible_message", "unfit_gpu"]

_HINTS = {
    Reason.DOES_NOT_FIT.value: N_(
        "enable gradient_checkpointing, split the batch into smaller micro-batches with "
        "gradient_accumulation, use fsdp, or allow more GPUs / bigger GPUs"
    ),
    Reason.HOST_RAM.value: N_(
        "choose instances with more host RAM than the model's weights (a bigger host of the same GPUs), "
        "or store the weights smaller (model.checkpoint_dtype)"
    ),
    Reason.UNPRICED.value: N_("add a price with `gpuplan catalog` or widen providers/regions"),
    Reason.NEEDS_COMMITMENT.value: N_(
        "reserved prices need --commitment 1y|3y (monthly: --commitment monthly)"
    ),
    Reason.MODEL_SPLIT.value: N_(
        "tensor_parallel × pipeline_parallel must divide each option's GPUs and tensor_parallel fit "
        "in one instance: lower them, or allow more GPUs (--max-gpus)"
    ),
}
#: A tensor_parallel no GPU count runs (``JobFacts.splits_heads_unevenly``): what to give instead.
_UNEVEN_HEADS = N_(
    "; tensor_parallel {tp} does not divide the model's {heads} attention heads: use one of {choices}{more}"
)
_UNEVEN_KV_HEADS = N_(
    "; tensor_parallel {tp} splits the model's {heads} key/value heads unevenly: use one of {choices}{more}"
)
#: A tensor_parallel wider than every instance's GPUs: no count of them runs it either.
_WIDER_THAN_ANY = N_(
    "; tensor_parallel {tp} is more GPUs than any instance in the catalog joins ({most}): use at most {most}"
)
#: A service may leave its split to the planner (``plan.estimator.tensor_parallel_choices``).
_LEAVE_SPLIT_OUT = N_(", or leave tensor_parallel out (each option is then split as it needs)")
#: A language model's service that fits no GPU: its memory is the weights and the KV cache of the
#: sequences it holds, which neither the request rate nor the latency target changes.
_SERVICE_HINT = N_(
    "; for a service: its memory is the weights and the KV cache of the sequences it runs at once, "
    "which neither the request rate nor the p95 target changes: a GPU with more memory, more GPUs a "
    "replica (tensor_parallel), lower precision (precision: fp8), or a shorter context "
    "(serving.prompt_tokens, output_tokens) or fewer sequences at once (inputs.batch_size)"
)
#: An image service that fits no GPU: its memory is the weights and the denoiser's activations at
#: the serving batch, which neither more replicas nor another latency target change.
_IMAGE_SERVICE_HINT = N_(
    "; for an image service: its memory is the weights and the denoiser's activations at the serving "
    "batch (inputs.batch_size): a GPU with more memory, or a smaller inputs.batch_size"
)
#: A forward-pass service that fits no GPU: the same, its model's activations at the serving batch.
_FORWARD_SERVICE_HINT = N_(
    "; for a service whose request is one forward pass: its memory is the weights and the model's "
    "activations at the serving batch (inputs.batch_size): a GPU with more memory, or a smaller "
    "inputs.batch_size"
)
_NO_OFFERS = N_("the catalog holds no GPU offers to plan over; check it with `gpuplan catalog info`")
_NONE_LEFT = N_("no option is left: candidates excluded: {counts}{peak}{advice}")
_NONE_LEFT_BY = N_("no option is left: {filter}; candidates excluded: {counts}{peak}{advice}")
#: The providers named have no offer with a price the plan can use ({why}: ``no_usable_price``), then
#: where the pricing models allowed are priced instead.
_NONE_LEFT_UNPRICED = N_("no option is left: {why}{sold}")
#: The filters the user sets, each as the "no option is left" line names it when its exclusion was
#: the one that left no candidate (``Candidates.emptied_by``); the GPU filter's line is
#: ``unsold_gpu_words`` (it empties the field only where no offer of the places carries the GPU).
_EMPTIED_BY = {
    Reason.PROVIDER: N_("the provider filter ({value}) left none"),
    Reason.REGION: N_("the region filter ({value}) left none"),
    Reason.COUNTRY: N_("the country filter ({value}) left none"),
    Reason.HOSTS: N_(
        "the hosts filter (--hosts {value}: community hosts and hosts of unknown kind left out) left none"
    ),
    Reason.PRICING: N_("the pricing filter ({value}) left none"),
    Reason.NEEDS_COMMITMENT: N_("the commitment filter ({value}) left none"),
    Reason.COMPLIANCE: N_("the compliance filter ({value}) left none"),
    Reason.INTERCONNECT: N_("the interconnect filter ({value}) left none"),
    Reason.GPU_MEMORY: N_("the GPU memory filter (at least {value} GiB) left none"),
    Reason.MAX_GPUS: N_("the GPU count limit (at most {value}) left none"),
    Reason.MIN_GPUS: N_("the GPU count floor (min_gpus: at least {value}) left none"),
    Reason.LOW_CONFIDENCE: N_(
        "the low-confidence price filter left none (--allow-low-confidence, or "
        "constraints.allow_low_confidence: true in the workload, plans on them)"
    ),
}
# TRANSLATORS: one reason in "candidates excluded: not fitting in memory 12, without a price 3";
# {reason} is one of _REASON_WORDS, {count} a number of candidates
_REASON_COUNT = N_("{reason} {count}")
#: Each reason a candidate is left out for, as the "no option is left" line words it: the codes
#: (does_not_fit), which plan --json keeps, had been shown as they are ("does_not_fit 2,448").
_REASON_WORDS: dict[Reason, str] = {
    Reason.PROVIDER: N_("other providers"),
    Reason.GPU: N_("other GPUs"),
    Reason.REGION: N_("other regions"),
    Reason.COUNTRY: N_("other countries"),
    Reason.HOSTS: N_("not a provider's own host"),
    Reason.PRICING: N_("other pricing models"),
    Reason.NEEDS_COMMITMENT: N_("needing a commitment"),
    Reason.COMPLIANCE: N_("failing compliance"),
    Reason.INTERCONNECT: N_("without the interconnect asked"),
    Reason.GPU_MEMORY: N_("under the GPU memory asked"),
    Reason.MAX_GPUS: N_("over the GPU count limit"),
    Reason.MIN_GPUS: N_("under the GPU count floor"),
    Reason.FRACTIONAL_GPU: N_("a fraction of a GPU"),
    Reason.UNPRICED: N_("without a price"),
    Reason.LOW_CONFIDENCE: N_("with a low-confidence price"),
    Reason.MODEL_SPLIT: N_("not splitting the model so"),
    Reason.LATENCY: N_("missing the latency target"),
    Reason.USERS_FAR: N_("too far from the users"),
    Reason.LOAD: N_("short of the load"),
    Reason.MIN_REPLICAS: N_("under the fewest replicas"),
    Reason.MAX_REPLICAS: N_("over the most replicas"),
    Reason.NO_PRECISION_PATH: N_("without a path for the precision"),
    Reason.UNKNOWN_RATE: N_("without a published rate"),
    Reason.DOES_NOT_FIT: N_("not fitting in memory"),
    Reason.SPOT_UNSTABLE: N_("spot too unstable"),
    Reason.UNKNOWN_COST: N_("with a cost of unknown size"),
    Reason.DEADLINE: N_("over the deadline"),
    Reason.BUDGET: N_("over the budget"),
    Reason.HOST_RAM: N_("with too little host RAM for the weights"),
}
_PEAK = N_(" (peak memory per GPU at least {peak_gib:.1f} GiB)")
_LATENCY = N_(
    "; no option meets the p95 latency target of {target:g} ms: the best reached is {best_s:.3g} s on "
    "{gpus} × {gpu}"
)
_TTFT = N_(
    "; no option meets the p95 time-to-first-token target of {target:g} ms: the best reached is "
    "{best_s:.3g} s on {gpus} × {gpu}"
)
_TPOT = N_(
    "; no option meets the time-per-output-token target of {target:g} ms: the best reached is "
    "{best_ms:.3g} ms a token on {gpus} × {gpu}"
)
#: The time-per-output-token target is below the decode step of a replica with no load beside it.
_TPOT_FLOOR = N_(
    "; no option meets the time-per-output-token target of {target:g} ms: a decode step takes at "
    "least {floor_ms:.3g} ms even at the lightest load (on {gpu}, the fastest), so no number of "
    "replicas meets it"
)
#: A latency target in milliseconds so small it reads as seconds written as milliseconds.
_SECONDS_DOUBT = N_("; did you mean {seconds:g} s ({ms:g} ms)?")
#: The p95 latency and the p95 time to first token below which a target is taken for seconds
#: written as milliseconds: before its first token a request crosses the network (about 1 ms within
#: one region, tens across a continent), is tokenised and queued by the engine, and waits for a
#: whole prefill forward pass, which alone reads every weight once (an 8B model in bf16, 16 GB, takes
#: 2 ms at the 8 TB/s of a B200's memory): no served LLM answers within 10 ms at its 95th percentile.
IMPLAUSIBLE_LATENCY_MS = 10.0
#: The time per output token below which a target is taken for seconds written as milliseconds: a
#: decode step reads every weight once more, and the engine's own work between steps (scheduling,
#: sampling, the kernels' launches) takes a fraction of a millisecond even with CUDA graphs: 1,000
#: tokens/s to one stream is beyond what GPUs serve.
IMPLAUSIBLE_TPOT_MS = 1.0
#: Each target is met by some option, but none meets all of them (a time-per-output-token one among them).
_TARGETS_TOGETHER = N_("; no option meets these latency targets together: {targets}")
_P95_TARGET = N_("p95 latency {ms:g} ms")
_TTFT_TARGET = N_("p95 time to first token {ms:g} ms")
_TPOT_TARGET = N_("time per output token {ms:g} ms")
#: Each target is met by some option, but none meets both.
_BOTH_TARGETS = N_(
    "; no option meets the p95 latency target of {p95:g} ms and the p95 time-to-first-token target "
    "of {ttft:g} ms together"
)
#: Left out for the round trip to the users: the nearest such region, its round trip and how it is
#: estimated, and what to change.
_USERS_FAR = N_(
    "; with the network round trip to your users in {users} added, no region left meets the latency "
    "targets: the nearest, {region}, is {rtt} ms away ({method}); plan in regions nearer them "
    "(--countries {users}) or raise the target"
)
_ADVICE = N_("; {hint}")
#: Left out for memory: the estimate's advisor says which changes fit, each with its memory and
#: step time (micro-batches with accumulation, checkpointing, …), for one GPU at a time.
_FIT_ADVICE = N_(
    "; {hint}; `gpuplan estimate WORKLOAD --gpu {gpu}` shows which changes make it fit, each with its "
    "memory and step time"
)
#: Where the pricing models allowed are priced, when none is in the places the filters allow.
_SOLD_ELSEWHERE = N_("; {pricing} is priced only at {places}; {here}")
#: What the places asked for price, in the ``_SOLD_ELSEWHERE`` line ("{where}": ``_OFFERS_OF``…).
_NONE_PRICED_HERE = N_("no offer {where} is priced")
_PRICED_HERE_AS = N_("the offers {where} are priced only as {models}")
# TRANSLATORS: "{providers}" is "aws, azure or gcp", "{places}" "region us-east-1 and country DE"
_OFFERS_OF_IN = N_("of {providers} in {places}")
_OFFERS_OF = N_("of {providers}")
_OFFERS_IN = N_("in {places}")
_REGIONS_NAMED = {True: N_("region {names}"), False: N_("regions {names}")}
_COUNTRIES_NAMED = {True: N_("country {names}"), False: N_("countries {names}")}
_PLACES_BOTH = N_("{regions} and {countries}")
#: A region asked for that lies in none of the countries asked for: why none of its offers is left.
_REGION_ELSEWHERE = N_("{clause}: region {region} is in {countries}, not {asked}")
_SOLD_NOWHERE = N_("; the catalog prices {pricing} nowhere")
#: Where the pricing models allowed are priced within the countries asked for, when the other place
#: filters allow none there: the places outside them are counted, not named (a plan kept to the EU
#: had been told of aws/af-south-1 first).
_SOLD_WITHIN = N_("; within {countries}, {pricing} is priced only at {places}; {here}")
_SOLD_WITHIN_AND_OUTSIDE = {
    True: N_(
        "; within {countries}, {pricing} is priced only at {places} (and at {n} place elsewhere); {here}"
    ),
    False: N_(
        "; within {countries}, {pricing} is priced only at {places} (and at {n} places elsewhere); {here}"
    ),
}
_SOLD_ONLY_OUTSIDE = {
    True: N_("; {pricing} is priced nowhere within {countries}, only at {n} place elsewhere; {here}"),
    False: N_("; {pricing} is priced nowhere within {countries}, only at {n} places elsewhere; {here}"),
}
_AND_MORE = N_("{names} and {n} more")
#: Places named in a "priced only at" clause before "and N more".
_PLACES_SHOWN = 6
#: Two pieces of a line written one after the other (no catalog message: each piece is one).
_TWO_PIECES = "{first}{second}"
# TRANSLATORS: joins one more clause to the ones before ("…takes 2 h (…); the cheapest …")
_SEMICOLON_ONE_MORE = N_("{clauses}; {clause}")
_HEAD_AND_CLAUSES = N_("{head}: {clauses}")
#: The countries filter left candidates out before the deadline or budget was checked: a refusal
#: that named only the options it kept had left unsaid that some elsewhere may meet it.
_COUNTRIES_LEFT_OUT = {
    True: N_(
        "the countries asked for ({countries}) left out {n} candidate elsewhere, which may meet it: "
        "plan without --countries to see it priced"
    ),
    False: N_(
        "the countries asked for ({countries}) left out {n} candidates elsewhere, which may meet it: "
        "plan without --countries to see them priced"
    ),
}

#: ``--hosts provider`` left community hosts and hosts of unknown kind out before the deadline or
#: budget was checked: as for the countries, a refusal names what it kept out.
_HOSTS_LEFT_OUT = {
    True: N_(
        "--hosts provider left out {hosts} community or unknown-kind host ({n} candidates), which may "
        "meet it: plan with --hosts any to see it priced"
    ),
    False: N_(
        "--hosts provider left out {hosts} community or unknown-kind hosts ({n} candidates), which may "
        "meet it: plan with --hosts any to see them priced"
    ),
}


def infeasible_message(
    ctx: PlanContext, pre: IntArray, option: Callable[[PlanContext, int], Option]
) -> Phrase:
    """Say which constraint excludes what: a Phrase, ready for ``InfeasibleError.worded``.

    ``pre`` are the positions (in the cost arrays) still feasible before deadline and budget.
    """
    if pre.size == 0:
        return _nothing_left(ctx)
    return _over_deadline_or_budget(ctx, pre, option)


def _nothing_left(ctx: PlanContext) -> Phrase:
    """Every candidate fell before deadline and budget: the counts by reason, and what to change."""
    counts = ctx.cands.excluded_counts()
    if not counts:
        return Phrase(_NO_OFFERS)
    if ctx.cands.emptied_by is Reason.GPU and (unsold := unsold_gpu_words(ctx)) is not None:
        # the GPU is not sold at all (or not by the providers named): the counts had said only
        # that every candidate was "excluded by gpu"
        return unsold
    c = ctx.constraints
    if c.providers and (why := no_usable_price(ctx.offers, c.providers, c.allow_low_confidence)):
        # the catalog prices none of them anywhere: "the country filter (CN) left none" had blamed
        # the countries, their rows having no region and so no country
        return Phrase(_NONE_LEFT_UNPRICED, why=why, sold=_where_sold(ctx))
    ordered = sorted(counts.items(), key=lambda kv: -kv[1])
    # A reason is a code (does_not_fit), said in words; thousands separated, as every other count
    # of candidates is ("71,521", not "71521")
    items = [
        Phrase(_REASON_COUNT, reason=Phrase(_REASON_WORDS[Reason(k)]), count=f"{v:,}") for k, v in ordered
    ]
    top = max(counts, key=lambda k: counts[k])
    if ctx.cands.emptied_by is Reason.DOES_NOT_FIT:
        # The filters left candidates and none of them fits: memory is what to act on, however
        # many more the GPU filter left out before (a --gpus of one 24 GB card had been told only
        # the counts).
        top = Reason.DOES_NOT_FIT.value
    peak: Phrase | str = ""
    if top == Reason.DOES_NOT_FIT.value:
        peaks = ctx.cands.peak_memory_gib[np.isfinite(ctx.cands.peak_memory_gib)]
        if peaks.size:
            peak = Phrase(_PEAK, peak_gib=float(peaks.min()))
    advice: Phrase | str = ""
    if Reason.LATENCY.value in counts and (
        ctx.job.p95_latency_ms is not None
        or ctx.job.ttft_p95_ms is not None
        or ctx.job.tpot_p95_ms is not None
    ):
        advice = _latency_advice(ctx)
    elif top == Reason.DOES_NOT_FIT.value and ctx.job.served_images_per_hour is not None:
        advice = Phrase(_IMAGE_SERVICE_HINT)
    elif top == Reason.DOES_NOT_FIT.value and ctx.job.served_passes_per_hour is not None:
        advice = Phrase(_FORWARD_SERVICE_HINT)
    elif top == Reason.DOES_NOT_FIT.value and ctx.job.task == "infer":
        advice = Phrase(_SERVICE_HINT)
    elif top == Reason.DOES_NOT_FIT.value:
        advice = Phrase(_FIT_ADVICE, hint=Phrase(_HINTS[top]), gpu=_nearest_unfit_gpu(ctx))
    elif top in _HINTS:
        advice = Phrase(_ADVICE, hint=Phrase(_HINTS[top]))
    if Reason.USERS_FAR.value in counts and (far := _users_far(ctx)) is not None:
        advice = Phrase(_TWO_PIECES, first=advice, second=far) if advice else far
    limits = load_limits(ctx.cands, ctx.offers, ctx.job, ctx.constraints)
    if limits:
        # the limit that ended the search comes first: lifting it is what can give an option
        hint = Phrase(_ADVICE, hint=separated(limit.words for limit in limits))
        advice = Phrase(_TWO_PIECES, first=hint, second=advice) if advice else hint
    if Reason.NO_PRECISION_PATH.value in counts:
        # the GPUs left cannot run the precision at all: what to write instead comes first
        pathless = Phrase(_ADVICE, hint=_pathless_words(ctx))
        advice = Phrase(_TWO_PIECES, first=pathless, second=advice) if advice else pathless
    sold = _where_sold(ctx)
    if sold:
        advice = Phrase(_TWO_PIECES, first=sold, second=advice) if advice else sold
    widest = int(np.nanmax(np.floor(ctx.offers.gpu_count))) if len(ctx.offers) else 0
    if ctx.job.splits_heads_unevenly:
        # no GPU count runs this split: what to give instead, not more GPUs
        advice = _uneven_heads(ctx.job)
    elif Reason.MODEL_SPLIT.value in counts and 0 < widest < ctx.job.tensor_parallel:
        advice = Phrase(_WIDER_THAN_ANY, tp=ctx.job.tensor_parallel, most=widest)
    emptied = _emptied_by(ctx)
    if emptied is not None:
        return Phrase(_NONE_LEFT_BY, filter=emptied, counts=listed(items), peak=peak, advice=advice)
    return Phrase(_NONE_LEFT, counts=listed(items), peak=peak, advice=advice)


def unfit_gpu(ctx: PlanContext) -> str | None:
    """The GPU a "no option is left" line sends to ``gpuplan estimate`` for the changes that make a
    training job fit (``_FIT_ADVICE``); None where memory is not what left no option, or the job is a
    service (whose line says what a service can change)."""
    counts = ctx.cands.excluded_counts()
    if Reason.DOES_NOT_FIT.value not in counts or ctx.job.task == "infer":
        return None
    top = max(counts, key=lambda k: counts[k])
    if top != Reason.DOES_NOT_FIT.value and ctx.cands.emptied_by is not Reason.DOES_NOT_FIT:
        return None
    return _nearest_unfit_gpu(ctx)


def _nearest_unfit_gpu(ctx: PlanContext) -> str:
    """The GPU of the candidates left out for memory with the most of it (the nearest to fitting):
    the one ``gpuplan estimate --gpu`` gives the changes that make the job fit for."""
    c, o = ctx.cands, ctx.offers
    rows = c.offer[c.reason == REASONS.index(Reason.DOES_NOT_FIT)]
    memory = {str(g): float(m) for g, m in zip(o.gpu[rows], o.gpu_memory_gib[rows], strict=True)}
    return min(memory, key=lambda g: (-memory[g], g))


def _pathless_words(ctx: PlanContext) -> Phrase:
    """Why the GPUs left out as ``no_precision_path`` cannot run the job, and what precision to
    write instead, in the estimate's words (one clause per GPU)."""
    return refusal_words(left_without_precision(ctx.cands, ctx.offers, ctx.job))


def _uneven_heads(job: JobFacts) -> Phrase:
    """The degrees that split the model's heads evenly, up to an instance's GPUs, in place of the
    workload's ``tensor_parallel``."""
    from gpuplan.perf.stages.layout import even_tensor_parallel

    heads, kv = job.attention_heads, job.kv_heads or job.attention_heads
    choices = listed(even_tensor_parallel(heads, kv))
    more = Phrase(_LEAVE_SPLIT_OUT) if job.is_service and job.replicas_per_gpu == 1 else ""
    if heads % job.tensor_parallel:
        return Phrase(_UNEVEN_HEADS, tp=job.tensor_parallel, heads=heads, choices=choices, more=more)
    return Phrase(_UNEVEN_KV_HEADS, tp=job.tensor_parallel, heads=kv, choices=choices, more=more)


def _where_sold(ctx: PlanContext) -> Phrase | str:
    """Where the pricing models allowed are priced, when the place filters (providers, regions,
    countries) allow no priced offer of them ("" otherwise): a monthly plan asked of a region that
    sells only by the hour is told where monthly is sold and what the region sells."""
    c, o = ctx.constraints, ctx.offers
    if not (c.providers or c.regions or c.countries):
        return ""
    usable = np.isfinite(o.price_usd) & (o.pricing != "")
    if not c.allow_low_confidence:
        usable &= o.confidence != "low"
    here = np.ones(usable.shape, dtype=bool)
    for names, column in ((c.providers, o.provider), (c.regions, o.region), (c.countries, o.country)):
        if names:
            here &= named_in(column, tuple(names))
    wanted = named_in(o.pricing, c.allowed_pricing)
    if (usable & here & wanted).any():
        return ""  # the places sell it: something else left no option
    if not c.allow_low_confidence and (np.isfinite(o.price_usd) & here & wanted).any():
        return ""  # priced there, at low confidence only: the confidence filter, named already
    pricing = listed(pricing_said(p) for p in c.allowed_pricing)
    sold = usable & wanted
    if not sold.any():
        return Phrase(_SOLD_NOWHERE, pricing=pricing)
    here_said = _priced_here(ctx, usable & here)
    if c.countries:
        return _sold_within_countries(ctx, sold, pricing, here_said)
    # Where it is sold nearest to what was asked: the providers named, else the regions named, else
    # anywhere (Azure in the EU had been told of Alibaba's Chinese regions first).
    sold = _nearest_asked(ctx, sold)
    return Phrase(_SOLD_ELSEWHERE, pricing=pricing, places=_places(o, sold), here=here_said)


def _sold_within_countries(ctx: PlanContext, sold: np.ndarray, pricing: Phrase, here: Phrase) -> Phrase:
    """The "priced only at" clause of :func:`_where_sold` under a countries filter: the places within
    the countries asked for where ``sold`` (the pricing models allowed, priced) is, those of the
    providers or regions named first; the places outside them counted, never named before them."""
    c, o = ctx.constraints, ctx.offers
    countries = tuple(c.countries or ())
    asked = Phrase(_COUNTRIES_NAMED[len(countries) == 1], names=alternatives(grouped_codes(countries)))
    inside = sold & named_in(o.country, countries)
    outside = len(_places_at(o, sold & ~inside))
    if not inside.any():
        return Phrase(
            _SOLD_ONLY_OUTSIDE[outside == 1], pricing=pricing, countries=asked, n=outside, here=here
        )
    places = _places(o, _nearest_asked(ctx, inside))
    if outside == 0:
        return Phrase(_SOLD_WITHIN, countries=asked, pricing=pricing, places=places, here=here)
    return Phrase(
        _SOLD_WITHIN_AND_OUTSIDE[outside == 1],
        countries=asked,
        pricing=pricing,
        places=places,
        n=outside,
        here=here,
    )


def _nearest_asked(ctx: PlanContext, sold: np.ndarray) -> np.ndarray:
    """``sold`` narrowed to the providers named where they have any of it, else to the regions named
    where those have any, else as it is."""
    c, o = ctx.constraints, ctx.offers
    for names, column in ((c.providers, o.provider), (c.regions, o.region)):
        if names and (sold & named_in(column, tuple(names))).any():
            return sold & named_in(column, tuple(names))
    return sold


def _places_at(o: OfferTable, mask: np.ndarray) -> list[tuple[str, str]]:
    """The ``(provider, region)`` places of the offers in ``mask``, sorted."""
    return sorted({(str(p), str(r)) for p, r in zip(o.provider[mask], o.region[mask], strict=True)})


def _priced_here(ctx: PlanContext, priced_here: np.ndarray) -> Phrase:
    """What the places asked for do price (``priced_here``: their priced offers, of any pricing
    model), with any region asked for that lies outside the countries asked for."""
    c, o = ctx.constraints, ctx.offers
    models = sorted({str(m) for m in o.pricing[priced_here]})
    where = _offers_asked(ctx)
    said = (
        Phrase(_PRICED_HERE_AS, where=where, models=alternatives(pricing_said(m) for m in models))
        if models
        else Phrase(_NONE_PRICED_HERE, where=where)
    )
    for region, countries in _regions_elsewhere(ctx):
        said = Phrase(
            _REGION_ELSEWHERE,
            clause=said,
            region=region,
            countries=alternatives(countries),
            asked=alternatives(grouped_codes(c.countries or ())),
        )
    return said


def _offers_asked(ctx: PlanContext) -> Phrase:
    """The offers the place filters asked for, as "of aws, azure or gcp in region us-east-1 and
    country DE" (a list of the filters' values alone had read "aws, azure, gcp, us-east-1, DE")."""
    c = ctx.constraints
    places = [
        Phrase(words[len(given) == 1], names=alternatives(names))
        for given, names, words in (
            (c.regions or (), list(c.regions or ()), _REGIONS_NAMED),
            (c.countries or (), grouped_codes(c.countries or ()), _COUNTRIES_NAMED),  # EU: countries
        )
        if given
    ]
    within = Phrase(_PLACES_BOTH, regions=places[0], countries=places[1]) if len(places) == 2 else None
    if within is None and places:
        within = places[0]
    if c.providers and within is not None:
        return Phrase(_OFFERS_OF_IN, providers=alternatives(c.providers), places=within)
    if c.providers:
        return Phrase(_OFFERS_OF, providers=alternatives(c.providers))
    return Phrase(_OFFERS_IN, places=within)


def _regions_elsewhere(ctx: PlanContext) -> list[tuple[str, list[str]]]:
    """Each region asked for whose offers (of the providers asked for, where they have any there)
    all lie outside the countries asked for, with the countries they do lie in."""
    c, o = ctx.constraints, ctx.offers
    if not (c.regions and c.countries):
        return []
    asked = {code.upper() for code in c.countries}
    out = []
    for region in c.regions:
        rows = named_in(o.region, (region,)) & (o.country != "")
        if c.providers and (rows & named_in(o.provider, tuple(c.providers))).any():
            rows &= named_in(o.provider, tuple(c.providers))
        countries = sorted({str(code).upper() for code in o.country[rows]})
        if countries and not asked.intersection(countries):
            out.append((region, countries))
    return out


def _emptied_by(ctx: PlanContext) -> Phrase | None:
    """The user's filter whose exclusion left no candidate, with the value it was given (None when
    the field was emptied by something else: memory, prices missing, the model's split)."""
    reason = ctx.cands.emptied_by
    if reason is None or reason not in _EMPTIED_BY:
        return None
    c = ctx.constraints
    value: object = {
        Reason.PROVIDER: lambda: listed(c.providers or ()),
        Reason.REGION: lambda: listed(c.regions or ()),
        Reason.COUNTRY: lambda: listed(grouped_codes(c.countries or ())),
        Reason.HOSTS: lambda: c.hosts,
        Reason.PRICING: lambda: listed(c.allowed_pricing),
        Reason.NEEDS_COMMITMENT: lambda: c.commitment or Phrase(N_("not given: one month at most")),
        Reason.COMPLIANCE: lambda: listed(c.compliance or ()),
        Reason.INTERCONNECT: lambda: c.interconnect,
        Reason.GPU_MEMORY: lambda: f"{c.min_gpu_memory_gib:g}",
        Reason.MAX_GPUS: lambda: c.total_gpu_limit,
        Reason.MIN_GPUS: lambda: c.min_gpus,
        Reason.LOW_CONFIDENCE: lambda: "",
    }[reason]()
    emptied = Phrase(_EMPTIED_BY[reason], value=value)
    if reason == Reason.MIN_GPUS:
        return _floor_past_nodes(ctx, emptied) or emptied
    if reason == Reason.COMPLIANCE:
        return _compliance_held_elsewhere(ctx, emptied) or emptied
    if reason == Reason.COUNTRY:
        # a provider the user declared without its country is in none: say so, not just "none left"
        o = ctx.offers
        unplaced = sorted({str(p) for p in o.provider[o.country == ""] if declared_provider(str(p))})
        if unplaced:
            return Phrase(_COUNTRY_UNKNOWN, emptied=emptied, providers=listed(unplaced))
    return emptied


def _floor_past_nodes(ctx: PlanContext, emptied: Phrase) -> Phrase | None:
    """Where the GPU count floor takes more instances than a job may span (``--max-nodes``,
    :data:`~gpuplan.plan.constraints.DEFAULT_MAX_NODES` without it) on every instance the other
    filters left that could hold it within the GPU limit: that limit, and the ``--max-nodes`` that
    reaches the floor; None where the limit is not why (a service, whose instances are not capped
    so; a floor no instance count holds within the GPU limit)."""
    c, cands = ctx.constraints, ctx.cands
    if ctx.job.is_service or not c.min_gpus:
        return None
    floored = cands.reason == REASONS.index(Reason.MIN_GPUS)
    per_node = np.unique(cands.gpus_per_node[floored])
    per_node = per_node[per_node >= 1]
    needed = -(-c.min_gpus // per_node)  # instances of each size that hold the floor
    needed = needed[needed * per_node <= c.total_gpu_limit]
    nodes = c.node_limit(service=False)
    if needed.size == 0 or needed.min() <= nodes or needed.min() > MAX_PLANNED_NODES:
        return None
    limit = Phrase(_NODES_GIVEN if c.max_nodes is not None else _NODES_DEFAULT)
    return Phrase(
        _PAST_NODES, emptied=emptied, gpus=c.min_gpus, nodes=nodes, limit=limit, need=int(needed.min())
    )


#: The GPU count floor takes more instances than a job may span, on every instance left.
_PAST_NODES = N_(
    "{emptied}: {gpus} GPUs take more instances than a job may span ({nodes}, {limit}); give "
    "--max-nodes {need} or more"
)
_NODES_GIVEN = N_("--max-nodes")
_NODES_DEFAULT = N_("the limit without --max-nodes")


def _compliance_held_elsewhere(ctx: PlanContext, emptied: Phrase) -> Phrase | None:
    """Where the offers holding the compliance labels asked for are, when the place filters
    (providers, regions, countries) left every one of them out (None otherwise): "the compliance
    filter left none" had blamed the label for what the place filters did, and offers whose region's
    country is unknown are left out by any countries filter."""
    c, o = ctx.constraints, ctx.offers
    if not (c.providers or c.regions or c.countries):
        return None
    holds = np.array(
        [
            labels_satisfy(c.compliance, counted_labels(c, certain, claimed))
            for certain, claimed in zip(o.compliance, o.compliance_claimed, strict=True)
        ],
        dtype=bool,
    )
    here = np.ones(holds.shape, dtype=bool)
    for names, column in ((c.providers, o.provider), (c.regions, o.region), (c.countries, o.country)):
        if names:
            here &= named_in(column, tuple(names))
    if not holds.any() or (holds & here).any():
        return None  # none holds it anywhere, or some within the places: something else left none
    wanted = {label_key(r) for r in c.compliance or ()}
    labels = sorted(
        {
            str(label)
            for i in np.flatnonzero(holds)
            for label in counted_labels(c, o.compliance[i], o.compliance_claimed[i])
            if label_key(str(label)) in wanted
        }
    )
    # the countries filter alone left them out, and for want of a country: say that, not "elsewhere"
    placed = holds.copy()
    for names, column in ((c.providers, o.provider), (c.regions, o.region)):
        if names:
            placed &= named_in(column, tuple(names))
    if c.countries and placed.any() and not (o.country[placed] != "").any():
        return Phrase(
            _LABEL_COUNTRY_UNKNOWN, emptied=emptied, labels=listed(labels), places=_places(o, placed)
        )
    return Phrase(_LABEL_ELSEWHERE, emptied=emptied, labels=listed(labels), places=_places(o, holds))


def _places(o: OfferTable, mask: np.ndarray) -> Phrase:
    """The provider/region places of the offers in ``mask``, the first few named."""
    at = _places_at(o, mask)
    shown: Phrase = listed(place(p, r) for p, r in at[:_PLACES_SHOWN])
    if len(at) > _PLACES_SHOWN:
        shown = Phrase(_AND_MORE, names=shown, n=len(at) - _PLACES_SHOWN)
    return shown


#: The offers holding the labels asked for are all in regions of no known country.
_LABEL_COUNTRY_UNKNOWN = N_(
    "{emptied}: the only offers holding {labels} ({places}) are in a region whose country is "
    "unknown (the price's source names none), which the countries filter leaves out"
)
#: The offers holding the labels asked for are all outside the places asked for.
_LABEL_ELSEWHERE = N_(
    "{emptied}: the only offers holding {labels} are at {places}, which your providers, regions "
    "or countries leave out"
)


#: Why a provider the user declared is in no country a filter names.
_COUNTRY_UNKNOWN = N_(
    "{emptied}; the country of {providers} is unknown (a provider you declared without --country: "
    "import its prices again with --new-provider and --country)"
)


def _users_far(ctx: PlanContext) -> Phrase | None:
    """The nearest region left out for the round trip to the users, and its round trip."""
    from gpuplan.catalog.user_rtt import method_words

    c = ctx.cands
    hit = c.reason == REASONS.index(Reason.USERS_FAR)
    if c.users_rtt_ms is None or not hit.any():
        return None
    i = int(np.flatnonzero(hit)[np.nanargmin(c.users_rtt_ms[hit])])
    o = int(c.offer[i])
    return Phrase(
        _USERS_FAR,
        users=",".join(ctx.job.users_in),
        region=f"{ctx.offers.provider[o]}/{ctx.offers.region[o]}",
        rtt=f"{c.users_rtt_ms[i]:.0f}",
        method=method_words(),
    )


def _latency_advice(ctx: PlanContext) -> Phrase | str:
    """Each latency target (p95 latency, p95 time to first token, time per output token) no option
    met, and the best figure any candidate left out for them reached (its GPUs); a time per output
    token below every replica's step at the lightest load is said to be met by no replica count."""
    c, job = ctx.cands, ctx.job
    lines: list[Phrase] = []
    for words, target_ms, reached in (
        (_LATENCY, job.p95_latency_ms, c.p95_latency_s),
        (_TTFT, job.ttft_p95_ms, c.ttft_p95_s),
    ):
        if target_ms is None:
            continue
        seen = np.where(c.misses_latency, reached, np.nan)
        if not np.isfinite(seen).any():
            continue  # not estimated anywhere: no best to name (unknown is never within the target)
        i = int(np.nanargmin(seen))
        if seen[i] * 1000.0 <= target_ms:
            continue  # some option meets this one: the other target is what left it out
        line = Phrase(
            words,
            target=target_ms,
            best_s=float(seen[i]),
            gpus=int(c.gpus_per_node[i] * c.nodes[i]),
            gpu=str(ctx.offers.gpu[c.offer[i]]),
        )
        lines.append(_with_seconds_doubt(line, target_ms, IMPLAUSIBLE_LATENCY_MS))
    if job.tpot_p95_ms is not None and (tokens := _tpot_advice(ctx, job.tpot_p95_ms)) is not None:
        lines.append(_with_seconds_doubt(tokens, job.tpot_p95_ms, IMPLAUSIBLE_TPOT_MS))
    if not lines:
        targets = [
            Phrase(words, ms=ms)
            for words, ms in (
                (_P95_TARGET, job.p95_latency_ms),
                (_TTFT_TARGET, job.ttft_p95_ms),
                (_TPOT_TARGET, job.tpot_p95_ms),
            )
            if ms is not None
        ]
        if len(targets) > 1 and job.tpot_p95_ms is not None:
            return Phrase(_TARGETS_TOGETHER, targets=listed(targets))
        if job.p95_latency_ms is not None and job.ttft_p95_ms is not None:
            return Phrase(_BOTH_TARGETS, p95=job.p95_latency_ms, ttft=job.ttft_p95_ms)
        return ""
    joined = lines[0]
    for line in lines[1:]:
        joined = Phrase(_TWO_PIECES, first=joined, second=line)
    return joined


def _with_seconds_doubt(line: Phrase, target_ms: float, least_ms: float) -> Phrase:
    """``line`` (a latency target no option met), asking whether the target was meant in seconds
    where it is below ``least_ms``, less than hardware can answer in: ``ttft_p95_ms: 1.5`` for 1.5 s.
    A question, not a correction: the target stays as written."""
    if target_ms >= least_ms:
        return line
    doubt = Phrase(_SECONDS_DOUBT, seconds=target_ms, ms=target_ms * 1000.0)
    return Phrase(_TWO_PIECES, first=line, second=doubt)


def _tpot_advice(ctx: PlanContext, target_ms: float) -> Phrase | None:
    """The time-per-output-token target no option met: the best any candidate left out for the
    targets reached, or, where even the lightest load's decode step is over it on every one, that
    no number of replicas meets it; None where some option meets it."""
    c = ctx.cands
    floor = np.where(c.misses_latency, c.tpot_floor_s, np.nan)
    if np.isfinite(floor).any():
        i = int(np.nanargmin(floor))
        if floor[i] * 1000.0 > target_ms:
            gpu = str(ctx.offers.gpu[c.offer[i]])
            return Phrase(_TPOT_FLOOR, target=target_ms, floor_ms=float(floor[i]) * 1e3, gpu=gpu)
    seen = np.where(c.misses_latency, c.tpot_s, np.nan)
    if not np.isfinite(seen).any():
        return None  # not estimated anywhere: no best to name (unknown is never within the target)
    i = int(np.nanargmin(seen))
    if seen[i] * 1000.0 <= target_ms:
        return None  # some option meets this one: another target is what left it out
    return Phrase(
        _TPOT,
        target=target_ms,
        best_ms=float(seen[i]) * 1e3,
        gpus=int(c.gpus_per_node[i] * c.nodes[i]),
        gpu=str(ctx.offers.gpu[c.offer[i]]),
    )


def _over_deadline_or_budget(
    ctx: PlanContext, pre: IntArray, option: Callable[[PlanContext, int], Option]
) -> Phrase:
    """Options remain but miss the deadline or the budget: the best each side can do."""
    c = ctx.constraints
    costs = ctx.costs
    time = costs.time_h[pre]
    cost = costs.total_usd[pre]
    d, b = c.deadline_h, c.budget_usd
    meets_d = time <= d if d is not None else np.ones(pre.size, dtype=bool)
    meets_b = cost <= b if b is not None else np.ones(pre.size, dtype=bool)

    def fastest(mask: np.ndarray) -> Option:
        sub = pre[mask]
        j = sub[np.lexsort((costs.total_usd[sub], costs.time_h[sub]))[0]]
        return option(ctx, int(j))

    def cheapest(mask: np.ndarray) -> Option:
        sub = pre[mask]
        j = sub[np.lexsort((costs.time_h[sub], costs.total_usd[sub]))[0]]
        return option(ctx, int(j))

    everything = np.ones(pre.size, dtype=bool)
    clauses: list[Phrase] = []
    # where options were timed at the slowest network for want of the catalog's, the network the
    # user can give decides more than any count: said first
    held = _held_by_network(ctx, pre) if d is not None and not (meets_d & meets_b).any() else None
    if held is not None:
        clauses.append(held)
    if d is not None and b is not None:
        head = Phrase(
            N_("no option meets {deadline} under {budget}"), deadline=format_hours(d), budget=money(b)
        )
    elif d is not None:
        head = Phrase(N_("no option finishes within {deadline}"), deadline=format_hours(d))
    else:
        head = Phrase(N_("no option costs under {budget}"), budget=money(b))
    if d is not None:
        if b is not None and meets_b.any():
            f = fastest(meets_b)
            clauses.append(
                Phrase(
                    N_("the fastest within budget takes {time} ({option})"),
                    time=format_hours(f.job_time_h),
                    option=f.label,
                )
            )
        elif not meets_d.any():
            f = fastest(everything)
            clauses.append(
                Phrase(
                    N_("the fastest option takes {time} ({cost}, {option})"),
                    time=format_hours(f.job_time_h),
                    cost=money(f.total_cost_usd),
                    option=f.label,
                )
            )
    if b is not None:
        if d is not None and meets_d.any():
            ch = cheapest(meets_d)
            clauses.append(
                Phrase(
                    N_("the cheapest within {deadline} costs {cost} ({option})"),
                    deadline=format_hours(d),
                    cost=money(ch.total_cost_usd),
                    option=ch.label,
                )
            )
        if not meets_b.any() and not (
            d is not None and meets_d.any() and cheapest(meets_d) == cheapest(everything)
        ):
            ch = cheapest(everything)
            clauses.append(
                Phrase(
                    N_("the cheapest option costs {cost} ({time}, {option})"),
                    cost=money(ch.total_cost_usd),
                    time=format_hours(ch.job_time_h),
                    option=ch.label,
                )
            )
    left_out = ctx.cands.excluded_counts().get(Reason.COUNTRY.value, 0)
    if c.countries and left_out > 0:
        clauses.append(
            Phrase(
                _COUNTRIES_LEFT_OUT[left_out == 1],
                countries=listed(grouped_codes(c.countries)),
                n=f"{left_out:,}",
            )
        )
    hosts, left_out = hosts_left_out(ctx.cands, ctx.offers)
    if hosts > 0:
        clauses.append(Phrase(_HOSTS_LEFT_OUT[hosts == 1], hosts=f"{hosts:,}", n=f"{left_out:,}"))
    if d is not None and not meets_d.any():
        # more instances may meet it where a count limit, not the GPU's speed, ended the search
        cands = ctx.cands
        limits = deadline_limits(cands, costs, pre, ctx.offers, ctx.job, c, hours_at=ctx.hours_at)
        clauses += [limit.words for limit in limits]
    if not clauses:
        return head
    return Phrase(
        _HEAD_AND_CLAUSES, head=head, clauses=_joined(clauses, _SEMICOLON_ONE_MORE, "clauses", "clause")
    )


#: Instance types a refusal names of those whose unknown network held options back (the rest counted).
_NAMED_INSTANCES = 3


def _held_by_network(ctx: PlanContext, pre: IntArray) -> Phrase | None:
    """Where options on several nodes were timed at the slowest network because the catalog gives
    their instances none: how many, which instances, what the best fabric would make of the fastest,
    and the flag that states the real one (``plan --network-gbps``); None where there are none."""
    from gpuplan.perf.links import FAST_NETWORK_GBIT_S, SLOW_NETWORK_GBIT_S
    from gpuplan.plan.unknowns import Fact

    costs = ctx.costs
    cand = costs.idx[pre]
    held = pre[((costs.unknown[pre] & int(Fact.NETWORK)) != 0) & (ctx.cands.nodes[cand] > 1)]
    if held.size == 0:
        return None
    best = ctx.best.time_h[held] if ctx.best is not None else np.full(held.size, np.nan)
    # the instances named fastest first at their best case: the ones the real fabric would decide
    order = np.argsort(np.where(np.isfinite(best), best, np.inf), kind="stable")
    offer = ctx.cands.offer[costs.idx[held[order]]]
    names = list(
        dict.fromkeys(
            f"{p} {t}"
            for p, t in zip(ctx.offers.provider[offer], ctx.offers.instance_type[offer], strict=True)
        )
    )
    bound = ctx.bounds.network_gbps if ctx.bounds is not None else None
    slow = bound if bound is not None else SLOW_NETWORK_GBIT_S
    shown = listed(names[:_NAMED_INSTANCES])
    more = len(names) - _NAMED_INSTANCES
    words = Phrase(
        N_(
            "{count} options on several nodes of {instances} were timed at the slowest network, {slow} "
            "Gbit/s TCP: the catalog gives those instances none"
        ),
        count=f"{held.size:,}",
        instances=shown if more <= 0 else Phrase(N_("{names} and {n} more"), names=shown, n=more),
        slow=f"{slow:g}",
    )
    if np.isfinite(best).any():
        words = Phrase(
            N_("{words} (over a {fast} Gbit/s RDMA fabric the fastest would take {time})"),
            words=words,
            fast=f"{FAST_NETWORK_GBIT_S:,g}",
            time=format_hours(float(np.nanmin(best))),
        )
    return Phrase(
        N_(
            "{words}; if you know your provider's fabric, give it: --network-gbps N --network-kind "
            "rdma or tcp"
        ),
        words=words,
    )


def _joined(parts: Sequence[Phrase], pattern: str, many: str, one: str) -> Phrase:
    """``parts`` joined two by two with ``pattern`` (``"{items}, {item}"``), each join a Phrase
    itself, so that the separator is written in the user's language too."""
    joined = parts[0]
    for part in parts[1:]:
        joined = Phrase(pattern, **{many: joined, one: part})
    return joined
