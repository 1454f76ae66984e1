#!/usr/bin/env bash
# Lays out the Python 3.11 documentation pages (English) that questions.jsonl is written against.
# Usage: prepare.sh DEST   -> DEST/html/<section>/<page>.html, exactly the PAGES below (HTML only, no CSS,
#                             images or other pages of the manual)
# Idempotent: re-running overwrites the copies.
set -euo pipefail
dest=${1:?usage: prepare.sh DEST}
src=/usr/share/doc/python3.11-doc/html
PAGES="
using/cmdline using/configure using/unix
howto/argparse howto/logging howto/regex howto/sorting howto/unicode
faq/general faq/programming faq/library faq/installed faq/design
library/functions library/constants library/exceptions library/stdtypes library/string library/re
library/textwrap library/difflib library/datetime library/calendar library/time library/collections
library/heapq library/bisect library/copy library/pprint library/enum library/dataclasses
library/math library/random library/statistics library/itertools library/functools
library/os library/os.path library/pathlib library/shutil library/tempfile library/glob library/fnmatch
library/filecmp library/io library/pickle library/shelve library/sqlite3 library/zlib library/gzip
library/bz2 library/lzma library/zipfile library/tarfile library/csv library/configparser library/tomllib
library/hashlib library/secrets library/base64 library/json library/uuid library/logging
library/logging.config library/logging.handlers library/getpass library/platform library/argparse
library/subprocess library/threading library/concurrent.futures library/queue library/shlex
library/urllib.parse library/http.server library/unittest library/pdb library/timeit library/sys
library/sysconfig library/warnings library/contextlib library/traceback library/gc library/site
library/venv library/zipapp library/ensurepip library/compileall library/py_compile
"
missing=""
for page in $PAGES; do
  [ -f "$src/$page.html" ] || missing="$missing $page.html"
done
if [ -n "$missing" ]; then
  echo "error: $src lacks$missing; the Debian package python3.11-doc is not installed (run: apt-get install -y python3.11-doc)" >&2
  exit 1
fi
for page in $PAGES; do
  mkdir -p "$dest/html/$(dirname "$page")"
  cp "$src/$page.html" "$dest/html/$page.html"
done
echo "$(find "$dest/html" -name '*.html' | wc -l) pages in $dest/html"
