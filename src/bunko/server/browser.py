"""Which browsers may talk to the server: the ``Host`` a request names, and the ``Origin`` of one that changes state.

A collection without keys makes anyone who reaches the port admin, and on loopback "anyone" includes every web
page the user opens: a page may POST a form or a multipart upload to ``http://127.0.0.1:8765`` without a CORS
preflight, and a DNS-rebinding page (``attacker.example`` re-resolved to 127.0.0.1) is even same-origin with the
server, so it could read ``/search``. Keys do not fully help either: the page cannot read a key, but a request
the browser sends is still sent. So, before any route runs (`middleware.LimitAndMeasure` asks `BrowserPolicy`):

- ``Host`` must name this server: a loopback name or address (``localhost``, 127.0.0.0/8, ``::1``), the address
  it is bound to (bound to every interface: any IP address and the machine's own host name), or a name in
  ``[server] allowed_hosts``. A rebinding page's requests carry its own name and get 400 ``BAD_HOST``.
- POST, PUT, PATCH and DELETE whose ``Origin`` is neither the server's own (the origin its ``Host`` names) nor in
  ``[server] allowed_origins`` get 403 ``FORBIDDEN_ORIGIN``, keys or not (``Origin: null`` included). Without an
  ``Origin``, a browser's ``Sec-Fetch-Site: cross-site``/``same-site`` is refused the same way. Programs (curl,
  the CLI, SDKs) send neither header and pass.
- No CORS header is ever sent, so no other origin's script may read a response.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

from bunko.config import ServerConfig
from bunko.errors import ConfigError

LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
WILDCARD_ADDRESSES = frozenset({"0.0.0.0", "::", ""})
STATE_CHANGING = frozenset({"POST", "PUT", "PATCH", "DELETE"})
_DEFAULT_PORTS = {"http": "80", "https": "443"}


def split_host(value: str) -> tuple[str, str | None]:
    """``"Example.COM.:8765"`` → ``("example.com", "8765")``; ``"[::1]:80"`` → ``("::1", "80")``."""
    value = value.strip().lower()
    if value.startswith("["):
        name, _, rest = value[1:].partition("]")
        port = rest[1:] if rest.startswith(":") else None
    elif value.count(":") == 1:
        name, _, port_text = value.partition(":")
        port = port_text
    else:  # a name, or a bare IPv6 address (not valid in Host, but unambiguous)
        name, port = value, None
    return name.rstrip("."), (port or None)


def normalize_origin(origin: str) -> str | None:
    """``"HTTP://Example.com:80/"`` → ``"http://example.com"``; None for ``null`` or anything that is no origin."""
    try:
        parts = urlsplit(origin.strip())
        port = parts.port
    except ValueError:
        return None
    if parts.scheme not in _DEFAULT_PORTS or not parts.hostname:
        return None
    host = parts.hostname.rstrip(".")
    host = f"[{host}]" if ":" in host else host
    shown_port = "" if port is None or str(port) == _DEFAULT_PORTS[parts.scheme] else f":{port}"
    return f"{parts.scheme}://{host}{shown_port}"


def _is_ip(name: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(name)
    except ValueError:
        return None


@dataclass(frozen=True)
class BrowserPolicy:
    hosts: frozenset[str]
    """Host names (lower case, no port) the server answers to."""
    origins: frozenset[str]
    """Normalised origins, besides the server's own, that may send state-changing requests."""
    any_host: bool = False
    any_address: bool = False
    """Bound to every interface: a request naming any IP address reached this machine by that address."""

    @classmethod
    def build(cls, bound: str | None = None, allowed_hosts: Iterable[str] = (), allowed_origins: Iterable[str] = ()) -> BrowserPolicy:
        """Loopback names, the bound address (for a wildcard: the machine's names), and the configured ones."""
        hosts = set(LOOPBACK_NAMES)
        any_address = False
        if bound is not None:
            name = split_host(bound if ":" not in bound or bound.startswith("[") else f"[{bound}]")[0]
            if name in WILDCARD_ADDRESSES:
                any_address = True
                hosts |= {socket.gethostname().lower(), socket.getfqdn().lower()}
            else:
                hosts.add(name)
        configured = [h.strip() for h in allowed_hosts if h.strip()]
        hosts |= {split_host(h)[0] for h in configured if h != "*"}
        origins = set()
        for origin in allowed_origins:
            normalized = normalize_origin(origin)
            if normalized is None:
                raise ConfigError(f"{origin!r} is not a web origin; write it as scheme://host[:port], e.g. https://intranet.example")
            origins.add(normalized)
        return cls(frozenset(hosts), frozenset(origins), any_host="*" in configured, any_address=any_address)

    @classmethod
    def for_collections(
        cls, configs: Sequence[ServerConfig], bound: str | None = None, allowed_hosts: Sequence[str] = (), allowed_origins: Sequence[str] = ()
    ) -> BrowserPolicy:
        """What the served collections' ``[server]`` sections allow together, plus these (from the command line)."""
        hosts = [*allowed_hosts, *(h for c in configs for h in c.allowed_hosts)]
        origins = [*allowed_origins, *(o for c in configs for o in c.allowed_origins)]
        return cls.build(bound, hosts, origins)

    def host_allowed(self, host: str) -> bool:
        if self.any_host:
            return True
        name, _ = split_host(host)
        if name in self.hosts:
            return True
        address = _is_ip(name)
        return address is not None and (address.is_loopback or self.any_address)

    def refusal(self, method: str, headers: Sequence[tuple[bytes, bytes]]) -> tuple[int, str, str] | None:
        """Why this request is refused (status, code, message), or None when it may go on."""
        hosts = [v.decode("latin-1") for k, v in headers if k == b"host"]
        for host in hosts:
            if not self.host_allowed(host):
                return 400, "BAD_HOST", (
                    f"this server does not answer to the host name {split_host(host)[0]!r}; add it to [server] allowed_hosts "
                    "in bunko.toml (or --allowed-host) if it is this server's name"
                )
        if method.upper() not in STATE_CHANGING:
            return None
        origins = [v.decode("latin-1") for k, v in headers if k == b"origin"]
        if not origins:
            site = next((v.decode("latin-1").strip().lower() for k, v in headers if k == b"sec-fetch-site"), None)
            if site in ("cross-site", "same-site"):
                return 403, "FORBIDDEN_ORIGIN", f"a {site} page may not send {method} requests to this server"
            return None
        own = self.own_origins(hosts[0]) if len(hosts) == 1 else set()
        for origin in origins:
            normalized = normalize_origin(origin)
            if normalized is None or (normalized not in own and normalized not in self.origins):
                return 403, "FORBIDDEN_ORIGIN", (
                    f"requests from the web origin {origin.strip()[:100]!r} may not change anything here; add it to "
                    "[server] allowed_origins in bunko.toml (or --allowed-origin) if it is yours"
                )
        return None

    @staticmethod
    def own_origins(host: str) -> set[str]:
        """The origins a page served by this server has, given the request's Host (http or https in front)."""
        own = set()
        for scheme in _DEFAULT_PORTS:
            normalized = normalize_origin(f"{scheme}://{host.strip()}")
            if normalized is not None:
                own.add(normalized)
        return own
