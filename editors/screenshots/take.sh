#!/usr/bin/env bash
# Takes the README's screenshots of the editor integrations on fixtures/polyglot:
#   nvim-picker.png, nvim-quickfix.png: Neovim in tmux, `tmux capture-pane -e` rendered to PNG
#     by scripts/screenshot.py, as the pictures in docs/img are;
#   vscode-run-task.png: VS Code cannot run here, so the extension's provider is run with the
#     fake `vscode` module of its tests and its tasks are drawn as Run Task's quick pick lists them.
# Needs AGG_BIN, nvim, chromium (for the VS Code picture), and editors/vscode built (npm ci &&
# npm run compile); tmux, the fonts and Pillow are installed as scripts/screenshots does.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
: "${AGG_BIN:?set AGG_BIN to the agg binary}"
work="$(mktemp -d)"
socket="agg-screenshots-$$"
trap 'tmux -L "$socket" kill-server 2>/dev/null || true; rm -rf "$work"' EXIT
cp -R "$repo/fixtures/polyglot" "$work/polyglot"
. "$repo/scripts/lib.sh"
screenshot_tools "$repo"

shoot() { # shoot PAGE.html OUT.png WIDTH HEIGHT
  chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --force-device-scale-factor=1 \
    --window-size="$3,$4" --screenshot="$2" "file://$1" 2>/dev/null
}

# --- Neovim ---
cols=118 rows=38
tmux -L "$socket" -f /dev/null new-session -d -x "$cols" -y "$rows" \
  "cd '$work/polyglot' && TERM=xterm-256color nvim -u NONE -i NONE -n \
     --cmd 'set runtimepath^=$repo/editors/nvim' --cmd 'runtime plugin/agg.lua' \
     -c 'lua require(\"agg\").setup({ cmd = \"$AGG_BIN\" })' -c 'syntax on' -c 'set number' Makefile"
tmux -L "$socket" set-option -g status off >/dev/null
capture() {
  sleep 1.5
  tmux -L "$socket" capture-pane -p -e >"$work/$1.ansi"
  "$repo/.tools/venv-shots/bin/python" "$repo/scripts/screenshot.py" "$work/$1.ansi" "$here/$1.png" \
    --columns "$cols"
}
keys() { tmux -L "$socket" send-keys "$@"; }
sleep 1
keys ':Agg' Enter
capture nvim-picker
keys Escape
keys ':AggList' Enter ':cfirst' Enter ':Agg help' Enter
capture nvim-quickfix
keys ':qa!' Enter

# --- VS Code ---
node "$repo/editors/vscode/out/test/quick-pick.js" "$work/polyglot" >"$work/vscode.html"
shoot "$work/vscode.html" "$here/vscode-run-task.png" 900 760
echo "wrote $here/nvim-picker.png, nvim-quickfix.png, vscode-run-task.png"
