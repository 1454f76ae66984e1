#!/usr/bin/env bash
# Lays out the Debian New Maintainers' Guide (en / ja / zh-cn) that questions.jsonl is written against.
# Usage: prepare.sh DEST   -> DEST/html/{en,ja,zh}/<chapter>.<lang>.html (11 pages per language)
#                             DEST/pdf/{en,ja,zh}/maint-guide.<lang>.pdf  (one PDF per language)
# Idempotent: re-running overwrites the copies.
set -euo pipefail
dest=${1:?usage: prepare.sh DEST}
missing=""
for pair in en:maint-guide:en ja:maint-guide-ja:ja zh:maint-guide-zh-cn:zh-cn; do
  IFS=: read -r short pkg suffix <<<"$pair"
  src=/usr/share/doc/$pkg
  if ! ls "$src"/html/*."$suffix".html >/dev/null 2>&1 || [ ! -f "$src/maint-guide.$suffix.pdf" ]; then
    missing="$missing $pkg"
  fi
done
if [ -n "$missing" ]; then
  echo "error: the Debian package(s)$missing are not installed (or their HTML/PDF is missing); run: apt-get install -y$missing" >&2
  exit 1
fi
for pair in en:maint-guide:en ja:maint-guide-ja:ja zh:maint-guide-zh-cn:zh-cn; do
  IFS=: read -r short pkg suffix <<<"$pair"
  src=/usr/share/doc/$pkg
  mkdir -p "$dest/html/$short" "$dest/pdf/$short"
  cp "$src"/html/*."$suffix".html "$dest/html/$short/"
  cp "$src/maint-guide.$suffix.pdf" "$dest/pdf/$short/"
done
echo "$(ls "$dest/html/en" | wc -l) en, $(ls "$dest/html/ja" | wc -l) ja, $(ls "$dest/html/zh" | wc -l) zh pages in $dest/html; $(find "$dest/pdf" -name '*.pdf' | wc -l) PDFs in $dest/pdf"
