# Sourced by scripts/run and scripts/test: make sure .venv exists and holds what
# pyproject.toml asks for. Re-installs only when pyproject.toml or setup.py changed.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$root/.venv"
stamp="$venv/.drydock-installed"
want="$(cat "$root/pyproject.toml" "$root/setup.py" | sha256sum | cut -d' ' -f1)"
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
    "$venv/bin/pip" install --quiet --disable-pip-version-check -e "$root[test]"
    echo "$want" > "$stamp"
fi
# mypy reads the code as drydock.* through this link (pyproject.toml [tool.mypy]).
mkdir -p "$venv/drydock-src"
ln -sfn "$root" "$venv/drydock-src/drydock"
export PATH="$venv/bin:$PATH"
