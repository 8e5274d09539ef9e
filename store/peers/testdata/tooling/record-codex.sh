#!/bin/sh
# Records the codex fixtures against fakemodel (see README.md). Usage:
#   record-codex.sh CODEX_BIN OUT_HOME WORK_DIR
# fakemodel must listen on 127.0.0.1:18080.
set -eu
CODEX=$1 HOME_DIR=$2 WD=$3
export CODEX_HOME=$HOME_DIR FAKE_API_KEY=dummy
mkdir -p "$CODEX_HOME" "$WD"
cat > "$CODEX_HOME/config.toml" <<'TOML'
model = "fake-model"
model_provider = "fake"
model_auto_compact_token_limit = 200000

[model_providers.fake]
name = "fake"
base_url = "http://127.0.0.1:18080/v1"
wire_api = "responses"
env_key = "FAKE_API_KEY"
TOML
cd "$WD"
x() { "$CODEX" exec --skip-git-repo-check -s danger-full-access "$@"; }
# 1. exec: two rounds of tool calls, one failing, then resume twice.
x 'Write a file and list the dir.
@1 exec_command {"cmd":"printf hello > hello.txt && cat hello.txt"}
@1 exec_command {"cmd":"cat missing.txt"}
@2 exec_command {"cmd":"ls"}'
x resume --last 'Now count the lines.
@1 exec_command {"cmd":"wc -l hello.txt"}'
x resume --last 'Thanks, that is all.'
# 2. auto-compaction: a turn that reports 250,000 input tokens (over the
# 200,000 limit), then a resumed turn that compacts first.
x '@big Read everything.
@1 exec_command {"cmd":"echo big"}'
x resume --last 'Go on after the compaction.'
