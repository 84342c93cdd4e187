"""The request lengths a service's p95 targets are checked at: the 95th-percentile prompt and answer.

A service's p95 latency is that of its long requests, not of a request of the mean length: on the
Azure conversation trace (below) the mean answer is 211 tokens and the 95th percentile 451, so at
75 ms a token the mean request takes 16 s and one in twenty over 34 s. The serving block states its
mean lengths (``prompt_tokens``, ``output_tokens``) and may state their 95th percentiles
(``prompt_tokens_p95``, ``output_tokens_p95``). Where it does not, they are not taken as the mean:
each is the mean times the larger p95/mean ratio of the two published Azure LLM inference traces
(conversation and code), the longer tail of the two.

Source: Microsoft Azure, "Azure LLM inference trace 2023" (AzureLLMInferenceTrace_conv.csv and
AzureLLMInferenceTrace_code.csv), github.com/Azure/AzurePublicDataset, collected 2023-11-16, one
hour each, read at commit b469a113 (2025-10-20); Patel et al., "Splitwise: Efficient generative LLM
inference using phase splitting", ISCA 2024. Their p95 (the 95th-percentile request) over the mean:

| trace | prompt (ContextTokens) | answer (GeneratedTokens) |
|---|---|---|
| conversation, 19,366 requests | 4,083 / 1,154.7 = 3.536 | 451 / 211.1 = 2.136 |
| code, 8,819 requests | 7,315 / 2,047.8 = 3.572 | 90 / 27.9 = 3.228 |

The p95 latency is checked at a request of the mean prompt and the p95 answer, the time to first
token at a request of the p95 prompt. On those traces, at 5,538 prompt tokens/s and 75 ms (conv) or
28 ms (code) a token, the p95 of the requests' own times is 34.03 s (conv) and 2.98 s (code); the
mean prompt with the p95 answer gives 34.03 s and 2.89 s, the p95 prompt with it 34.56 s and 3.84 s
(a request long in both is not the p95 request).

``gpuplan simulate`` draws a generated trace's lengths from the same figures
(:func:`length_distribution`): each a log-normal whose mean is the workload's and whose 95th
percentile is this module's p95, so that its requests' p95 answer is the one the plan checks its p95
latency at. The tail past the 99.9th percentile is cut there (a longest request, not one of days),
and the spread chosen so that the mean is still the workload's; such a log-normal reaches a p95 of
at most :data:`MOST_P95_OVER_MEAN` × its mean (above it, a trace of the traffic's own lengths is
needed).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from statistics import NormalDist

import numpy as np

from gpuplan.i18n import _

__all__ = [
    "MOST_P95_OVER_MEAN",
    "OUTPUT_P95_OVER_MEAN",
    "PROMPT_P95_OVER_MEAN",
    "LengthDistribution",
    "RequestTail",
    "drawn_tail",
    "length_distribution",
    "request_tail",
    "tail_source",
]

#: A prompt's p95 over its mean where the workload gives no ``prompt_tokens_p95``: the code trace's
#: 7,315 / 2,047.8 (the conversation trace's is 3.536; see the module docstring for the source).
PROMPT_P95_OVER_MEAN = 3.572
#: An answer's p95 over its mean where the workload gives no ``output_tokens_p95``: the code trace's
#: 90 / 27.9 (the conversation trace's is 451 / 211.1 = 2.136).
OUTPUT_P95_OVER_MEAN = 3.228


@dataclass(frozen=True, kw_only=True)
class RequestTail:
    """The 95th-percentile request lengths a service's p95 targets are checked at."""

    prompt_tokens: int
    """The p95 prompt, tokens (the time-to-first-token check's)."""
    output_tokens: int
    """The p95 answer, tokens (the p95 latency check's)."""
    prompt_stated: bool
    """Whether the workload gives it (``prompt_tokens_p95``); False: the mean × the trace's ratio."""
    output_stated: bool
    """Whether the workload gives it (``output_tokens_p95``); False: the mean × the trace's ratio."""


def request_tail(
    *,
    prompt_tokens: int,
    output_tokens: int,
    prompt_tokens_p95: int | None = None,
    output_tokens_p95: int | None = None,
) -> RequestTail:
    """The p95 lengths: the stated ones, else each mean × its published ratio, rounded up."""

    def scaled(mean: int, ratio: float) -> int:
        return max(mean, math.ceil(mean * ratio - 1e-9))

    return RequestTail(
        prompt_tokens=prompt_tokens_p95
        if prompt_tokens_p95 is not None
        else scaled(prompt_tokens, PROMPT_P95_OVER_MEAN),
        output_tokens=output_tokens_p95
        if output_tokens_p95 is not None
        else scaled(output_tokens, OUTPUT_P95_OVER_MEAN),
        prompt_stated=prompt_tokens_p95 is not None,
        output_stated=output_tokens_p95 is not None,
    )


def tail_source(tail: RequestTail) -> str:
    """Where the p95 request's lengths come from, in words."""
    if tail.prompt_stated and tail.output_stated:
        return _("serving.prompt_tokens_p95 and output_tokens_p95")
    trace = _("the longer tail of the Azure LLM inference traces 2023 (code and conversation)")
    if tail.prompt_stated:
        return _(
            "the prompt from serving.prompt_tokens_p95, the answer the mean × {ratio:g}, {trace}; give "
            "serving.output_tokens_p95 for your traffic's"
        ).format(ratio=OUTPUT_P95_OVER_MEAN, trace=trace)
    if tail.output_stated:
        return _(
            "the answer from serving.output_tokens_p95, the prompt the mean × {ratio:g}, {trace}; give "
            "serving.prompt_tokens_p95 for your traffic's"
        ).format(ratio=PROMPT_P95_OVER_MEAN, trace=trace)
    return _(
        "the answer the mean × {output:g} and the prompt the mean × {prompt:g}, {trace}; give "
        "serving.prompt_tokens_p95 and output_tokens_p95 for your traffic's"
    ).format(prompt=PROMPT_P95_OVER_MEAN, output=OUTPUT_P95_OVER_MEAN, trace=trace)


_Z95 = NormalDist().inv_cdf(0.95)
#: Drawn lengths are cut at the log-normal's 99.9th percentile (its mean kept: see the module).
CUT_QUANTILE = 0.999
_ZCUT = NormalDist().inv_cdf(CUT_QUANTILE)


def _mean_over_p95(sigma: float, longest_over_p95: float | None = None) -> float:
    """The mean of a log-normal of spread ``sigma`` cut at :data:`CUT_QUANTILE`, over its p95:
    ``e^(σ²/2 − z95·σ)·Φ(zcut − σ) + (1 − Φ(zcut))·e^((zcut − z95)·σ)``; 1 at σ = 0. With
    ``longest_over_p95``, cut at that many times its p95 where that is lower."""
    z = _ZCUT
    if longest_over_p95 is not None and sigma > 0:
        z = min(z, _Z95 + math.log(longest_over_p95) / sigma)
    above = 1.0 - CUT_QUANTILE if z == _ZCUT else 1.0 - NormalDist().cdf(z)
    return math.exp(sigma * sigma / 2 - _Z95 * sigma) * NormalDist().cdf(z - sigma) + above * math.exp(
        (z - _Z95) * sigma
    )


def _widest() -> float:
    """The spread at which :func:`_mean_over_p95` is least (the longest p95 for a mean), by golden
    section on (0, 4) (it falls, then rises)."""
    lo, hi = 0.0, 4.0
    g = (math.sqrt(5) - 1) / 2
    for _step in range(80):
        a, b = hi - g * (hi - lo), lo + g * (hi - lo)
        if _mean_over_p95(a) < _mean_over_p95(b):
            hi = b
        else:
            lo = a
    return (lo + hi) / 2


_WIDEST_SIGMA = _widest()
#: The longest p95 over its mean a cut log-normal holds (4.01): a stated p95 beyond it is not drawn.
MOST_P95_OVER_MEAN = 1.0 / _mean_over_p95(_WIDEST_SIGMA)


def _spread_for(mean_over_p95: float, widest: float, longest_over_p95: float | None = None) -> float:
    """The spread in (0, ``widest``) whose :func:`_mean_over_p95` (cut at ``longest_over_p95``
    where given) is ``mean_over_p95``, by bisection: the lower bound after 60 halvings, so that it
    holds at least that mean. :func:`_mean_over_p95` falls over the interval."""
    lo, hi = 0.0, widest
    for _step in range(60):
        mid = (lo + hi) / 2
        if _mean_over_p95(mid, longest_over_p95) > mean_over_p95:
            lo = mid
        else:
            hi = mid
    return lo


@dataclass(frozen=True, kw_only=True)
class LengthDistribution:
    """Request lengths, tokens: a log-normal of mean :attr:`mean` and 95th percentile :attr:`p95`,
    cut at :attr:`longest` (its 99.9th percentile)."""

    mean: int
    p95: int
    sigma: float
    """Its spread, log scale (0: every request at the mean)."""
    longest: int
    """The cut: no drawn length is longer."""
    stated: bool = False
    """Whether the workload states its p95 (``*_tokens_p95``); False: the mean × the trace's ratio."""

    def draw(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """``n`` lengths, whole tokens, at least 1."""
        if self.sigma == 0.0:
            return np.full(n, self.mean, dtype=np.int64)
        mu = math.log(self.p95) - _Z95 * self.sigma
        drawn = np.minimum(rng.lognormal(mu, self.sigma, n), self.longest)
        return np.maximum(np.rint(drawn), 1).astype(np.int64)

    def capped(self, longest: int) -> LengthDistribution | None:
        """These lengths cut at ``longest`` tokens instead (the longest request a replica holds), the
        spread narrowed so that the mean and the p95 stay; None where ``longest`` is below the p95
        (no such cut keeps it). Itself where its own cut is no longer."""
        if longest >= self.longest:
            return self
        if longest < self.p95 or self.sigma == 0.0:
            return None
        # the narrower spread whose mean, cut at ``longest``, is still the mean (cut lower, a spread
        # holds a lower mean: the one that holds it is narrower than this one's)
        sigma = _spread_for(self.mean / self.p95, self.sigma, longest / self.p95)
        return replace(self, sigma=sigma, longest=longest)

    def redrawn(self, drawn: np.ndarray, capped: LengthDistribution) -> tuple[np.ndarray, int]:
        """``drawn`` (lengths drawn from these) as the same draws of ``capped`` (:meth:`capped`): each
        the same quantile of the narrower spread, at most its cut; and how many were cut there."""
        if capped is self:
            return drawn, 0
        spread = self.p95 * (np.maximum(drawn, 1) / self.p95) ** (capped.sigma / self.sigma)
        cut = int(np.count_nonzero(spread > capped.longest))
        return np.maximum(np.rint(np.minimum(spread, capped.longest)), 1).astype(np.int64), cut


def length_distribution(mean: int, p95: int, *, stated: bool = False) -> LengthDistribution | None:
    """The lengths of mean ``mean`` and p95 ``p95`` (:class:`LengthDistribution`); None where no
    such log-normal exists: a p95 below the mean or above :data:`MOST_P95_OVER_MEAN` × it."""
    ratio = p95 / mean
    if ratio < 1.0 or ratio > MOST_P95_OVER_MEAN:
        return None
    # the narrower of the two spreads that hold both (the mean over p95 falls with the spread
    # up to the widest, then rises)
    sigma = 0.0 if ratio == 1.0 else _spread_for(1.0 / ratio, _WIDEST_SIGMA)
    return LengthDistribution(
        mean=mean,
        p95=p95,
        sigma=sigma,
        longest=math.ceil(p95 * math.exp((_ZCUT - _Z95) * sigma)),
        stated=stated,
    )


def drawn_tail(prompt: LengthDistribution, output: LengthDistribution) -> RequestTail:
    """The p95 request of lengths drawn from ``prompt`` and ``output`` (and whether the workload
    states each), as :func:`request_tail` gives it."""
    return RequestTail(
        prompt_tokens=prompt.p95,
        output_tokens=output.p95,
        prompt_stated=prompt.stated,
        output_stated=output.stated,
    )
