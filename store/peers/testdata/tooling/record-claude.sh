#!/bin/sh
# Records the Claude Code fixtures against fakemodel (see README.md). Usage:
#   record-claude.sh CLAUDE_BIN OUT_CONFIG_DIR WORK_DIR
# fakemodel must listen on 127.0.0.1:18080.
set -eu
CLAUDE=$1 WD=$3
export CLAUDE_CONFIG_DIR=$2 ANTHROPIC_BASE_URL=http://127.0.0.1:18080 ANTHROPIC_API_KEY=dummy
export CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_AUTOUPDATER=1
mkdir -p "$CLAUDE_CONFIG_DIR" "$WD"
cd "$WD"
c() { "$CLAUDE" --allowedTools 'Bash Read Write Edit Agent' "$@"; }
# 1. -p with Write, Read, Edit and Bash (one failing), then --continue.
c -p 'Make notes.txt, read it, fix it, and run two commands.
@1 Write {"file_path":"'"$WD"'/notes.txt","content":"alpha\nbeta\n"}
@2 Read {"file_path":"'"$WD"'/notes.txt"}
@3 Edit {"file_path":"'"$WD"'/notes.txt","old_string":"beta","new_string":"gamma"}
@4 Bash {"command":"cat notes.txt","description":"Show the notes"}
@4 Bash {"command":"exit 3","description":"Fail on purpose"}'
c -p --continue 'And count its lines.
@1 Bash {"command":"wc -l notes.txt","description":"Count lines"}'
# 2. A second session, then --resume of it by id, then /compact in it.
c -p 'Second session: list the files.
@1 Bash {"command":"ls","description":"List files"}' --output-format json > /tmp/claude-second.json
id=$(sed -n 's/.*"session_id":"\([^"]*\)".*/\1/p' /tmp/claude-second.json)
c -p --resume "$id" 'Resumed: say hi.'
c -p --resume "$id" '/compact'
c -p --resume "$id" 'After the compaction: one more answer.'
# 3. A sub-agent (the Agent tool): its records are the sidechain.
c -p 'Delegate a look around.
@1 Agent {"description":"Look around","prompt":"List the dir for me.\n@1 Bash {\"command\":\"ls -a\",\"description\":\"List all\"}","subagent_type":"general-purpose"}'
