"""A reverse proxy that forwards one path prefix only, as ``location /airflow/ { proxy_pass ...; }`` in nginx does.

Usage: ``prefix_proxy.py <port> <prefix> <upstream>``. A request whose path is ``<prefix>`` or starts with
``<prefix>/`` goes to ``<upstream>`` with its path, query, method, headers and body unchanged; any other path gets a
404 and a ``refused <method> <path>`` line on standard output. A page that links or loads outside the prefix therefore
breaks here exactly as it would behind a real proxy, and the log names what it asked for.
"""

from __future__ import annotations

import sys

import httpx
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

# Hop-by-hop headers (RFC 9110, section 7.6.1) describe one connection and are never forwarded; httpx decodes the
# body, so its length and encoding are the proxy's own.
_NOT_FORWARDED = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-connection",
        "te",
        "trailer",
        "transfer-encoding",
        "upgrade",
        "host",
        "content-length",
        "content-encoding",
    }
)


def make_app(prefix: str, upstream: str) -> Starlette:
    client = httpx.AsyncClient(base_url=upstream, timeout=120.0)

    async def forward(request: Request) -> Response:
        path = request.url.path
        if path != prefix and not path.startswith(prefix + "/"):
            print(f"refused {request.method} {path}", flush=True)
            return PlainTextResponse(f"{path} is outside {prefix}", status_code=404)
        headers = [(k, v) for k, v in request.headers.items() if k.lower() not in _NOT_FORWARDED]
        headers.append(("x-forwarded-host", request.headers.get("host", "")))
        answer = await client.request(
            request.method,
            request.url.path,
            params=request.url.query,
            headers=headers,
            content=await request.body(),
        )
        kept = [(k, v) for k, v in answer.headers.multi_items() if k.lower() not in _NOT_FORWARDED]
        response = Response(answer.content, status_code=answer.status_code)
        for key, value in kept:
            response.headers.append(key, value)
        return response

    methods = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]
    return Starlette(routes=[Route("/{path:path}", forward, methods=methods)])


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print("usage: prefix_proxy.py <port> <prefix> <upstream>", file=sys.stderr)
        return 2
    port, prefix, upstream = int(argv[0]), "/" + argv[1].strip("/"), argv[2]
    uvicorn.run(make_app(prefix, upstream), host="127.0.0.1", port=port, log_level="warning")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
