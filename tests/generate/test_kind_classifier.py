"""The learned question-kind classifier beside the rules: packaged, predicting the plain cases in ja/zh/en, overruled
where the rules are certain, traced, switchable, and a clear error for a missing or corrupt model file."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from bunko import Bunko
from bunko.config import Config
from bunko.generate.analysis import analyze, rule_flags
from bunko.generate.kind_classifier import KINDS, KindClassifier, KindModelError
from bunko.generate.trace_view import render_trace
from bunko.text.analyzers import get_analyzer

ANALYZER = get_analyzer("multilingual")


@pytest.fixture(scope="module")
def model() -> KindClassifier:
    return KindClassifier.load()


def test_the_model_ships_in_the_package(model: KindClassifier) -> None:
    assert model.kinds == list(KINDS) and model.weights.shape == (len(KINDS), model.dim) and 0 < model.threshold < 1
    assert model.meta["questions"] >= 400 and model.analyzer_name == "multilingual"


@pytest.mark.parametrize(("question", "kind"), [
    ("Please write a short poem about the mountains.", "out_of_scope"),
    ("What's the weather forecast for this weekend?", "out_of_scope"),
    ("山についての短い詩を書いてください。", "out_of_scope"),
    ("今週末の天気予報はどうですか？", "out_of_scope"),
    ("给我写一首关于山的诗。", "out_of_scope"),
    ("这个周末天气怎么样？", "out_of_scope"),
    ("What is the difference between the gold and silver support plans?", "comparison"),
    ("ゴールドプランとシルバープランの違いは何ですか？", "comparison"),
    ("金卡和银卡有什么区别？", "comparison"),
    ("How many meeting rooms are there in total?", "aggregation"),
    ("会議室は全部でいくつありますか？", "aggregation"),
    ("会议室一共有几个？", "aggregation"),
])
def test_plain_cases_are_predicted_in_each_language(model: KindClassifier, question: str, kind: str) -> None:
    predicted = model.predict(question, rule_flags(question, ANALYZER))
    assert predicted.kind == kind, predicted
    assert abs(sum(predicted.probabilities.values()) - 1) < 1e-3 and predicted.probability == predicted.probabilities[kind]


def test_the_classifier_decides_a_kind_the_rules_cannot_see(model: KindClassifier) -> None:
    question = "Please write a short poem about the mountains."
    assert analyze(question, ANALYZER).kind == "single"
    analysis = analyze(question, ANALYZER, classifier=model)
    assert analysis.kind == "out_of_scope" and analysis.decided_by == "classifier" and analysis.rule_kind == "single"
    assert analysis.retrieves, "out-of-scope questions are still searched (bench/results/question-kinds.md)"


@pytest.mark.parametrize(("question", "kind"), [
    ("Hello!", "greeting"), ("谢谢！", "greeting"), ("3+4は？", "arithmetic"), ("What is 12 * 7?", "arithmetic"),
    ("What did I just ask?", "conversation"), ("これまでの会話を要約して", "conversation"), ("总结一下我们的对话", "conversation"),
])
def test_rules_win_where_they_are_certain(model: KindClassifier, question: str, kind: str) -> None:
    analysis = analyze(question, ANALYZER, classifier=model)
    assert analysis.kind == kind and analysis.decided_by == "rules (certain)" and not analysis.retrieves
    assert analysis.classifier is not None and analysis.classifier["kind"] in KINDS  # recorded, not obeyed


def test_a_several_part_question_keeps_its_parts_whoever_decides(model: KindClassifier) -> None:
    question = "How long are security audit logs kept and how long are CCTV recordings kept?"
    assert len(analyze(question, ANALYZER, classifier=model).parts) == 2


@pytest.fixture
def kb(samples_kb_path: Path, embedder: Any) -> Bunko:
    return Bunko(samples_kb_path, config=Config(), embedder=embedder)


@pytest.mark.parametrize("question", ["婚假有几天？", "東京23区の宿泊費の上限はいくらですか？", "Write me a poem about autumn leaves."])
def test_the_trace_records_the_rules_and_the_classifier(kb: Bunko, question: str) -> None:
    answer = kb.ask(question)
    assert answer.trace is not None
    step = answer.trace.steps[0]
    assert step.name == "analysis" and step.output.to_dict()["decided_by"] in ("rules", "classifier")
    assert step.output.to_dict()["rule_kind"] and step.output.to_dict()["classifier"]["kind"] in KINDS and 0 < step.output.to_dict()["classifier"]["probability"] <= 1
    assert answer.trace.evidence.route["mode"] != "none"  # every one of them is searched
    stored = kb.trace(answer.trace_id)
    assert stored["steps"][0]["output"]["classifier"] == step.output.to_dict()["classifier"]
    out = io.StringIO()
    render_trace(Console(file=out, width=300), stored)
    shown = f"classifier {step.output.to_dict()['classifier']['kind']} (p={step.output.to_dict()['classifier']['probability']})"
    assert shown in out.getvalue() and f"rule_kind {step.output.to_dict()['rule_kind']}" in out.getvalue()
    kb.config.agent.classifier = False
    assert "classifier" not in kb.ask(question).trace.steps[0].output.to_dict()  # type: ignore[union-attr]


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_a_missing_or_corrupt_model_file_is_a_clear_error(tmp_path: Path, model: KindClassifier) -> None:
    with pytest.raises(KindModelError, match=r"missing\.json.*cannot be read.*fit_question_kinds"):
        KindClassifier.load(tmp_path / "missing.json")
    with pytest.raises(KindModelError, match=r"broken\.json.*not a model file"):
        KindClassifier.load(_write(tmp_path / "broken.json", '{"kinds": ["single_hop"'))
    data = json.loads(model.to_json())
    data["weights"] = data["weights"][:2]
    with pytest.raises(KindModelError, match=r"short\.json.*do not fit together"):
        KindClassifier.load(_write(tmp_path / "short.json", json.dumps(data)))
    data = json.loads(model.to_json())
    data["analyzer"] = "klingon"
    with pytest.raises(KindModelError, match=r"klingon\.json.*unknown analyzer 'klingon'"):
        KindClassifier.load(_write(tmp_path / "klingon.json", json.dumps(data)))


def test_a_model_written_and_read_back_predicts_the_same(tmp_path: Path, model: KindClassifier) -> None:
    again = KindClassifier.load(_write(tmp_path / "model.json", model.to_json()))
    question = "ゴールドプランとシルバープランの違いは何ですか？"
    flags = rule_flags(question, ANALYZER)
    assert again.predict(question, flags).kind == model.predict(question, flags).kind
