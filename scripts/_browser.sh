# Sourced by scripts/test.sh: find a Chromium for the Mini App's browser tests, or get one,
# and export its path as DURAK_CHROMIUM. Debian's `chromium` through apt where we may (root,
# as on CI); else Playwright's own download (a laptop). No browser: the run fails with one
# line saying why; the browser tests never skip.

_browser_find() {
    local candidate
    for candidate in "${DURAK_CHROMIUM:-}" /usr/bin/chromium \
        "$(command -v chromium 2>/dev/null || true)" \
        "$(command -v chromium-browser 2>/dev/null || true)"; do
        if [ -n "$candidate" ] && [ -x "$candidate" ]; then
            echo "$candidate"
            return 0
        fi
    done
    return 1
}

_browser_apt() {
    # root with apt-get: Debian's package, the lists refreshed first when the package is
    # not in them (a fresh machine has none)
    [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null || return 1
    local log="${TMPDIR:-/tmp}/durak-chromium-apt.log"
    echo "== browser: apt-get install chromium (log in $log)"
    export DEBIAN_FRONTEND=noninteractive
    if ! apt-cache show chromium >/dev/null 2>&1; then
        apt-get update -q >"$log" 2>&1 || return 1
    fi
    apt-get install -y -q --no-install-recommends chromium >>"$log" 2>&1 && return 0
    # a stale list names versions no longer served: refresh once and try again
    apt-get update -q >>"$log" 2>&1 && \
        apt-get install -y -q --no-install-recommends chromium >>"$log" 2>&1
}

_browser_apt_said() {
    if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
        echo "is not possible here (needs root and apt-get)"
    else
        echo "failed (see ${TMPDIR:-/tmp}/durak-chromium-apt.log)"
    fi
}

_browser_playwright() {
    # Playwright's own Chromium build, where its download is reachable
    local py="${DURAK_PYTHON:-python}"
    "$py" -c 'import playwright' 2>/dev/null || return 1
    echo "== browser: playwright install chromium" >&2
    "$py" -m playwright install chromium >/dev/null 2>&1 || return 1
    "$py" - <<'EOF'
from playwright.sync_api import sync_playwright

with sync_playwright() as p:
    print(p.chromium.executable_path)
EOF
}

_browser_main() {
    local found
    if found="$(_browser_find)"; then
        :
    elif _browser_apt && found="$(_browser_find)"; then
        :
    elif found="$(_browser_playwright | tail -n 1)" && [ -x "$found" ]; then
        :
    else
        echo "no Chromium for the browser tests: none installed, apt-get install chromium" \
            "$(_browser_apt_said) and playwright install chromium failed;" \
            "install chromium or set DURAK_CHROMIUM to one" >&2
        return 1
    fi
    export DURAK_CHROMIUM="$found"
    echo "== browser: $DURAK_CHROMIUM ($("$DURAK_CHROMIUM" --version 2>/dev/null | head -n 1))"
}

_browser_main || exit 1
