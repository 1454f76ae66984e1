"""The labelled retrieval set of bench/bench_retrieval.py: real documents in en, ja and zh.

    python bench/retrieval_data.py [--rebuild] [--questions 250]

Sources (Debian packages; `apt-get install debian-reference-en debian-reference-ja
debian-reference-zh-cn python3-doc`):

- Debian Reference in English, Japanese and Simplified Chinese (HTML, one file a chapter);
- for English, also the Python 3 documentation (tutorial, howto, faq, using, reference,
  library), capped at ``--python-doc-max`` passages, so the English corpus is larger and
  has a second register (API reference).

Passages: the blocks of each section (paragraphs, list paragraphs, definition-list
entries, table rows) grouped in document order into passages of
``PASSAGE_CHARS[lang]`` characters; a passage never crosses a section, an API entry or
a change of language (the ja/zh manuals keep untranslated English paragraphs: they stay
in the corpus as distractors, questions are never drawn from them).

Questions: for a sampled passage, one of its prose sentences in the target language;
30–50 % of its content units are dropped (en: words outside a stop list; ja: runs of
kanji, katakana or Latin, a following hiragana run going with a dropped unit; zh: runs
between function characters), and the rest is wrapped in a question template. The
segmentation is by script and a small function-character list, on purpose not by any of
the tokenizers compared in the benchmark. Relevant: the source passage, passages with
the same normalised text, and passages containing the source sentence verbatim.

The set is deterministic for a seed and cached under bench/data/.
"""

from __future__ import annotations

import argparse
import glob
import hashlib
import json
import random
import re
import unicodedata
import warnings
from dataclasses import asdict, dataclass, field
from pathlib import Path

from bunko.text.scripts import HAN_CHAR, KANA_CHAR, UNSPACED

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "bench" / "data"
DEBIAN_REFERENCE = Path("/usr/share/doc/debian-reference-common/docs")
PYTHON_DOC = Path("/usr/share/doc/python3/html")
PYTHON_DOC_DIRS = ("tutorial", "howto", "faq", "using", "reference", "library")
LANGS = ("en", "ja", "zh")
FILE_LANG = {"en": "en", "ja": "ja", "zh": "zh-cn"}
PASSAGE_CHARS = {"en": (300, 800), "ja": (150, 500), "zh": (120, 450)}
"""Target passage size; a CJK character carries about as much as 2–3 Latin ones, so the
ja/zh ranges keep passages of similar content size (about 60–200 words)."""
VERSION = 1
SEED = 20261202

_SPACE_BETWEEN_CJK = re.compile(rf"(?<=[{UNSPACED}])\s+(?=[{UNSPACED}])")
_SENTENCE_EN = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])")
_SENTENCE_CJK = re.compile(r"(?<=[。！？!?])")

_EN_STOP_WORDS = """a about above after again against all also am an and any are as at be because been before being below between both
    but by can could did do does doing down during each either else etc few for from further had has have having he her here
    hers herself him himself his how i if in into is it its itself just may me might more most must my myself no nor not now
    of off on once one only or other ought our ours ourselves out over own same shall she should so some such than that the
    their theirs them themselves then there these they this those through thus to too under until up upon us very via was we
    were what when where which while who whom why will with within without would you your yours yourself yourselves e.g i.e
    following use used using see"""
EN_STOP = frozenset(_EN_STOP_WORDS.split())
ZH_FUNCTION = set("的了是在和与或及把被对将也都就而并从到由以其这那该个之为于中时可会能要您你我它们着过则即如若所")

TEMPLATES = {
    "en": ["How do I {q}?", "What does the documentation say about {q}?", "{q}?", "Where is it explained that {q}?",
           "Tell me about {q}.", "Is it true that {q}?"],
    "ja": ["{q}について教えてください。", "{q}はどうすればよいですか？", "{q}とは何ですか？", "{q}？", "{q}に関する説明はどこにありますか？",
           "{q}について知りたい"],
    "zh": ["{q}是什么？", "如何{q}？", "请介绍一下{q}。", "{q}？", "关于{q}的说明在哪里？", "我想了解{q}"],
}


@dataclass
class Passage:
    pid: str
    lang: str
    source: str
    section: str
    text: str
    text_lang: str
    """The language of the text itself (a ja passage may be an untranslated English paragraph)."""


@dataclass
class Question:
    qid: str
    lang: str
    text: str
    relevant: list[str]
    source_pid: str
    sentence: str
    dropped_share: float
    template: int
    meta: dict = field(default_factory=dict)


# -- passages --------------------------------------------------------------------------------

def clean(text: str) -> str:
    text = unicodedata.normalize("NFC", text).replace("¶", " ")
    text = re.sub(r"\s+", " ", text).strip()
    return _SPACE_BETWEEN_CJK.sub("", text)


def text_lang(text: str, doc_lang: str) -> str:
    if doc_lang == "ja":
        return "ja" if KANA_CHAR.search(text) else "en"
    if doc_lang == "zh":
        han = len(HAN_CHAR.findall(text))
        return "zh" if han >= 0.2 * max(len(text.replace(" ", "")), 1) and not KANA_CHAR.search(text) else "en"
    return "en"


_ADMONITION = ["tip", "note", "caution", "warning", "important", "admonition"]
_API_DL = re.compile(r"\bpy\b|function|class|method|data|attribute|exception")


def _blocks(root, section_tag: dict, title_of):
    """(group key, section title, text) for each block under `root`, in document order."""
    for node in root.find_all(["p", "tr", "dt"]):
        boxed = node.find_parent("div", class_=_ADMONITION) is not None
        if node.name == "p":
            if node.find_parent("table") is not None and not boxed:
                continue  # table cells are read as rows
            text = clean(node.get_text(" ", strip=True))
            dd = node.find_parent("dd")
            dt = dd.find_previous_sibling("dt") if dd is not None else None
            api = dt is not None and dt.find_parent("dl", class_=_API_DL) is not None
            key = ("api", id(dt)) if api else ("prose", None)
        elif node.name == "tr":
            if boxed:
                continue
            cells = [clean(c.get_text(" ", strip=True)) for c in node.find_all(["td", "th"])]
            cells = [c for c in cells if c]
            if len(cells) < 2:
                continue
            text = " | ".join(cells)
            key = ("table", id(node.find_parent("table")))
        else:
            if node.find_parent("dl", class_=_API_DL) is None:
                continue
            text = clean(node.get_text(" ", strip=True))
            key = ("api", id(node))
        if len(text) < 3:
            continue
        section = node.find_parent(section_tag["name"], **section_tag.get("attrs", {}))
        yield (id(section), key[0], key[1]), title_of(section), text


def _split_long(text: str, limit: int) -> list[str]:
    if len(text) <= limit:
        return [text]
    parts = [s for s in (_SENTENCE_CJK.split(text) if HAN_CHAR.search(text) else _SENTENCE_EN.split(text)) if s.strip()]
    out, current = [], ""
    for part in parts:
        if current and len(current) + len(part) + 1 > limit:
            out.append(current)
            current = ""
        current = (current + " " + part).strip() if current else part
    if current:
        out.append(current)
    return out


def group_passages(blocks, lang: str, source: str) -> list[Passage]:
    """Blocks → passages: a change of section or language always ends a passage; a new API
    entry or table ends one only once it has reached the minimum size; the maximum size
    always ends one. A short remainder joins the previous passage of its section."""
    low, high = PASSAGE_CHARS[lang]
    passages: list[Passage] = []
    current: list[str] = []
    state: dict = {"hard": None, "soft": None, "section": ""}

    def flush() -> None:
        if not current:
            return
        text = " ".join(current)
        current.clear()
        last = passages[-1] if passages else None
        if (len(text) < low and last is not None and getattr(last, "_hard", None) == state["hard"]
                and len(last.text) + len(text) <= high * 1.25):
            last.text += " " + text
        elif len(text) >= 40:
            passage = Passage("", lang, source, state["section"], text, text_lang(text, lang))
            passage._hard = state["hard"]  # type: ignore[attr-defined]
            passages.append(passage)

    for (section_id, kind, sub), section, text in blocks:
        hard = (section_id, text_lang(text, lang))
        soft = (kind, sub)
        size = sum(map(len, current)) + len(current)
        if hard != state["hard"] or (soft != state["soft"] and size >= low):
            flush()
            state.update(hard=hard, section=section)
        state["soft"] = soft
        for piece in _split_long(text, high):
            if current and sum(map(len, current)) + len(current) + len(piece) > high:
                flush()
            current.append(piece)
    flush()
    for passage in passages:
        passage.__dict__.pop("_hard", None)
    return passages


def debian_reference(lang: str) -> list[Passage]:
    from bs4 import BeautifulSoup, XMLParsedAsHTMLWarning

    warnings.filterwarnings("ignore", category=XMLParsedAsHTMLWarning)
    files = sorted(glob.glob(str(DEBIAN_REFERENCE / f"*.{FILE_LANG[lang]}.html")))
    files = [f for f in files if not Path(f).name.startswith("index")]
    if not files:
        raise SystemExit(f"no Debian Reference HTML for {lang} under {DEBIAN_REFERENCE}: apt-get install debian-reference-{FILE_LANG[lang]}")
    out: list[Passage] = []
    for path in files:
        soup = BeautifulSoup(Path(path).read_text(encoding="utf-8"), "lxml")
        for nav in soup.find_all("div", class_=["navheader", "navfooter", "toc"]):
            nav.decompose()

        def title_of(section) -> str:
            heading = section.find(["h1", "h2", "h3", "h4", "h5"]) if section is not None else None
            return clean(heading.get_text(" ", strip=True)) if heading is not None else ""

        blocks = _blocks(soup, {"name": "div", "attrs": {"class_": ["section", "chapter", "preface", "appendix"]}}, title_of)
        out += group_passages(blocks, lang, f"debian-reference/{Path(path).name}")
    return out


def python_doc(limit: int, rng: random.Random) -> list[Passage]:
    from bs4 import BeautifulSoup

    files = sorted(p for d in PYTHON_DOC_DIRS for p in (PYTHON_DOC / d).glob("*.html") if p.name != "index.html")
    if not files:
        return []
    out: list[Passage] = []
    for path in files:
        soup = BeautifulSoup(path.read_text(encoding="utf-8"), "lxml")
        body = soup.find("div", attrs={"role": "main"}) or soup.find("div", class_="body")
        if body is None:
            continue

        def title_of(section) -> str:
            heading = section.find(["h1", "h2", "h3", "h4"]) if section is not None else None
            return clean(heading.get_text(" ", strip=True)) if heading is not None else ""

        out += group_passages(_blocks(body, {"name": "section"}, title_of), "en", f"python3-doc/{path.parent.name}/{path.name}")
    if len(out) > limit:
        keep = sorted(rng.sample(range(len(out)), limit))
        out = [out[i] for i in keep]
    return out


# -- questions --------------------------------------------------------------------------------

def sentences(text: str, lang: str) -> list[str]:
    parts = _SENTENCE_EN.split(text) if lang == "en" else _SENTENCE_CJK.split(text)
    return [s.strip() for s in parts if s.strip()]


_EN_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9_\-./+']*")
_JA_RUN = re.compile(r"(?P<kanji>[\u3400-\u4dbf\u4e00-\u9fff々〆]+)|(?P<kata>[\u30a0-\u30ffー]+)|(?P<latin>[A-Za-z0-9][A-Za-z0-9_\-./+]*)|(?P<hira>[\u3040-\u309f]+)")
_ZH_RUN = re.compile(r"(?P<han>[\u3400-\u4dbf\u4e00-\u9fff]+)|(?P<latin>[A-Za-z0-9][A-Za-z0-9_\-./+]*)")


def segments(sentence: str, lang: str) -> list[tuple[str, bool]]:
    """(text, is_content) units of a sentence, by script and function-word lists only."""
    if lang == "en":
        return [(w, w.lower().strip(".'") not in EN_STOP and not w.isdigit()) for w in _EN_WORD.findall(sentence)]
    if lang == "ja":
        return [(m.group(0), m.lastgroup != "hira") for m in _JA_RUN.finditer(sentence)]
    out: list[tuple[str, bool]] = []
    for m in _ZH_RUN.finditer(sentence):
        if m.lastgroup == "latin":
            out.append((m.group(0), True))
            continue
        run = ""
        for ch in m.group(0):
            if ch in ZH_FUNCTION:
                if run:
                    out.append((run, True))
                    run = ""
                out.append((ch, False))
            else:
                run += ch
        if run:
            out.append((run, True))
    return out


_CAPTION = re.compile(r"^(表|Table|图|図|Figure)\s*\d")


def eligible(sentence: str, lang: str) -> bool:
    if _CAPTION.match(sentence):
        return False
    segs = segments(sentence, lang)
    content = [s for s, c in segs if c]
    if lang == "en":
        letters = sum(ch.isalpha() for ch in sentence)
        return 8 <= len(segs) <= 45 and len(content) >= 5 and letters >= 0.6 * len(sentence) and sentence.count("|") == 0
    if lang == "ja" and not KANA_CHAR.search(sentence):
        return False
    cjk = len(HAN_CHAR.findall(sentence)) + len(KANA_CHAR.findall(sentence))
    lo, hi = (20, 130) if lang == "ja" else (15, 110)
    return lo <= len(sentence) <= hi and cjk >= 0.5 * len(sentence.replace(" ", "")) and len(content) >= 4 and "|" not in sentence


def make_question(sentence: str, lang: str, rng: random.Random) -> tuple[str, float, int] | None:
    segs = segments(sentence, lang)
    content_idx = [i for i, (_, c) in enumerate(segs) if c]
    share = rng.uniform(0.3, 0.5)
    n_drop = max(1, round(share * len(content_idx)))
    dropped = set(rng.sample(content_idx, n_drop))
    kept: list[str] = []
    previous_dropped = False
    for i, (text, is_content) in enumerate(segs):
        if i in dropped:
            previous_dropped = True
            continue
        if not is_content and previous_dropped and lang != "en":
            continue  # the particle / function character of a dropped unit goes with it
        previous_dropped = False
        kept.append(text)
    kept_content = [t for i, (t, c) in enumerate(segs) if c and i not in dropped]
    if len(kept_content) < 3:
        return None
    if lang == "en":
        while kept and kept[0].lower() in EN_STOP:
            kept.pop(0)
        while kept and kept[-1].lower() in EN_STOP:
            kept.pop()
        body = " ".join(kept).rstrip(".:;,")
        body = body[:1].lower() + body[1:] if body[:2].isalpha() and not body[:2].isupper() else body
    else:
        while kept and segments(kept[-1], lang) and not segments(kept[-1], lang)[0][1]:
            kept.pop()  # no dangling particle at the end
        body = "".join(k if not (k[:1].isascii() and k[:1].isalnum()) else f" {k} " for k in kept)
        body = re.sub(r"\s+", " ", body).strip()
    template = rng.randrange(len(TEMPLATES[lang]))
    return TEMPLATES[lang][template].format(q=body), share, template


def norm(text: str) -> str:
    return re.sub(r"\s+", " ", unicodedata.normalize("NFKC", text)).strip().lower()


def build(questions_per_lang: int = 250, seed: int = SEED, python_doc_max: int = 6000) -> dict:
    rng = random.Random(seed)
    passages: list[Passage] = []
    for lang in LANGS:
        found = debian_reference(lang)
        if lang == "en":
            found += python_doc(python_doc_max, random.Random(seed + 1))
        for i, p in enumerate(found):
            p.pid = f"{lang}-{i:05d}"
        passages += found
    questions: list[Question] = []
    for lang in LANGS:
        pool = [p for p in passages if p.lang == lang]
        by_norm: dict[str, list[str]] = {}
        for p in pool:
            by_norm.setdefault(norm(p.text), []).append(p.pid)
        candidates = [(p, [s for s in sentences(p.text, lang) if eligible(s, lang)]) for p in pool if p.text_lang == lang]
        candidates = [(p, ss) for p, ss in candidates if ss]
        if lang == "en":  # half from each source, so the API reference does not crowd out the manual
            strata = [[c for c in candidates if c[0].source.startswith(prefix)] for prefix in ("debian-reference", "python3-doc")]
            strata = [s for s in strata if s]
        else:
            strata = [candidates]
        made: list[Question] = []
        for s_index, stratum in enumerate(strata):
            want = questions_per_lang // len(strata) + (1 if s_index < questions_per_lang % len(strata) else 0)
            order = list(range(len(stratum)))
            rng.shuffle(order)
            count = 0
            for idx in order:
                if count >= want:
                    break
                passage, sents = stratum[idx]
                sentence = rng.choice(sents)
                made_q = make_question(sentence, lang, rng)
                if made_q is None:
                    continue
                text, share, template = made_q
                key = norm(sentence)
                relevant = set(by_norm[norm(passage.text)])
                relevant |= {p.pid for p in pool if key in norm(p.text)}
                made.append(Question(f"{lang}-q{len(made):04d}", lang, text, sorted(relevant), passage.pid, sentence, round(share, 3),
                                     template, {"source": passage.source}))
                count += 1
        questions += made
    digest = hashlib.sha1(json.dumps([asdict(p) for p in passages] + [asdict(q) for q in questions], ensure_ascii=False).encode()).hexdigest()[:12]
    return {"version": VERSION, "seed": seed, "questions_per_lang": questions_per_lang, "python_doc_max": python_doc_max, "digest": digest,
            "passages": [asdict(p) for p in passages], "questions": [asdict(q) for q in questions]}


def cache_path(questions_per_lang: int, seed: int, python_doc_max: int) -> Path:
    return DATA / f"retrieval-set-v{VERSION}-s{seed}-q{questions_per_lang}-py{python_doc_max}.json"


def load_or_build(questions_per_lang: int = 250, seed: int = SEED, python_doc_max: int = 6000, rebuild: bool = False) -> dict:
    path = cache_path(questions_per_lang, seed, python_doc_max)
    if path.exists() and not rebuild:
        return json.loads(path.read_text(encoding="utf-8"))
    data = build(questions_per_lang, seed, python_doc_max)
    DATA.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    tmp.replace(path)
    return data


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--questions", type=int, default=250)
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--python-doc-max", type=int, default=6000)
    parser.add_argument("--rebuild", action="store_true")
    parser.add_argument("--show", type=int, default=5, help="print this many sample questions per language")
    args = parser.parse_args()
    data = load_or_build(args.questions, args.seed, args.python_doc_max, args.rebuild)
    rng = random.Random(0)
    by_pid = {p["pid"]: p for p in data["passages"]}
    for lang in LANGS:
        ps = [p for p in data["passages"] if p["lang"] == lang]
        qs = [q for q in data["questions"] if q["lang"] == lang]
        sizes = sorted(len(p["text"]) for p in ps)
        print(f"{lang}: {len(ps)} passages ({sum(p['text_lang'] == lang for p in ps)} in {lang}), chars p10/p50/p90 "
              f"{sizes[len(sizes) // 10]}/{sizes[len(sizes) // 2]}/{sizes[9 * len(sizes) // 10]}; {len(qs)} questions, "
              f"{sum(len(q['relevant']) > 1 for q in qs)} with >1 relevant")
        for q in rng.sample(qs, min(args.show, len(qs))):
            print(f"  Q: {q['text']}\n     from: {q['sentence']}\n     passage[{len(by_pid[q['source_pid']]['text'])}]: {by_pid[q['source_pid']]['text'][:120]}…")


if __name__ == "__main__":
    main()
