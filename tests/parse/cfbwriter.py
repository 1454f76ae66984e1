"""A minimal OLE compound file (MS-CFB v3) writer, to generate Outlook .msg files in tests.

No permissively licensed library writes compound files from scratch, and a
.msg fixture from a real Outlook could not be generated in the test; this
writes the format's essentials: header, FAT, directory (a balanced tree of
siblings per storage), mini stream for small streams, regular sectors for
large ones.
"""

from __future__ import annotations

import struct

SECTOR, MINI, CUTOFF = 512, 64, 4096
FREE, END, FATSECT, NOSTREAM = 0xFFFFFFFF, 0xFFFFFFFE, 0xFFFFFFFD, 0xFFFFFFFF


class _Entry:
    def __init__(self, name: str, kind: int, data: bytes = b"") -> None:
        self.name, self.kind, self.data = name, kind, data
        self.children: list[_Entry] = []
        self.left = self.right = self.child = NOSTREAM
        self.start, self.size, self.index = END, 0, 0


def _key(entry: _Entry) -> tuple[int, str]:
    return (len(entry.name), entry.name.upper())


def write_cfb(streams: dict[tuple[str, ...], bytes]) -> bytes:
    """Compound file bytes holding `streams`, keyed by their storage path ("storage", ..., "stream")."""
    root = _Entry("Root Entry", 5)
    for path, data in streams.items():
        node = root
        for part in path[:-1]:
            found = next((c for c in node.children if c.name == part and c.kind == 1), None)
            if found is None:
                found = _Entry(part, 1)
                node.children.append(found)
            node = found
        node.children.append(_Entry(path[-1], 2, data))
    entries: list[_Entry] = []

    def number(entry: _Entry) -> None:
        entry.index = len(entries)
        entries.append(entry)
        for child in entry.children:
            number(child)

    number(root)

    def tree(items: list[_Entry]) -> int:
        if not items:
            return NOSTREAM
        items = sorted(items, key=_key)
        mid = len(items) // 2
        items[mid].left, items[mid].right = tree(items[:mid]), tree(items[mid + 1 :])
        return items[mid].index

    for entry in entries:
        entry.child = tree(entry.children)

    mini = bytearray()
    minifat: list[int] = []
    big: list[_Entry] = []
    for entry in entries:
        if entry.kind != 2:
            continue
        entry.size = len(entry.data)
        if entry.size >= CUTOFF:
            big.append(entry)
        elif entry.size:
            entry.start = len(mini) // MINI
            count = -(-entry.size // MINI)
            minifat.extend([*range(entry.start + 1, entry.start + count), END])
            mini += entry.data + b"\0" * (count * MINI - entry.size)
    dir_bytes_len = -(-len(entries) * 128 // SECTOR) * SECTOR
    n_dir = dir_bytes_len // SECTOR
    n_minifat = -(-len(minifat) * 4 // SECTOR) if minifat else 0
    n_mini = -(-len(mini) // SECTOR)
    n_big = [-(-e.size // SECTOR) for e in big]
    content = n_dir + n_minifat + n_mini + sum(n_big)
    n_fat = 1
    while n_fat * (SECTOR // 4) < content + n_fat:
        n_fat += 1
    fat = [FATSECT] * n_fat
    cursor = n_fat

    def chain(count: int) -> int:
        nonlocal cursor
        start = cursor
        fat.extend([*range(start + 1, start + count), END])
        cursor += count
        return start

    dir_start = chain(n_dir)
    minifat_start = chain(n_minifat) if n_minifat else END
    root.start = chain(n_mini) if n_mini else END
    root.size = len(mini)
    for entry, count in zip(big, n_big, strict=True):
        entry.start = chain(count)
    fat += [FREE] * (n_fat * (SECTOR // 4) - len(fat))

    directory = bytearray()
    for entry in entries:
        name = entry.name.encode("utf-16-le") + b"\0\0"
        directory += name.ljust(64, b"\0") + struct.pack("<HBBIII", len(name), entry.kind, 1, entry.left, entry.right, entry.child)
        directory += b"\0" * 16 + struct.pack("<I", 0) + b"\0" * 16 + struct.pack("<IQ", entry.start, entry.size)
    for _ in range(len(entries), n_dir * SECTOR // 128):
        directory += b"\0" * 64 + struct.pack("<HBBIII", 0, 0, 0, NOSTREAM, NOSTREAM, NOSTREAM) + b"\0" * 36 + struct.pack("<IQ", 0, 0)

    difat = list(range(n_fat)) + [FREE] * (109 - n_fat)
    header = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 16 + struct.pack("<HHHHH", 0x3E, 3, 0xFFFE, 9, 6) + b"\0" * 6
    header += struct.pack("<IIIIIIIII", 0, n_fat, dir_start, 0, CUTOFF, minifat_start, n_minifat, END, 0)
    header += struct.pack("<109I", *difat)
    body = struct.pack(f"<{len(fat)}I", *fat) + bytes(directory)
    if minifat:
        table = struct.pack(f"<{len(minifat)}I", *minifat)
        body += table + b"\xff" * (n_minifat * SECTOR - len(table))
    body += bytes(mini) + b"\0" * (n_mini * SECTOR - len(mini))
    for entry, count in zip(big, n_big, strict=True):
        body += entry.data + b"\0" * (count * SECTOR - entry.size)
    return header + body


def msg_streams(subject: str, sender: str, sender_email: str, to: str, body: str, html: str | None,
                attachments: list[tuple[str, bytes]], submit_filetime: int) -> dict[tuple[str, ...], bytes]:
    """The MAPI property streams of an Outlook message (Unicode strings, a submit time, attachments)."""

    def text(prop: int, value: str) -> tuple[str, bytes]:
        return f"__substg1.0_{prop:04X}001F", value.encode("utf-16-le")

    streams: dict[tuple[str, ...], bytes] = {}
    for prop, value in ((0x0037, subject), (0x0C1A, sender), (0x5D01, sender_email), (0x0E04, to), (0x1000, body)):
        name, data = text(prop, value)
        streams[(name,)] = data
    if html is not None:
        streams[("__substg1.0_10130102",)] = html.encode("utf-8")
    props = b"\0" * 32 + struct.pack("<IIQ", (0x0039 << 16) | 0x0040, 2, submit_filetime)
    streams[("__properties_version1.0",)] = props
    for i, (filename, data) in enumerate(attachments):
        storage = f"__attach_version1.0_#{i:08X}"
        name, value = text(0x3707, filename)
        streams[(storage, name)] = value
        streams[(storage, "__substg1.0_37010102")] = data
        streams[(storage, "__properties_version1.0")] = b"\0" * 8
    return streams
