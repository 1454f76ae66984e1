"""An option the prose names as an option (sumlisturl 选项, a $(STAGEDIR) variable) answers an option question,
though it has no dash: a code block repeating the question's own command, options and all, does not (ja/zh/en)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

import pytest

from bunko import Bunko

GUIDES = {
    "mirror-en.md": """# The mirror file

## Checking for new vendor releases

The mirror file configures fetchr to look for new releases on the vendor site. Run it from the project folder:

```
$ fetchr --quiet --list
$ fetchr --pull-latest -q
```

If the vendor publishes a checksum list beside its archives, you should compare against it; use the sumlisturl
option for that, as described in fetchr(1).
""",
    "mirror-ja.md": """# mirror ファイル

## ベンダーの新しいリリースの確認

mirror ファイルは、ベンダーのサイトで新しいリリースを探すように fetchr を設定します。プロジェクトのフォルダーで次のように実行します:

```
$ fetchr --quiet --list
$ fetchr --pull-latest -q
```

ベンダーがアーカイブと一緒にチェックサムの一覧を公開している場合は照合すべきです。そのためには fetchr(1) にあるように
sumlisturl オプションを使います。
""",
    "mirror-zh.md": """# mirror 文件

## 检查厂商的新发布版本

mirror 文件配置 fetchr 去厂商网站查找新的发布版本。在项目目录中这样运行：

```
$ fetchr --quiet --list
$ fetchr --pull-latest -q
```

如果厂商在归档旁边公开了校验和列表，应当与之核对，可以用 sumlisturl 选项来实现，这一点在 fetchr(1) 中有描述。
""",
}


@pytest.fixture(scope="module")
def guides(folder_of: Callable[[str, Mapping[str, str]], Path]) -> Path:
    return folder_of("mirror-guides", GUIDES)


@pytest.mark.parametrize(
    "question",
    [
        "The vendor publishes a checksum list for its archives. Which option makes fetchr --quiet compare against that list?",
        "ベンダーはアーカイブごとにチェックサムを公開しています。fetchr --quiet でその一覧とも照合させるには、どのオプションを使いますか？",
        "厂商发布归档时附带了校验和列表，我想让 fetchr --quiet 顺便核对校验和，该用哪个选项？",
    ],
)
def test_an_option_named_in_prose_answers_the_option_question(guides: Path, make_kb: Callable[..., Bunko], question: str) -> None:
    kb = make_kb(name="mirror-guides")
    kb.ingest([guides])
    answer = kb.ask(question)
    assert not answer.abstained
    assert "sumlisturl" in answer.text, answer.text



def test_an_option_named_in_prose_answers_a_question_worded_apart_from_it(
    folder_of: Callable[[str, Mapping[str, str]], Path], make_kb: Callable[..., Bunko],
) -> None:
    guide = GUIDES["mirror-en.md"].replace("a checksum list beside its archives", "a list of checksums beside its archives")
    kb = make_kb(name="mirror-plural")
    kb.ingest([folder_of("mirror-plural", {"mirror-en.md": guide})])
    answer = kb.ask("The vendor lists a checksum for every archive it releases. Which option makes fetchr --quiet compare against that list?")
    assert not answer.abstained
    assert "sumlisturl" in answer.text, answer.text
