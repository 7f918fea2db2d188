"""The table in a browser: the web app's files, served on a port of their own.

The app is static files in `clients/web/` (HTML, CSS, ES modules, a vendored
library), read from disk on every request: no build step, nothing fetched from
elsewhere, and an edited file is served at the next reload. Its own port, not the
websocket's, so a deployment may put the two behind different proxies, turn the app
off (`--no-web`) or keep `/ws`, `/healthz` and `/metrics` as they were.

Plain HTTP/1.1 (`plain_http.py`, on h11) reads the requests and `WebApp.respond`
answers each: keep-alive and pipelined requests are answered in order, a request that
is no HTTP gets a 400 and its connection closed, each connection within the bounds
`HttpLimits` sets (`serve(limits=...)`). Nothing is upgraded here:

* `GET /`: `index.html`; `GET /<file>`: a file under the root whose suffix is in
  `CONTENT_TYPES`, with that type. Anything else, a directory, a hidden name
  (`.git`, `.env`), `..`, or a path that leaves the root through a link, is 404;
* `GET /config.json`: where the websocket is, `{"ws_port": 8765, "ws_path": "/ws"}`.
  The page connects to `ws://<its own hostname>:<ws_port><ws_path>`, or, loaded over
  https (a TLS proxy serving the app and proxying `/ws` on one origin),
  `wss://<its own host><ws_path>`;
* a method other than GET: 405 (a HEAD's answer, as every HEAD's, without its body).

Every answer says `Cache-Control: no-cache` (the files are small: a stale module
beside a fresh one would break the page), `X-Content-Type-Options: nosniff` and a
Content-Security-Policy that lets the page run only its own scripts and styles and
connect only to its own origin and websockets.

The page takes its credentials from the link's fragment (`#join=CODE`, `#host=TOKEN`):
a browser never sends a fragment, so codes and tokens reach no request line, server
log or Referer. The websocket is on another port, so another origin: the websocket
edge accepts any Origin, as it must, since a connection is authorised by the token in
its `hello` and the server sets no cookie a foreign page could ride on.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from http import HTTPStatus
from pathlib import Path
from urllib.parse import unquote

from websockets.http11 import Request, Response

from server.plain_http import HttpLimits, HttpServer, http_response, serve_http

WEB_ROOT = Path(__file__).resolve().parents[1] / "clients" / "web"
"""The web app's files, beside the terminal client (`clients/`) they share a protocol with."""

INDEX = "index.html"
CONFIG_PATH = "/config.json"

CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".json": "application/json",
    ".map": "application/json",
    ".webmanifest": "application/manifest+json",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".ico": "image/x-icon",
    ".webp": "image/webp",
    ".woff2": "font/woff2",
    ".ogg": "audio/ogg",
    ".mp3": "audio/mpeg",
    ".wav": "audio/wav",
    ".txt": "text/plain; charset=utf-8",
    ".md": "text/plain; charset=utf-8",
}
"""The files served, by suffix: a fixed table rather than the system's `mimetypes`,
which differs between machines (`.js` as `application/javascript` or `text/plain`
would stop a module from loading under `nosniff`)."""

CONTENT_SECURITY_POLICY = "; ".join(
    (
        "default-src 'none'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "font-src 'self'",
        "media-src 'self'",
        "manifest-src 'self'",
        "connect-src 'self' ws: wss:",
        "base-uri 'none'",
        "form-action 'none'",
    )
)
"""Only the app's own files run or style the page (no inline script, no `eval`), and
it may connect to its own origin and to websockets: the websocket is on another port,
so another origin, and its host is the page's own, which CSP cannot name in advance.
Images may be `data:` URLs, which run nothing. Framing is not forbidden: streaming
software may embed the spectator's overlay."""

SECURITY_HEADERS = (
    ("Cache-Control", "no-cache"),
    ("X-Content-Type-Options", "nosniff"),
    ("Content-Security-Policy", CONTENT_SECURITY_POLICY),
    ("Referrer-Policy", "no-referrer"),
)


@dataclass(frozen=True)
class WebApp:
    """The web app's answers: `root`'s files and where the websocket is."""

    ws_port: int
    ws_path: str = "/ws"
    root: Path = WEB_ROOT

    def respond(self, request: Request) -> Response:
        """The answer to one request (no socket needed: tested as is)."""
        if request.method != "GET":
            body = b"" if request.method == "HEAD" else b"only GET\n"  # HEAD: never a body
            response = _response(HTTPStatus.METHOD_NOT_ALLOWED, body, "text/plain")
            response.headers["Allow"] = "GET"
            return response
        path = request.path.split("?", 1)[0]
        if path == CONFIG_PATH:
            config = {"ws_port": self.ws_port, "ws_path": self.ws_path}
            return _response(HTTPStatus.OK, json.dumps(config).encode(), "application/json")
        file = self.file(path)
        if file is None:
            return _response(HTTPStatus.NOT_FOUND, b"not found\n", "text/plain; charset=utf-8")
        return _response(HTTPStatus.OK, file.read_bytes(), CONTENT_TYPES[file.suffix])

    def file(self, path: str) -> Path | None:
        """The file a request path names under `root`, or None when it names none
        that is served: an unknown suffix, a directory, a hidden name, `..`, a
        backslash, a NUL, or a link out of the root."""
        if not path.startswith("/"):
            return None
        relative = unquote(path[1:]) or INDEX
        parts = relative.split("/")
        if (
            "\\" in relative
            or "\0" in relative
            or any(not part or part.startswith(".") for part in parts)
        ):
            return None
        root = self.root.resolve()
        try:
            found = root.joinpath(*parts).resolve(strict=True)
        except (OSError, RuntimeError):  # missing, or a loop of links
            return None
        if not found.is_relative_to(root) or not found.is_file():
            return None
        return found if found.suffix in CONTENT_TYPES else None

    async def serve(self, hostname: str, port: int, limits: HttpLimits | None = None) -> HttpServer:
        """Start answering on `hostname:port`; the server's `sockets` tell the port."""
        return await serve_http(
            self.respond, hostname, port, limits=limits, server_header="verse-combat"
        )


def _response(status: HTTPStatus, body: bytes, content_type: str) -> Response:
    return http_response(status, body, content_type, SECURITY_HEADERS)


__all__ = ["CONTENT_TYPES", "WEB_ROOT", "WebApp"]
