#!/usr/bin/env bash
# Lays out the Debian Administrator's Handbook (en / ja / zh) that questions.jsonl is written against.
# Usage: prepare.sh DEST   -> DEST/html/{en,ja,zh}/<file>.html (129 pages per language, HTML only)
set -euo pipefail
dest=${1:?usage: prepare.sh DEST}
src=/usr/share/doc/debian-handbook/html
if [ ! -d "$src/en-US" ] || [ ! -d "$src/ja-JP" ] || [ ! -d "$src/zh-CN" ]; then
  echo "error: $src/{en-US,ja-JP,zh-CN} not found; run: apt-get install debian-handbook" >&2
  exit 1
fi
for pair in en:en-US ja:ja-JP zh:zh-CN; do
  short=${pair%%:*}
  long=${pair#*:}
  mkdir -p "$dest/html/$short"
  cp "$src/$long/"*.html "$dest/html/$short/"
done
echo "$(ls "$dest/html/en" | wc -l) en, $(ls "$dest/html/ja" | wc -l) ja, $(ls "$dest/html/zh" | wc -l) zh pages in $dest/html"
