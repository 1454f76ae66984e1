"""Fit the answer confidence (`bunko.generate.confidence`) on questions that are not evaluation questions.

    apt-get install debian-faq debian-faq-ja debian-faq-zh-cn      # the generated questions' documents
    bench/evalsets/debian-handbook-qa/prepare.sh /tmp/hb && bunko ingest /tmp/hb/html -c /tmp/hb/.bunko   # hand-written questions' collection
    python bench/fit_confidence.py --golden bench/evalsets/debian-handbook-qa/questions.jsonl --collection /tmp/hb/.bunko   # fit, write
    python bench/fit_confidence.py --no-write                      # generated questions only, measure only

Training data, made from documents, never from an evaluation set:

- the Debian FAQ in en / ja / zh-cn (HTML), whose section headings are real questions
  ("2.1. What is Debian?"). The headings' question text is removed from the copies that are
  ingested (the number stays), so a question is answered from the section's body, as a real
  question is, and not by matching its own heading;
- typed cloze questions made from the FAQ's own sentences: a path, option, number or the one
  command of a code block is taken out and becomes the expected answer, half of the other
  words are dropped (real questions share only part of a passage's wording), and a question
  phrase of the kind is added ("Which file …", "…のオプションは何ですか？", "…要用什么命令？");
- two folds by chapter: fold A ingests the even chapters (all three languages), fold B the odd
  ones. Every question is asked of both: in the fold that holds its chapter it is answerable,
  in the other it is an absent-answer question on the same topics — the near-miss kind;
- an answer is right when it holds the cloze's span, or, for heading questions, when its first
  citation is in the question's own section (any language: the translations are parallel);
  an answer to an absent question is wrong.

- with ``--golden`` and ``--collection``, hand-written questions of a labelled set too (the
  Debian Administrator's Handbook set, bench/evalsets/debian-handbook-qa: fact / table / multi-hop /
  absent, en/ja/zh; never the Debian Reference evaluation set), right when
  the expected string is in the answer. They are split into the two folds by the page that
  answers them, weigh as much in total as the generated questions, and it is on *their*
  held-out predictions that calibration and the threshold are judged: generated questions
  share more words with their passages than hand-written ones, so a model fitted on them
  alone is under-confident on real questions (held-out ECE 0.14 on the development set).

Each question's `AnswerFeatures` come from the trace of a real `Bunko.ask` with
``min_confidence = 0``. The logistic regression is fitted on one fold and measured on the
other (cross-validation across chapters: no question is judged by a model that saw its
chapter), reported as reliability table and expected calibration error, then refitted on both
and written to ``src/bunko/generate/confidence_model.json`` with the threshold chosen on the
held-out predictions (the lowest within DECISION_TOLERANCE of the best share of right
decisions: answer when right, abstain when not).
Results: bench/results/confidence.{json,md}.
"""

from __future__ import annotations

import argparse
import html
import json
import re
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from bs4 import BeautifulSoup

from bunko import Bunko, Config
from bunko.generate.confidence import AnswerFeatures, ConfidenceModel, expected_calibration_error, fit_logistic
from bunko.generate.retrieval_grade import RETRIEVAL_THRESHOLD

MODEL_FEATURES = ("coverage", "chunk_coverage", "typed", "key_terms", "margin", "retrieval")
"""The features the model uses. Left out, though traced: the unit's cosine (collinear with coverage, it took a
negative weight) and same-language (with parallel translations, a right answer quoted across languages made it
negative, which would penalise the common case; language is handled by preferring same-language evidence)."""

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"
MODEL = ROOT / "src" / "bunko" / "generate" / "confidence_model.json"
CALIBRATION = ROOT / "src" / "bunko" / "generate" / "retrieval_calibration.json"
FAQ = Path("/usr/share/doc/debian/FAQ")
LANGUAGE_DIRS = {"en": FAQ, "ja": FAQ / "ja", "zh-cn": FAQ / "zh-cn"}
SKIPPED_CHAPTERS = {"index", "faqinfo"}
_HEADING = re.compile(r'(<h([23]) class="title"[^>]*>(?:<a [^>]*></a>)?)\s*(\d+(?:\.\d+)+\.)\s*(.*?)(</h\2>)', re.DOTALL)
_TAG = re.compile(r"<[^>]+>")


def chapters(language: str) -> dict[str, Path]:
    folder = LANGUAGE_DIRS[language]
    files = sorted(folder.glob(f"*.{language}.html"))
    return {f.name.split(".")[0]: f for f in files if f.name.split(".")[0] not in SKIPPED_CHAPTERS}


def questions_and_stripped(path: Path, language: str, chapter: str) -> tuple[list[dict[str, Any]], str]:
    """The heading questions of one chapter, and the chapter's HTML with their text removed (numbers kept)."""
    text = path.read_text(encoding="utf-8")
    found = []
    for match in _HEADING.finditer(text):
        question = html.unescape(_TAG.sub("", match.group(4))).strip()
        if len(question) >= 6:
            found.append({"question": question, "number": match.group(3), "chapter": chapter, "lang": language})
    soup = BeautifulSoup(_HEADING.sub(lambda m: f"{m.group(1)}{m.group(3)} Q{m.group(5)}", text), "lxml")
    for toc in soup.select("div.toc, dl.toc"):  # the chapter's table of contents repeats every question
        toc.decompose()
    return found, str(soup)


CLOZE_PER_CHAPTER = 8
DROP_SHARE = 0.5
_PROMPT = re.compile(r"^\s*[$#]\s+(\S.*)$")
_MASK = "…"
CLOZE_TEMPLATES = {
    "path": {"en": "Which file or directory is meant here: {text}?", "ja": "{text} とあるのはどのファイルですか？", "zh": "{text} 说的是哪个文件？"},
    "option": {"en": "Which option or setting is meant here: {text}?", "ja": "{text} のオプションは何ですか？", "zh": "{text} 用的是什么参数？"},
    "command": {"en": "What command do I use for this: {text}?", "ja": "{text} にはどのコマンドを使いますか？", "zh": "{text} 要用什么命令？"},
    "value": {"en": "What is the value here: {text}?", "ja": "{text} はいくつですか？", "zh": "{text} 是多少？"},
}


def _paraphrase_by_dropping(text: str, rng: np.random.Generator) -> str:
    """Drop about half the words (CJK: of three-character runs): real questions share only part of a passage's wording
    (hand-written questions on the Debian Reference cover 0.31 of their terms in the quoted unit, on average)."""
    pieces = re.findall(r"[\u3040-\u30ff\u3400-\u9fff]{1,3}|[^\u3040-\u30ff\u3400-\u9fff\s]+|\s+", text)
    return "".join(p for p in pieces if p.isspace() or _MASK in p or rng.random() > DROP_SHARE)


def cloze_questions(soup: BeautifulSoup, language: str, chapter: str, rng: np.random.Generator) -> list[dict[str, Any]]:
    """Typed questions made from the chapter's own sentences: the typed span is taken out and becomes the expected answer."""
    from bunko.text.answer_types import _OPTION, _PATH
    from bunko.text.sentences import split_sentences

    lang = "zh" if language == "zh-cn" else language
    found: list[dict[str, Any]] = []
    previous = ""
    for tag in soup.find_all(["p", "pre"]):
        text = re.sub(r"\s+", " ", tag.get_text()).strip()
        if tag.name == "pre":
            lines = [m.group(1).strip() for line in tag.get_text().splitlines() if (m := _PROMPT.match(line))]
            if previous and len(lines) == 1 and len(lines[0]) > 3:
                found.append({"kind": "command", "text": previous, "expected": lines[0]})
            continue
        previous = text
        for sentence in split_sentences(text):
            for kind, pattern in (("path", _PATH), ("option", _OPTION), ("value", re.compile(r"(?<![\w.])\d+(?:[.,]\d+)?(?![\w.])"))):
                spans = [m.group(0) for m in pattern.finditer(sentence) if len(m.group(0)) > 1 or kind == "value"]
                if len(spans) == 1 and 30 <= len(sentence) <= 300:
                    found.append({"kind": kind, "text": sentence.replace(spans[0], _MASK), "expected": spans[0]})
                    break
    picked = [found[i] for i in sorted(rng.choice(len(found), size=min(CLOZE_PER_CHAPTER, len(found)), replace=False))] if found else []
    return [
        {"question": CLOZE_TEMPLATES[c["kind"]][lang].format(text=_paraphrase_by_dropping(c["text"], rng).rstrip("。.？?")),
         "expected": c["expected"], "number": "", "chapter": chapter, "lang": language, "source": "cloze"}
        for c in picked
    ]


def is_right(record: dict[str, Any], question: dict[str, Any]) -> bool:
    """Heading questions: the first citation is in the question's section. Cloze questions: the taken-out span is in the answer."""
    if record["abstained"]:
        return False
    if question.get("expected"):
        return question["expected"].casefold() in record["text"].casefold()
    return bool(record["sections"]) and any(part.startswith(question["number"]) for part in record["sections"][0])


def ask_fold(folder: Path, questions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    config = Config()
    config.answer.min_confidence = 0.0
    kb = Bunko(folder / ".bunko", config=config)
    kb.ingest([str(folder / "in")])
    rows = []
    for q in questions:
        answer = kb.ask(q["question"])
        trace = kb.trace(answer.trace_id) or {}
        grade = trace.get("grade") or {}
        sections = [c.section_path for s in answer.sentences for c in s.citations]
        rows.append({"abstained": answer.abstained, "sections": sections, "text": answer.text, "features": grade.get("features") or {},
                     "missing": grade.get("missing_key_terms") or [], "reason": trace.get("abstain_reason")})
    kb.close()
    return rows


def collect(work: Path, limit: int | None, seed: int = 0) -> list[dict[str, Any]]:
    rng = np.random.default_rng(seed)
    questions: list[dict[str, Any]] = []
    names = sorted(chapters("en"))
    folds = {0: set(names[0::2]), 1: set(names[1::2])}
    for fold in folds:
        (work / f"fold{fold}" / "in").mkdir(parents=True, exist_ok=True)
    for language in LANGUAGE_DIRS:
        for chapter, path in chapters(language).items():
            found, stripped = questions_and_stripped(path, language, chapter)
            questions.extend({**q, "source": "heading"} for q in found)
            questions.extend(cloze_questions(BeautifulSoup(stripped, "lxml"), language, chapter, rng))
            for fold, members in folds.items():
                if chapter in members:
                    (work / f"fold{fold}" / "in" / path.name).write_text(stripped, encoding="utf-8")
    if limit:
        questions = questions[::max(1, len(questions) // limit)]
    data = []
    for fold, members in folds.items():
        started = time.perf_counter()
        rows = ask_fold(work / f"fold{fold}", questions)
        for q, row in zip(questions, rows, strict=True):
            answerable = q["chapter"] in members
            data.append({**q, "fold": fold, "answerable": answerable, "right": answerable and is_right(row, q), **row})
        print(f"fold {fold}: {len(rows)} questions in {time.perf_counter() - started:.0f} s")
    return data


def page_of(source: str) -> str:
    """The page a relevant source names, whatever its language: "ch01.en.html" and "ja/sect.apt.html" give "ch01" and
    "sect.apt", so a page and its translations fall in one fold."""
    return re.sub(r"\.(?:en|ja|zh(?:-cn)?)$", "", Path(source).stem)


def golden_rows(collection: Path, golden: Path) -> list[dict[str, Any]]:
    """Hand-written questions of a labelled set, asked of their collection; folds by the chapter that answers them.

    Absent-answer questions have no chapter; they alternate between the folds in file order.
    """
    from bunko.evaluate.metrics import fact_match

    questions = [json.loads(line) for line in golden.read_text(encoding="utf-8").splitlines() if line.strip()]
    chapters_of = sorted({page_of(q["relevant_sources"][0]) for q in questions if q.get("relevant_sources")})
    fold_of = {chapter: i % 2 for i, chapter in enumerate(chapters_of)}
    kb = Bunko(collection, create=False)
    kb.config.answer.min_confidence = 0.0
    rows = []
    for i, q in enumerate(questions):
        answer = kb.ask(q["question"])
        trace = kb.trace(answer.trace_id) or {}
        grade = trace.get("grade") or {}
        expected = q.get("expected_answer")
        expected = [expected] if isinstance(expected, str) else expected
        chapter = page_of(q["relevant_sources"][0]) if q.get("relevant_sources") else None
        rows.append({
            "question": q["question"], "lang": {"zh": "zh-cn"}.get(q["tags"]["lang"], q["tags"]["lang"]), "source": "golden",
            "fold": fold_of[chapter] if chapter else i % 2, "answerable": expected is not None, "number": q["id"],
            "right": bool(expected) and not answer.abstained and fact_match(answer.text, expected),
            "features": grade.get("features") or {}, "missing": grade.get("missing_key_terms") or [],
            "reason": trace.get("abstain_reason"),
        })
    kb.close()
    return rows


REFUSED = ("key_term_absent", "key_term_not_in_evidence", "no_hits")
"""Rows the grade refuses whatever the confidence: they carry no information for the logistic."""


def weights_for(rows: list[dict[str, Any]]) -> np.ndarray:
    """Golden rows weigh as much in total as the generated ones: they are few, and the kind of question that matters."""
    golden = sum(r["source"] == "golden" for r in rows)
    other = len(rows) - golden
    share = other / golden if golden and other else 1.0
    return np.array([share if r["source"] == "golden" else 1.0 for r in rows])


def matrix(rows: list[dict[str, Any]]) -> tuple[np.ndarray, np.ndarray]:
    x = np.array([[r["features"][name] for name in MODEL_FEATURES] for r in rows], dtype=np.float64)
    return x, np.array([float(r["right"]) for r in rows])


DECISION_TOLERANCE = 0.01
"""Thresholds whose share of right decisions is within this of the best are equally good; the lowest one is
taken, because between equal choices an answer with its citation serves a reader better than a refusal."""


def decision_curve(p: np.ndarray, y: np.ndarray) -> list[tuple[float, float]]:
    """(threshold, share of right decisions: answer (p ≥ t) when right, abstain when wrong)."""
    return [(float(t), float(np.mean(np.where(p >= t, y, 1 - y)))) for t in np.round(np.arange(0.05, 0.96, 0.05), 2)]


def best_threshold(p: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    curve = decision_curve(p, y)
    best = max(score for _, score in curve)
    return next((t, s) for t, s in curve if s >= best - DECISION_TOLERANCE)


def held_out_decisions(data: list[dict[str, Any]], held_out: list[tuple[dict[str, Any], float]], threshold: float) -> dict[str, Any]:
    """Fact, abstention precision and recall of the golden set per language, from held-out confidences at the threshold."""
    predicted = {id(r): q for r, q in held_out}
    golden = [r for r in data if r["source"] == "golden"]
    out: dict[str, Any] = {}
    for language in [None, *LANGUAGE_DIRS]:
        rows = [r for r in golden if language is None or r["lang"] == language]
        if not rows:
            continue
        answered = {id(r) for r in rows if predicted.get(id(r), 0.0) >= threshold}
        answerable = [r for r in rows if r["answerable"]]
        abstained = [r for r in rows if id(r) not in answered]
        absent = [r for r in rows if not r["answerable"]]
        out[language or "all"] = {
            "fact": round(sum(r["right"] and id(r) in answered for r in answerable) / max(len(answerable), 1), 3),
            "abstention_precision": round(sum(not r["answerable"] for r in abstained) / max(len(abstained), 1), 3),
            "abstention_recall": round(sum(id(r) not in answered for r in absent) / max(len(absent), 1), 3),
        }
    return out


CALIBRATION_L2 = 0.01
REVIEW_RAW = 0.7
"""The raw retrieval confidence below which a regulated answer asked for review before the grade was calibrated."""


def raw_retrieval(row: dict[str, Any]) -> float:
    """The default grade's uncalibrated confidence of a row; refused rows are 0, as the grade makes them."""
    usable = row["features"] and not row["missing"] and row.get("reason") not in REFUSED
    return float(row["features"]["retrieval"]) if usable else 0.0


CALIBRATION_FEATURES = ("retrieval",)
"""The default map reads the retrieval grade alone. With the question's language too ("japanese", "chinese": one
offset each, fitted on some twenty rows per language) the offsets were noise: refitted after a parser change they
swapped sizes, and held-out ECE on the Handbook questions was 0.154 against 0.042 for the grade alone, on the Debian
Reference set (never fitted on) 0.112 / 0.078 / 0.095 against 0.051 / 0.047 / 0.103 (en / ja / zh)."""
_CALIBRATION_COLUMNS: dict[str, Callable[[dict[str, Any]], float]] = {
    "retrieval": raw_retrieval,
    "japanese": lambda row: float(row["lang"] == "ja"),
    "chinese": lambda row: float(row["lang"] == "zh-cn"),
}
QUESTION_LANGUAGES = {"en": "en", "ja": "ja", "zh-cn": "zh"}
"""Row language (the FAQ's folder names) → the question language `text.languages.query_language` gives."""


def calibration_matrix(rows: list[dict[str, Any]]) -> np.ndarray:
    return np.array([[_CALIBRATION_COLUMNS[feature](r) for feature in CALIBRATION_FEATURES] for r in rows])


def fit_retrieval_calibration(data: list[dict[str, Any]]) -> tuple[dict[str, Any], ConfidenceModel]:
    """A map of the retrieval grade (`CALIBRATION_FEATURES`) onto P(answer right), increasing in the grade: the
    default grade's decisions stay the same (its threshold is mapped per language), its confidence becomes a probability.

    Fitted on the hand-written questions when there are any, cross-validated across their chapter folds: generated
    questions are answered right less often at the same retrieval score (they share more words with their passage,
    so the grade rates them higher), and a map fitted on them too claimed 0.54 for answers right seven times in ten
    (ECE 0.14 on the hand-written set). Two parameters, so ninety questions fit them without much variance.
    """
    golden = np.array([r["source"] == "golden" for r in data])
    fitted = golden if golden.any() else ~golden
    x = calibration_matrix(data)
    raw = x[:, 0]
    y = np.array([float(r["right"]) for r in data])
    folds = np.array([r["fold"] for r in data])
    held_out = np.zeros(len(data))
    for fold in (0, 1):
        train = fitted & (folds != fold) & (raw > 0)
        w, b = fit_logistic(x[train], y[train], l2=CALIBRATION_L2)
        test = folds == fold
        held_out[test] = np.where(raw[test] > 0, 1 / (1 + np.exp(-(x[test] @ w + b))), 0.0)
    judged = fitted
    ece, table = expected_calibration_error(held_out[judged], y[judged])
    by_language = {}
    for language in LANGUAGE_DIRS:
        mask = judged & np.array([r["lang"] == language for r in data])
        by_language[language] = round(expected_calibration_error(held_out[mask], y[mask])[0], 4) if mask.any() else None
    w, b = fit_logistic(x[fitted & (raw > 0)], y[fitted & (raw > 0)], l2=CALIBRATION_L2)
    if w[0] <= 0:
        raise SystemExit(f"the calibration map is not increasing (weight {w[0]:.4f}): the grade's decisions would change")
    model = ConfidenceModel(list(CALIBRATION_FEATURES), [float(v) for v in w], float(b), {})

    def mapped(raw_value: float, language: str) -> float:
        marks = {"japanese": float(language == "ja"), "chinese": float(language == "zh")}
        return round(model.probability(AnswerFeatures(retrieval=raw_value, **marks)), 4)

    languages = sorted(set(QUESTION_LANGUAGES.values()))
    thresholds = {language: mapped(RETRIEVAL_THRESHOLD, language) for language in languages}
    review = {language: mapped(REVIEW_RAW, language) for language in languages}
    summary = {
        "cv_ece": round(ece, 4), "cv_ece_by_language": by_language, "raw_ece": round(expected_calibration_error(raw[judged], y[judged])[0], 4),
        "fitted_on": "golden" if golden.any() else "generated", "fitted_rows": int((fitted & (raw > 0)).sum()),
        "cv_ece_generated": round(expected_calibration_error(held_out[~golden], y[~golden])[0], 4) if (~golden).any() else None,
        "cv_reliability": table, "weights": dict(zip(CALIBRATION_FEATURES, np.round(w, 4).tolist(), strict=True)),
        "bias": round(float(b), 4), "thresholds": thresholds, "review_thresholds": review,
    }
    model.meta = {
        "fitted_by": "python bench/fit_confidence.py",
        "maps": f"{', '.join(CALIBRATION_FEATURES)} (bunko.generate.retrieval_grade) onto P(answer right)",
        "cv_ece": summary["cv_ece"], "threshold": thresholds["en"], "review_below": review["en"], "thresholds": thresholds,
        "review_thresholds": review, "raw_threshold": RETRIEVAL_THRESHOLD, "raw_review_below": REVIEW_RAW,
    }
    return summary, model


def calibration_lines(summary: dict[str, Any]) -> list[str]:
    weights = summary["weights"]
    return [
        "", "## The default grade, calibrated (`[answer] confidence = \"calibrated\"`)", "",
        f"A logistic map of {', '.join(CALIBRATION_FEATURES)} onto P(answer right), increasing in the grade,",
        "fitted on the hand-written questions (when given) with the same chapter folds: the default's decisions do not",
        "change (its threshold is mapped with it, per language), its confidence becomes a probability.", "",
        f"- fitted on: {summary['fitted_on']} questions ({summary['fitted_rows']} rows the grade does not refuse outright)",
        f"- held-out ECE on the judged questions: **{summary['cv_ece']}** (by language: {summary['cv_ece_by_language']}), "
        f"against {summary['raw_ece']} for the uncalibrated grade; on the generated questions: {summary['cv_ece_generated']}",
        "- map: P = σ(" + " + ".join(f"{v} · {k}" for k, v in weights.items()) + f" + {summary['bias']}); "
        f"threshold {RETRIEVAL_THRESHOLD} → **{summary['thresholds']}**, review below {REVIEW_RAW} → "
        f"**{summary['review_thresholds']}**",
        "", "| confidence bin | questions | mean confidence | share right |", "|---|---|---|---|",
        *[f"| {b['low']:.1f}–{b['high']:.1f} | {b['count']} | {b['confidence']:.3f} | {b['accuracy']:.3f} |" for b in summary["cv_reliability"]],
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--limit", type=int, help="ask about this many questions (quick check)")
    parser.add_argument("--l2", type=float, default=1.0)
    parser.add_argument("--no-write", action="store_true", help="measure, do not replace the packaged model")
    parser.add_argument("--data", type=Path, help="reuse features collected by an earlier run (JSON)")
    parser.add_argument("--golden", type=Path, help="a labelled set of hand-written questions (bunko golden format) ...")
    parser.add_argument("--collection", type=Path, help="... and the collection it is asked of (a .bunko folder)")
    args = parser.parse_args()
    if args.data:
        data = json.loads(args.data.read_text(encoding="utf-8"))
    else:
        if not FAQ.exists():
            raise SystemExit(f"{FAQ} not found: apt-get install debian-faq debian-faq-ja debian-faq-zh-cn")
        work = Path(tempfile.mkdtemp(prefix="bunko-confidence-"))
        try:
            data = collect(work, args.limit)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    if args.golden:  # asked again: the collection or the code may have changed since --data was collected
        data = [r for r in data if r.get("source") != "golden"]
        if not args.collection:
            raise SystemExit("--golden needs --collection (the .bunko folder its documents are ingested in)")
        data += golden_rows(args.collection, args.golden)
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "confidence-data.json").write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")

    usable = [r for r in data if r["features"] and not r["missing"] and r.get("reason") not in REFUSED]
    held_out: list[tuple[dict[str, Any], float]] = []
    for fold in (0, 1):
        train = [r for r in usable if r["fold"] != fold]
        test = [r for r in usable if r["fold"] == fold]
        weights, bias = fit_logistic(*matrix(train), l2=args.l2, sample_weight=weights_for(train))
        x, _ = matrix(test)
        held_out.extend(zip(test, 1 / (1 + np.exp(-(x @ weights + bias))), strict=True))
    # Calibration and the threshold are judged on the hand-written questions when there are any.
    judged = [(r, q) for r, q in held_out if r["source"] == "golden"] or held_out
    p = np.array([q for _, q in judged])
    y = np.array([float(r["right"]) for r, _ in judged])
    ece, table = expected_calibration_error(p, y)
    threshold, decision_accuracy = best_threshold(p, y)
    generated = [(r, q) for r, q in held_out if r["source"] != "golden"]
    generated_ece = expected_calibration_error([q for _, q in generated], [float(r["right"]) for r, _ in generated])[0]
    weights, bias = fit_logistic(*matrix(usable), l2=args.l2, sample_weight=weights_for(usable))
    decisions = held_out_decisions(data, held_out, threshold)
    by_language = {}
    for language in LANGUAGE_DIRS:
        mask = np.array([r["lang"] == language for r, _ in judged])
        by_language[language] = round(expected_calibration_error(p[mask], y[mask])[0], 4) if mask.any() else None
    key_term_rows = [r for r in data if r["missing"]]
    summary = {
        "questions": len({(r["lang"], r["number"]) for r in data}), "rows": len(data), "fitted_rows": len(usable),
        "judged_on": "golden" if any(r["source"] == "golden" for r, _ in held_out) else "generated", "judged_rows": len(judged),
        "right_share": round(float(y.mean()), 4), "cv_ece": round(ece, 4), "cv_ece_by_language": by_language,
        "cv_ece_generated": round(generated_ece, 4), "cv_decisions_at_threshold": decisions,
        "cv_reliability": table, "cv_decision_curve": decision_curve(p, y), "threshold": threshold, "cv_decision_accuracy": round(decision_accuracy, 4),
        "key_term_absent": {"rows": len(key_term_rows), "of_them_answerable": sum(r["answerable"] for r in key_term_rows)},
        "weights": dict(zip(MODEL_FEATURES, np.round(weights, 4).tolist(), strict=True)), "bias": round(bias, 4), "l2": args.l2,
    }
    calibration, calibration_model = fit_retrieval_calibration(data)
    summary["calibrated_retrieval"] = calibration
    (RESULTS / "confidence.json").write_text(json.dumps(summary, ensure_ascii=False, indent=1), encoding="utf-8")
    lines = [
        "# Answer confidence: fit and calibration", "",
        "`python bench/fit_confidence.py` — Debian FAQ (en/ja/zh-cn): its heading questions (headings removed from the",
        "ingested copies) and typed cloze questions made from its sentences (span taken out, half of the words dropped);",
        "two folds by chapter (the other fold's questions are the absent ones); with `--golden`, hand-written golden questions",
        "too, folded by the chapter that answers them and weighing as much as the generated ones; cross-validated across the folds.", "",
        f"- questions: {summary['questions']}, asked rows: {len(data)}, fitted: {len(usable)}, right: {summary['right_share']}",
        f"- judged on: {summary['judged_on']} questions ({len(judged)} held-out rows); golden set: {args.golden or 'from --data'}",
        f"- held-out ECE: **{summary['cv_ece']}** (by language: {by_language}); on the generated questions: {summary['cv_ece_generated']}",
        f"- threshold: **{threshold}**, the lowest whose held-out share of right decisions is within {DECISION_TOLERANCE} of the best "
        f"({summary['cv_decision_accuracy']}); curve: " + ", ".join(f"{t:.2f}: {s:.3f}" for t, s in summary["cv_decision_curve"][:10]),
        f"- held-out answers of the golden set at the threshold (refused rows abstain): {decisions}",
        f"- key term absent from the collection: {len(key_term_rows)} rows, {summary['key_term_absent']['of_them_answerable']} of them answerable",
        "", "| confidence bin | questions | mean confidence | share right |", "|---|---|---|---|",
        *[f"| {b['low']:.1f}–{b['high']:.1f} | {b['count']} | {b['confidence']:.3f} | {b['accuracy']:.3f} |" for b in table],
        "", "| feature | weight |", "|---|---|", *[f"| {k} | {v} |" for k, v in summary["weights"].items()], f"| (bias) | {summary['bias']} |",
        *calibration_lines(calibration),
    ]
    (RESULTS / "confidence.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))
    if not args.no_write:
        golden_count = sum(r["source"] == "golden" for r in data)
        source = f" + {golden_count} hand-written golden questions" if golden_count else ""
        meta = {"fitted_by": "python bench/fit_confidence.py", "data": "Debian FAQ en/ja/zh-cn: heading questions (headings removed) + cloze questions" + source + ", 2 chapter folds",
                "cv_ece": summary["cv_ece"], "threshold": threshold, "rows": len(usable)}
        MODEL.write_text(ConfidenceModel(list(MODEL_FEATURES), [float(w) for w in weights], float(bias), meta).to_json() + "\n", encoding="utf-8")
        CALIBRATION.write_text(calibration_model.to_json() + "\n", encoding="utf-8")
        print(f"wrote {MODEL} and {CALIBRATION}")


if __name__ == "__main__":
    main()
