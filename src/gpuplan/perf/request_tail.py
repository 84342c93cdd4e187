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
"""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = ["OUTPUT_P95_OVER_MEAN", "PROMPT_P95_OVER_MEAN", "RequestTail", "request_tail"]

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
