#!/bin/sh
# Records codex-local-shell-home against fakemodel (see README.md): a model
# answer holding a local_shell_call item. Usage:
#   record-codex-local-shell.sh CODEX_BIN OUT_HOME WORK_DIR
# fakemodel must listen on $FAKE_ADDR (default 127.0.0.1:18080).
set -eu
CODEX=$1 HOME_DIR=$2 WD=$3
export CODEX_HOME=$HOME_DIR FAKE_API_KEY=dummy
mkdir -p "$CODEX_HOME" "$WD"
cat > "$CODEX_HOME/config.toml" <<TOML
model = "fake-model"
model_provider = "fake"

[model_providers.fake]
name = "fake"
base_url = "http://${FAKE_ADDR:-127.0.0.1:18080}/v1"
wire_api = "responses"
env_key = "FAKE_API_KEY"
TOML
cd "$WD"
"$CODEX" exec --skip-git-repo-check -s danger-full-access 'Run a local shell command.
@1 local_shell {"command":["bash","-lc","echo from-local-shell"]}'
