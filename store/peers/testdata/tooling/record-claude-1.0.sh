#!/bin/sh
# Records the Claude Code 1.0 fixtures (claude-1.0-home: sub-agents written
# into the parent's file) against fakemodel (see README.md). Usage:
#   record-claude-1.0.sh CLAUDE_1_0_BIN OUT_CONFIG_DIR WORK_DIR
# fakemodel must listen on $FAKE_ADDR (default 127.0.0.1:18080).
set -eu
CLAUDE=$1 WD=$3
export CLAUDE_CONFIG_DIR=$2 ANTHROPIC_BASE_URL=http://${FAKE_ADDR:-127.0.0.1:18080} ANTHROPIC_API_KEY=dummy
export CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_AUTOUPDATER=1
mkdir -p "$CLAUDE_CONFIG_DIR" "$WD"
cd "$WD"
c() { "$CLAUDE" --allowedTools 'Bash Read Write Edit Task' "$@"; }
# 1. One sub-agent (the Task tool, as 1.0 names it).
c -p 'Delegate a look around.
@1 Task {"description":"Look around","prompt":"List the dir for me.\n@1 Bash {\"command\":\"ls -a\",\"description\":\"List all\"}","subagent_type":"general-purpose"}'
# 2. Two sub-agents from one answer, one with a failing call.
c -p 'Two helpers at once.
@1 Task {"description":"Count files","prompt":"Count the files.\n@1 Bash {\"command\":\"ls | wc -l\",\"description\":\"Count\"}","subagent_type":"general-purpose"}
@1 Task {"description":"Show the date","prompt":"Show the date.\n@1 Bash {\"command\":\"date -u +%Y\",\"description\":\"Year\"}\n@2 Bash {\"command\":\"false\",\"description\":\"Fail\"}","subagent_type":"general-purpose"}'
