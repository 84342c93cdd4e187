"""What a service's answers weigh on the wire: the bytes a chat API sends its clients, which leave
the cloud to the internet and are billed at the region's internet egress price every month.

A workload says how many answers (``serving.mean_requests_per_s``, else the peak, all month) and
how many tokens each (``serving.output_tokens``), not whether its clients stream them. Streaming is
the larger case, by some fifty times: one server-sent event per token, each a whole
``chat.completion.chunk`` JSON object, against one JSON body for the whole answer. It is taken
unless the workload gives ``serving.response_bytes``: unknown is never the cheaper case.

An image service's answer is one image of ``inputs.image_size`` pixels a side, in a format the
workload does not say: it is taken at its bound, the pixels uncompressed as base64 inside JSON
(:func:`image_answer_bytes`), against a PNG's or a JPEG's fraction of that.
"""

from __future__ import annotations

import math

__all__ = [
    "ANSWER_FIXED_BYTES",
    "IMAGE_BYTES_PER_PIXEL",
    "JPEG_BYTES_PER_PIXEL",
    "PNG_BYTES_PER_PIXEL",
    "STREAMED_TOKEN_BYTES",
    "image_answer_bytes",
    "streamed_answer_bytes",
]

#: One streamed token as vLLM's OpenAI-compatible server sends it, an SSE event
#: ``data: {"id":"chatcmpl-<32 hex>","object":"chat.completion.chunk","created":<10 digits>,
#: "model":"Qwen/Qwen2.5-7B-Instruct","choices":[{"index":0,"delta":{"content":"<text>"},
#: "logprobs":null,"finish_reason":null}]}`` and a blank line: 231 bytes without its text, with
#: a 24-character model name (each character more adds a byte to every event). Measured by
#: serialising ``ChatCompletionStreamResponse`` of vllm/entrypoints/openai/protocol.py as
#: vllm/entrypoints/openai/serving_chat.py does (``chunk.model_dump_json(exclude_unset=True)``,
#: ``f"data: {data}\n\n"``), vllm-project/vllm @0052bed3 and @003fe593, read 2026-12-06, pydantic
#: 2.14. One event per token is the bound: an engine that falls behind its clients merges tokens.
SSE_TOKEN_EVENT_BYTES = 231
#: The text of one token in UTF-8, bytes: English about 4 characters a token, 1 byte each (OpenAI
#: Help Center, "What are tokens and how to count them?", help.openai.com/en/articles/4936856, read
#: 2026-12-06); Chinese 1 character ≈ 0.6 token, so 1.67 characters of 3 bytes (DeepSeek API
#: docs, "Token & Token Usage", api-docs.deepseek.com/quick_start/token_usage, read 2026-12-06).
#: The larger, 5; pydantic writes it unescaped (a CJK character is 3 bytes in the event, measured).
TEXT_BYTES_PER_TOKEN = 5
#: What carries each event to the client besides itself, bytes: its HTTP/1.1 chunk's size line and
#: CRLF (``ec\r\n`` … ``\r\n``, 6; RFC 9112 §7.1), a TLS 1.3 record (5-byte header, 1-byte content
#: type, 16-byte AES-GCM tag: 22; RFC 8446 §5.2) and a TCP/IPv4 segment of its own (20 + 20 bytes of
#: headers + 12 of the timestamps option: 52; RFC 791, RFC 9293, RFC 7323), since tokens come tens
#: of milliseconds apart and asyncio, under uvicorn, sets TCP_NODELAY. The clouds meter IP traffic.
EVENT_FRAMING_BYTES = 6 + 22 + 52
#: One streamed token on the wire, bytes: 231 + 5 + 80 = 316.
STREAMED_TOKEN_BYTES = SSE_TOKEN_EVENT_BYTES + TEXT_BYTES_PER_TOKEN + EVENT_FRAMING_BYTES
#: What an answer sends once, however long, bytes (measured as above): the opening event
#: (``"delta":{"role":"assistant","content":""}``, 250) and ``data: [DONE]`` (14), each with its
#: framing (80); the last token's ``"finish_reason":"stop","stop_reason":null`` (21 more than a
#: token's); the response's headers (``HTTP/1.1 200 OK``, date, ``server: uvicorn``,
#: ``content-type: text/event-stream; charset=utf-8``, ``transfer-encoding: chunked``: 149) and
#: the closing ``0\r\n\r\n`` (5), each in a TLS record and a segment (74). Not counted: a TLS
#: handshake's certificate chain (a few kB), which a client keeping its connection open sends once.
ANSWER_FIXED_BYTES = (250 + EVENT_FRAMING_BYTES) + (14 + EVENT_FRAMING_BYTES) + 21 + (149 + 74) + (5 + 74)


def streamed_answer_bytes(output_tokens: int) -> int:
    """Bytes one streamed answer of ``output_tokens`` sends its client, framing included:
    ``316 × tokens + 747`` (300 tokens: 95,547)."""
    return STREAMED_TOKEN_BYTES * output_tokens + ANSWER_FIXED_BYTES


#: One pixel of a generated image uncompressed, bytes: 8-bit RGB, as diffusers' pipelines return
#: their images (``VaeImageProcessor.numpy_to_pil``: ``(images * 255).round().astype("uint8")``, PIL
#: "RGB"; huggingface/diffusers src/diffusers/image_processor.py). A PNG stores at most that plus a
#: filter byte a row (its deflate keeps incompressible data as stored blocks: RFC 1951 §3.2.4, PNG
#: spec §9.2), which :func:`image_answer_bytes` counts.
IMAGE_BYTES_PER_PIXEL = 3
#: The JSON around it, bytes: ``{"created":1767225600,"data":[{"b64_json":""}]}`` (47), and the
#: response's headers as :data:`ANSWER_FIXED_BYTES` counts them (149, ``content-length`` in place
#: of ``transfer-encoding``, which is no longer).
IMAGE_ENVELOPE_BYTES = 47 + 149
#: What carries a body sent whole besides itself, per byte: a TCP/IPv4 segment's 52 bytes of
#: headers (as :data:`EVENT_FRAMING_BYTES`) per 1,448 it carries (a 1,500-byte Ethernet MTU less
#: them) and a TLS 1.3 record's 22 per 16,384 (its largest, RFC 8446 §5.1).
BODY_FRAMING = 52 / 1448 + 22 / 16384
#: What a PNG or a JPEG of a generated image typically weighs, bytes a pixel: a 1024×1024 PNG about
#: 1.5 MB, a JPEG at quality 90 about 250 kB — the typical sizes, not a bound: they depend on the
#: image's content, which plan does not know.
PNG_BYTES_PER_PIXEL = 1.5
JPEG_BYTES_PER_PIXEL = 0.25


def image_answer_bytes(side: int) -> int:
    """Bytes one generated image of ``side`` × ``side`` pixels sends its client at most, framing
    included: its rows uncompressed (8-bit RGB and a PNG's filter byte a row) as base64 inside JSON,
    with its headers, TLS records and TCP/IP segments (1024: 4,352,183; 128: 68,360)."""
    raw = side * (IMAGE_BYTES_PER_PIXEL * side + 1)
    # base64, 4 bytes for each 3 (RFC 4648 §4): an images API answers the image inside its JSON so
    # (OpenAI's images API, ``data[].b64_json``, the only form gpt-image-1 returns:
    # platform.openai.com/docs/api-reference/images/object, read 2026-12-06)
    body = math.ceil(raw / 3) * 4 + IMAGE_ENVELOPE_BYTES
    return math.ceil(body * (1 + BODY_FRAMING))
