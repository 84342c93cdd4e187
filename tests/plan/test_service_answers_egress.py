"""A service's answers leave the cloud to its clients every month: their bytes (requests × answer
tokens × bytes a streamed token) are priced at the region's internet egress — its conservative
bound where the catalog does not know it, never 0 — while a job's egress is what it was."""

from __future__ import annotations

from gpuplan.plan.answer_bytes import ANSWER_FIXED_BYTES, STREAMED_TOKEN_BYTES, streamed_answer_bytes


def test_the_answer_of_a_streamed_token_is_its_sse_event_and_framing() -> None:
    # 231 + 5 + (6 + 22 + 52) = 316; (250 + 80) + (14 + 80) + 21 + (149 + 74) + (5 + 74) = 747
    assert STREAMED_TOKEN_BYTES == 316
    assert ANSWER_FIXED_BYTES == 747
    assert streamed_answer_bytes(300) == 95_547
