# Shared set-up of scripts/test and scripts/run-airflow; sourced, never run on its own.
# After it: the working directory is the repository root and .venv holds the locked environment (uv.lock),
# with this package installed in editable mode so that Airflow finds its plugin through the entry point.

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$REPO_ROOT"

say() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }
die() { printf '\033[31mERROR: %s\033[0m\n' "$*" >&2; exit 1; }

ensure_python() {
    command -v python3 >/dev/null 2>&1 || die "python3 not found; install Python >= 3.10 first"
    python3 -c 'import sys; sys.exit(sys.version_info < (3, 10))' \
        || die "python3 is $(python3 -V 2>&1); this project needs Python >= 3.10"
}

ensure_uv() {
    # uv installed by `pip install --user` lands in the user's script directory, often not on PATH yet.
    local user_bin
    user_bin="$(python3 -c 'import site, os; print(os.path.join(site.getuserbase(), "bin"))')"
    export PATH="$PATH:$user_bin"
    command -v uv >/dev/null 2>&1 && return 0
    say "installing uv (python3 -m pip install --user uv)"
    # A distribution's Python (PEP 668) refuses even --user installs without --break-system-packages, which for a
    # --user install only means "outside a virtualenv"; the first attempt stays quiet so that its refusal does not
    # read like a failure.
    python3 -m pip install --quiet --user uv 2>/dev/null \
        || python3 -m pip install --quiet --user --break-system-packages uv \
        || pip install --quiet uv \
        || die "could not install uv; install it yourself (https://docs.astral.sh/uv/) and rerun"
    command -v uv >/dev/null 2>&1 || die "uv was installed but is not on PATH (looked in $user_bin)"
}

sync_environment() {
    ensure_python
    ensure_uv
    say "uv sync --frozen --compile-bytecode (creates or updates .venv from uv.lock)"
    # Only the package registries are reachable: use the machine's Python instead of downloading one. Bytecode is
    # compiled once here: with PYTHONDONTWRITEBYTECODE set (as on many CI machines) every process would otherwise
    # recompile Airflow's sources on import, about 6 s of CPU for each Airflow command, component and task.
    UV_PYTHON_DOWNLOADS="${UV_PYTHON_DOWNLOADS:-never}" uv sync --frozen --compile-bytecode --python "${UV_PYTHON:-python3}" \
        || die "uv sync --frozen failed"
}

# Debian's Chromium and ChromeDriver for the browser test of the Hopsworks tab (nothing downloads a browser of its
# own). CI installs them; elsewhere the browser test skips with the command to run.
ensure_browser() {
    if command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1; then
        return 0
    fi
    if [ "${CI:-}" != "true" ]; then
        say "chromium/chromium-driver are not installed: the browser test will be skipped (apt-get install -y chromium chromium-driver)"
        return 0
    fi
    [ "$(id -u)" -eq 0 ] || die "CI needs chromium and chromium-driver for the browser test; install them as root"
    say "installing Debian's chromium and chromium-driver for the browser test"
    export DEBIAN_FRONTEND=noninteractive
    if ! apt-cache show chromium-driver >/dev/null 2>&1; then
        apt-get update >&2
    fi
    apt-get install -y --no-install-recommends chromium chromium-driver >&2 || die "could not install chromium"
}
