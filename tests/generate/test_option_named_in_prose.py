"""An option the prose names as an option (pgpsigurlmangle 选项, the $(DESTDIR) variable) answers an option question,
though it has no dash: a code block repeating the question's own command, options and all, does not (ja/zh/en)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

import pytest

from bunko import Bunko

GUIDES = {
    "watch-en.md": """# The watch file

## Checking for new upstream versions

The watch file configures uscan to look for new upstream releases. Run it from the source tree:

```
$ uscan --verbose --report
$ uscan --download-current-version -v
```

If upstream publishes a cryptographic signature of its tarball, you should verify it; use the pgpsigurlmangle option
for that, as described in uscan(1).
""",
    "watch-ja.md": """# watch ファイル

## 新しいアップストリーム版の確認

watch ファイルは、新しいアップストリーム版を探すように uscan を設定します。ソースツリーで次のように実行します:

```
$ uscan --verbose --report
$ uscan --download-current-version -v
```

アップストリームが tarball の暗号署名を公開している場合は検証すべきです。そのためには uscan(1) にあるように
pgpsigurlmangle オプションを使います。
""",
    "watch-zh.md": """# watch 文件

## 检查新的上游版本

watch 文件配置 uscan 去查找新的上游版本。在源码目录中这样运行：

```
$ uscan --verbose --report
$ uscan --download-current-version -v
```

如果上游公开了 tarball 的加密签名，应当校验其真实性，可以用 pgpsigurlmangle 选项来实现，这一点在 uscan(1) 中有描述。
""",
}


@pytest.fixture(scope="module")
def guides(folder_of: Callable[[str, Mapping[str, str]], Path]) -> Path:
    return folder_of("watch-guides", GUIDES)


@pytest.mark.parametrize(
    "question",
    [
        "Upstream signs every tarball it releases. Which option makes uscan --verbose verify that signature?",
        "アップストリームは tarball に署名しています。uscan --verbose でその署名も検証させるには、どのオプションを使いますか？",
        "上游发布 tarball 时附带了加密签名，我想让 uscan --verbose 顺便验证签名，该用哪个选项？",
    ],
)
def test_an_option_named_in_prose_answers_the_option_question(guides: Path, make_kb: Callable[..., Bunko], question: str) -> None:
    kb = make_kb(name="watch-guides")
    kb.ingest([guides])
    answer = kb.ask(question)
    assert not answer.abstained
    assert "pgpsigurlmangle" in answer.text, answer.text
