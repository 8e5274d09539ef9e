#!/bin/sh
# Records claude-branch-home against fakemodel (see README.md): a session
# resumed from an earlier point, whose new prompt is a second child of the
# first turn's last answer. Usage:
#   record-claude-branch.sh CLAUDE_BIN OUT_CONFIG_DIR WORK_DIR
# fakemodel must listen on $FAKE_ADDR (default 127.0.0.1:18080).
set -eu
CLAUDE=$1 WD=$3
export CLAUDE_CONFIG_DIR=$2 ANTHROPIC_BASE_URL=http://${FAKE_ADDR:-127.0.0.1:18080} ANTHROPIC_API_KEY=dummy
export CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_AUTOUPDATER=1
mkdir -p "$CLAUDE_CONFIG_DIR" "$WD"
cd "$WD"
c() { "$CLAUDE" --allowedTools Bash "$@"; }
c -p 'First prompt: list the files.
@1 Bash {"command":"ls","description":"List files"}' --output-format json > /tmp/claude-branch.json
id=$(sed -n 's/.*"session_id":"\([^"]*\)".*/\1/p' /tmp/claude-branch.json)
c -p --resume "$id" 'Second prompt: say hi.'
file=$(ls "$CLAUDE_CONFIG_DIR"/projects/*/"$id".jsonl)
# The first turn's last answer: the record before the second prompt's.
at=$(grep '"content":"Second prompt: say hi."' "$file" | sed -n 's/.*"parentUuid":"\([^"]*\)".*/\1/p')
# --resume-session-at (hidden in --help) resumes at that record: the new
# prompt is its second child, written to the same file.
c -p --resume "$id" --resume-session-at "$at" 'Instead: count the files.
@1 Bash {"command":"ls | wc -l","description":"Count"}'
c -p --resume "$id" 'After the branch: say bye.'
