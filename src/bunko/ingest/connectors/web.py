"""A website: the pages reachable by links from a start URL without leaving a URL prefix, as robots.txt allows.

The crawl is breadth-first from `url`, follows `<a href>` links (and redirects) whose address starts with
`prefix` (default: the start URL's folder), and asks the site's robots.txt (RFC 9309, as Python's
`urllib.robotparser` reads it) before every request, waiting its Crawl-delay between requests. A page that says
`<meta name="robots" content="noindex">` is not indexed; `nofollow` stops its links being followed. HTML, text,
Markdown, PDF and Office files become documents, named `<source>:<path>`; other types are passed over.
An HTML page that yields no text but has links (a site index, a start page of links only: the HTML parser drops
link lists as navigation) is a crawl node: its links are followed, it is not a document, so it never fails as
EMPTY; the listing's detail names those pages (`crawl_nodes`).

The crawl reads every page to find the next ones, so listing is reading: a page's version is the hash of its
bytes, kept on disk until the sync hands it to ingest. A page that answers 404 or 410 is gone (its document is
deleted); a server error, a refusal (401, 403, 429) or a timeout makes the listing incomplete, and an
incomplete listing deletes nothing. robots.txt that cannot be read (a 5xx or no answer) stops the crawl
(RFC 9309: assume everything is disallowed); a 4xx robots.txt allows everything.
Credentials (`token` for a bearer token, or a `headers` table) come from the secrets file or the environment.
"""

from __future__ import annotations

import hashlib
import shutil
import tempfile
import time
from collections import deque
from pathlib import Path
from typing import Literal
from urllib.parse import urldefrag, urljoin, urlsplit, urlunsplit
from urllib.robotparser import RobotFileParser

import httpx
from pydantic import Field, field_validator

from bunko.errors import DocumentError
from bunko.ingest.connectors.base import Item, Listing, NamedSource, Secrets, SourceError, SourceSpec
from bunko.schema import ErrorCode

DOCUMENT_TYPES = {
    "text/html": ".html", "application/xhtml+xml": ".html", "text/plain": ".txt", "text/markdown": ".md",
    "text/x-markdown": ".md", "application/pdf": ".pdf", "text/csv": ".csv", "application/json": ".json",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document": ".docx",
    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": ".xlsx",
    "application/vnd.openxmlformats-officedocument.presentationml.presentation": ".pptx",
}
GONE = (404, 410)


def normalize(url: str) -> str:
    """One spelling per page: no fragment, lower-case scheme and host, '/' for an empty path."""
    url = urldefrag(url)[0]
    parts = urlsplit(url)
    return urlunsplit((parts.scheme.lower(), parts.netloc.lower(), parts.path or "/", parts.query, ""))


class WebSpec(SourceSpec):
    type: Literal["web"] = "web"
    url: str = Field(min_length=1, description="Where the crawl starts.")
    prefix: str | None = Field(None, description="Only URLs starting with this are read (default: the start URL's folder).")
    max_pages: int = Field(1000, ge=1, description="Pages read at most per sync; a crawl stopped here deletes nothing.")
    user_agent: str = Field("bunko", min_length=1, description="The name robots.txt rules are matched against, sent as User-Agent.")
    delay: float = Field(0.0, ge=0, description="Seconds between requests at least (robots.txt Crawl-delay raises it).")
    timeout: float = Field(30.0, gt=0, description="Seconds to wait for a page.")

    @field_validator("url", "prefix")
    @classmethod
    def _http(cls, value: str | None) -> str | None:
        if value is not None and urlsplit(value).scheme not in ("http", "https"):
            raise ValueError(f"{value!r} is not an http:// or https:// URL")
        return value

    def start(self) -> str:
        return normalize(self.url)

    def scope(self) -> str:
        if self.prefix:
            return normalize(self.prefix)
        start = self.start()
        return start[: start.rfind("/") + 1] if urlsplit(start).path else start

    def target(self) -> str:
        return f"{self.url} within {self.scope()}"


class WebSource(NamedSource):
    def __init__(self, name: str, spec: WebSpec, secrets: Secrets, max_bytes: int) -> None:
        self.name = name
        self.spec = spec
        self.prefix = spec.scope()
        self.max_bytes = max_bytes
        headers = {"User-Agent": spec.user_agent}
        token = secrets.get("token")
        if token:
            headers["Authorization"] = f"Bearer {token}"
        extra = secrets.get("headers")
        if isinstance(extra, dict):
            headers.update({str(k): str(v) for k, v in extra.items()})
        self._client = httpx.Client(headers=headers, timeout=spec.timeout, follow_redirects=False)
        self._folder = Path(tempfile.mkdtemp(prefix=f"bunko-web-{name}-"))
        self._files: dict[str, Path] = {}
        self._too_large: set[str] = set()
        self._last_request = 0.0
        self._delay = spec.delay

    def key_of(self, url: str) -> str:
        parts = urlsplit(url)
        return parts.path + (f"?{parts.query}" if parts.query else "")

    def _wait(self) -> None:
        pause = self._last_request + self._delay - time.monotonic()
        if pause > 0:
            time.sleep(pause)
        self._last_request = time.monotonic()

    def _robots(self) -> RobotFileParser:
        parts = urlsplit(self.prefix)
        address = urlunsplit((parts.scheme, parts.netloc, "/robots.txt", "", ""))
        robots = RobotFileParser(address)
        try:
            response = self._client.get(address, follow_redirects=True)
        except httpx.HTTPError as exc:
            raise SourceError(f"source {self.name}: cannot read {address} ({type(exc).__name__}); nothing is crawled without it") from None
        if response.status_code >= 500:
            raise SourceError(f"source {self.name}: {address} answered {response.status_code}; nothing is crawled until it can be read")
        if response.status_code >= 400:
            robots.parse([])  # no robots.txt: everything is allowed
        else:
            robots.parse(response.text.splitlines())
        delay = robots.crawl_delay(self.spec.user_agent)
        if delay:
            self._delay = max(self._delay, float(delay))
        return robots

    def list_items(self) -> Listing:
        robots = self._robots()
        start = self.spec.start()
        if not start.startswith(self.prefix):
            raise SourceError(f"source {self.name}: the start URL {start} is not within the prefix {self.prefix}")
        queue: deque[str] = deque([start])
        queued = {start}
        items: list[Item] = []
        listing = Listing(items)
        requests = 0
        while queue:
            url = queue.popleft()
            if not robots.can_fetch(self.spec.user_agent, url):
                continue
            if requests >= self.spec.max_pages:
                listing.complete = False
                listing.problems.append(f"stopped after {self.spec.max_pages} pages (max_pages); documents not reached are kept")
                break
            requests += 1
            for link in self._visit(url, items, listing):
                link = normalize(link)
                if link.startswith(self.prefix) and link not in queued:
                    queued.add(link)
                    queue.append(link)
        return listing

    def _visit(self, url: str, items: list[Item], listing: Listing) -> list[str]:
        """Read one page: record it as an item when it is a document, and return the links to follow."""
        self._wait()
        try:
            with self._client.stream("GET", url) as response:
                if response.is_redirect:
                    location = response.headers.get("location")
                    return [urljoin(url, location)] if location else []
                if response.status_code in GONE:
                    return []
                if response.status_code != 200:
                    listing.complete = False
                    listing.problems.append(f"{url}: HTTP {response.status_code}")
                    return []
                mime = response.headers.get("content-type", "").split(";")[0].strip().lower()
                suffix = DOCUMENT_TYPES.get(mime)
                if suffix is None:
                    return []
                body = bytearray()
                for block in response.iter_bytes():
                    body += block
                    if len(body) > self.max_bytes:
                        break
        except httpx.HTTPError as exc:
            listing.complete = False
            listing.problems.append(f"{url}: {type(exc).__name__}: {exc}".splitlines()[0])
            return []
        key = self.key_of(url)
        if len(body) > self.max_bytes:
            self._too_large.add(key)
            items.append(Item(key, "too-large", suffix, len(body)))
            return []
        links: list[str] = []
        index = True
        if suffix == ".html":
            index, links = _read_html(bytes(body), url)
            if index and links and not _has_text(bytes(body), key):
                listing.detail.setdefault("crawl_nodes", []).append(key)
                return links
        if index:
            path = self._folder / f"{len(self._files):06d}{suffix}"
            path.write_bytes(body)
            self._files[key] = path
            items.append(Item(key, hashlib.sha256(body).hexdigest()[:32], suffix, len(body)))
        return links

    def fetch(self, item: Item, folder: Path) -> Path:
        if item.key in self._too_large:
            raise DocumentError(ErrorCode.TOO_LARGE, f"{self.document_name(item.key)}: over the {self.max_bytes / 1048576:g} MB limit (ingest.max_file_mb)")
        path = self._files.get(item.key)
        if path is None:
            raise DocumentError(ErrorCode.FETCH_FAILED, f"{self.document_name(item.key)}: not read in this sync's crawl")
        return path

    def close(self) -> None:
        self._client.close()
        shutil.rmtree(self._folder, ignore_errors=True)


def _has_text(body: bytes, key: str) -> bool:
    """Whether the HTML parser finds text in a page, as ingest reads it (a page it cannot read counts as text: its
    failure is ingest's to report)."""
    from bunko.errors import BunkoError
    from bunko.parse.html import HtmlParser, decode_html

    try:
        doc = HtmlParser().parse_text(decode_html(body, key).text, key)
    except (BunkoError, ValueError):
        return True
    return any(e.text.strip() for e in doc.elements)


def _read_html(body: bytes, url: str) -> tuple[bool, list[str]]:
    """Whether the page may be indexed, and its links (absolute) unless it says nofollow."""
    import lxml.html

    try:
        tree = lxml.html.fromstring(body, base_url=url)
    except (ValueError, lxml.etree.ParserError):
        return True, []
    directives = {
        part.strip().lower()
        for content in tree.xpath("//meta[translate(@name,'ROBTS','robts')='robots']/@content")
        for part in str(content).split(",")
    }
    index = "noindex" not in directives and "none" not in directives
    if "nofollow" in directives or "none" in directives:
        return index, []
    tree.make_links_absolute(url, resolve_base_href=True)
    links = []
    for anchor in tree.xpath("//a[@href]"):
        if "nofollow" in str(anchor.get("rel", "")).lower():
            continue
        href = str(anchor.get("href"))
        if urlsplit(href).scheme in ("http", "https"):
            links.append(href)
    return index, links

