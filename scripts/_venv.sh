# Sourced by scripts/run and scripts/test: make sure .venv exists and holds what
# pyproject.toml asks for. Re-installs only when pyproject.toml changed.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$root/.venv"
stamp="$venv/.drydock-installed"
want="$(sha256sum "$root/pyproject.toml" | cut -d' ' -f1)"
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
    "$venv/bin/pip" install --quiet --disable-pip-version-check -e "$root[test]"
    echo "$want" > "$stamp"
fi
export PATH="$venv/bin:$PATH"
