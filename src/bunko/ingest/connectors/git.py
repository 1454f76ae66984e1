"""A Git repository at a ref: the files of the commit the ref names, read from Git's objects (no checkout).

`repo` is a local repository (a working copy or a bare one) or a URL; a URL is mirrored into the collection's
cache (`<collection>/cache/git/<name>.git`) and fetched again at every sync. The version of a file is its blob
id, so a file is re-read only when its content changed. Credentials are Git's own (credential helpers, SSH
agent, GIT_* variables): a password in the URL is refused. Needs the `git` command.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path, PurePosixPath
from typing import Literal

from pydantic import Field, field_validator

from bunko.errors import DocumentError
from bunko.ingest.connectors.base import Item, Listing, NamedSource, SourceError, SourceSpec, safe_file_name
from bunko.schema import ErrorCode

_URL = re.compile(r"^([a-z][a-z0-9+.-]*://|[^/\s]+@[^/\s]+:)", re.IGNORECASE)


class GitSpec(SourceSpec):
    type: Literal["git"] = "git"
    repo: str = Field(min_length=1, description="A local repository path, or a URL to mirror.")
    ref: str = Field("HEAD", description="A branch, tag or commit; its commit is read at each sync.")
    under: str = Field("", description="Only files under this folder of the repository.")

    @field_validator("ref")
    @classmethod
    def _ref(cls, value: str) -> str:
        if not value or value.startswith("-") or any(c.isspace() for c in value):
            raise ValueError(f"{value!r} is not a Git ref")
        return value

    def target(self) -> str:
        return f"{self.repo} @ {self.ref}" + (f" under {self.under}" if self.under else "")


class GitSource(NamedSource):
    def __init__(self, name: str, spec: GitSpec, base: Path, cache: Path) -> None:
        self.name = name
        self.spec = spec
        if shutil.which("git") is None:
            raise SourceError(f"source {name}: Git sources need the git command on PATH")
        self.remote = bool(_URL.match(spec.repo))
        if self.remote:
            self.git_dir = cache / "git" / f"{name}.git"
        else:
            given = Path(spec.repo).expanduser()
            self.git_dir = given if given.is_absolute() else base / given
        self.commit = ""

    def _git(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[bytes]:
        env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": "true", "LC_ALL": "C"}
        return subprocess.run(["git", "-C", str(self.git_dir), *args], capture_output=True, check=check, env=env, timeout=600)

    def _mirror(self) -> None:
        env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": "true", "LC_ALL": "C"}
        if not (self.git_dir / "HEAD").exists():
            self.git_dir.parent.mkdir(parents=True, exist_ok=True)
            command = ["git", "clone", "--mirror", "--quiet", "--", self.spec.repo, str(self.git_dir)]
        else:
            command = ["git", "-C", str(self.git_dir), "fetch", "--prune", "--quiet", "origin"]
        done = subprocess.run(command, capture_output=True, env=env, timeout=3600)
        if done.returncode != 0:
            reason = done.stderr.decode(errors="replace").strip().splitlines()
            raise SourceError(f"source {self.name}: cannot fetch {self.spec.repo}: {reason[-1] if reason else 'git failed'}")

    def list_items(self) -> Listing:
        if self.remote:
            self._mirror()
        elif not self.git_dir.exists():
            raise SourceError(f"source {self.name}: {self.git_dir} does not exist")
        resolved = self._git("rev-parse", "--verify", "--quiet", f"{self.spec.ref}^{{commit}}", check=False)
        if resolved.returncode != 0:
            raise SourceError(f"source {self.name}: {self.spec.ref!r} names no commit in {self.spec.repo}")
        self.commit = resolved.stdout.decode().strip()
        args = ["ls-tree", "-r", "-z", "-l", "--full-tree", self.commit]
        under = self.spec.under.strip("/")
        if under:
            args += ["--", under + "/"]
        listed = self._git(*args, check=False)
        if listed.returncode != 0:
            raise SourceError(f"source {self.name}: git ls-tree failed: {listed.stderr.decode(errors='replace').strip()}")
        items = []
        for entry in listed.stdout.split(b"\0"):
            if not entry:
                continue
            head, _, raw_path = entry.partition(b"\t")
            mode, kind, blob, size = head.decode().split()
            if kind != "blob" or mode == "120000":  # submodules and symbolic links hold no document
                continue
            path = raw_path.decode("utf-8", errors="surrogateescape")
            items.append(Item(path, blob, PurePosixPath(path).suffix, int(size)))
        return Listing(items, detail={"commit": self.commit})

    def fetch(self, item: Item, folder: Path) -> Path:
        target = folder / safe_file_name(item.key, item.suffix)
        with target.open("wb") as out:
            done = subprocess.run(["git", "-C", str(self.git_dir), "cat-file", "blob", item.version], stdout=out, stderr=subprocess.PIPE, timeout=600)
        if done.returncode != 0:
            raise DocumentError(ErrorCode.FETCH_FAILED, f"{self.document_name(item.key)}: git cat-file failed: {done.stderr.decode(errors='replace').strip()}")
        return target
