"""Every document and chunk carries its detected language (per chunk in a mixed document), and `lang` filters search."""

from __future__ import annotations

from pathlib import Path

from bunko.schema import Chunk

PAGES = {
    "leave-ja.md": "# 休暇規程\n\n## 年次有給休暇\n\n入社後六か月を経過した社員には、年次有給休暇を十日付与します。休暇の申請は三日前までに上長へ提出してください。\n",
    "leave-zh.md": "# 休假制度\n\n## 年假\n\n员工入职满一年后享有年假五天，请至少提前三天向主管提交休假申请。\n",
    "leave-en.md": "# Leave policy\n\n## Annual leave\n\nEmployees receive twenty days of annual leave a year; request leave from your manager three days ahead.\n",
    "handbook-mixed.md": (
        "# 社員ハンドブック\n\n## 休暇の申請\n\n休暇を取得する場合は、勤怠システムから申請し、上長の承認を受けてください。"
        "承認された休暇は自動的に勤怠記録に反映されます。申請の締め切りは取得日の三日前です。"
        "急な病気などでやむを得ず当日に休む場合は、始業時刻までに上長へ電話で連絡し、後日システムから申請してください。"
        "長期の休暇を取る場合は、業務の引き継ぎ先を決めてから申請してください。\n\n"
        "## 上海办公室\n\n上海办公室的员工请通过人事系统提交休假申请，并抄送当地人力资源部。\n\n"
        "## Visitors\n\nVisitors to the Tokyo office must register at reception and wear a badge at all times.\n"
    ),
}
SECTIONS = {"休暇の申請": "ja", "上海办公室": "zh", "Visitors": "en"}


def write_pages(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in PAGES.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def section_languages(chunks: list[Chunk]) -> dict[str, set[str | None]]:
    found: dict[str, set[str | None]] = {}
    for chunk in chunks:
        if len(chunk.section_path) > 1:
            found.setdefault(chunk.section_path[-1], set()).add(chunk.lang)
    return found


def test_documents_and_chunks_carry_their_language_and_lang_filters_search(make_kb, tmp_path: Path) -> None:
    kb = make_kb()
    assert kb.ingest(write_pages(tmp_path / "docs")).ok
    documents = {Path(d.source).name: d for d in kb.documents()}
    assert {name: d.lang for name, d in documents.items()} == {
        "leave-ja.md": "ja", "leave-zh.md": "zh", "leave-en.md": "en", "handbook-mixed.md": "ja",
    }
    mixed = documents["handbook-mixed.md"]
    assert next(iter(mixed.languages)) == "ja" and set(mixed.languages) == {"ja", "zh", "en"}
    assert documents["leave-zh.md"].languages == {"zh": 1.0}
    chunks = kb.chunks(mixed.source)
    assert all(c.lang in ("ja", "zh", "en") for c in chunks)  # parents and children alike
    assert section_languages(chunks) == {section: {lang} for section, lang in SECTIONS.items()}

    question = "休暇の申請 休假申请 leave request"
    for lang in ("ja", "zh", "en"):
        hits = kb.search(question, k=10, filters={"lang": lang})
        assert hits and {h.chunk.lang for h in hits} == {lang}
        assert {Path(h.chunk.source).name for h in hits} >= {f"leave-{lang}.md", "handbook-mixed.md"}
    only = kb.search(question, k=10, filters={"$and": [{"lang": "zh"}, {"source": {"$glob": "*mixed*"}}]})
    assert [h.chunk.section_path[-1] for h in only] == ["上海办公室"]
    assert {h.chunk.lang for h in kb.search(question, k=10, filters={"lang": {"$ne": "ja"}})} == {"zh", "en"}

    kb.reindex()  # rewriting every document keeps (re-judges) the languages
    assert {Path(d.source).name: d.lang for d in kb.documents()} == {name: d.lang for name, d in documents.items()}
    assert section_languages(kb.chunks(mixed.source)) == {section: {lang} for section, lang in SECTIONS.items()}
