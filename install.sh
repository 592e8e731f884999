#!/bin/sh
# Installs mcpkit: mcp-inspect, mcp-proxy, mcp-daemon and mcp-host, as one verified binary and its links.
#
#   curl -fsSL https://github.com/mcpkit/mcpkit/releases/latest/download/install.sh | sh
#   sh install.sh --prefix /opt/mcpkit --version 0.1.0
#
# Environment: MCPKIT_VERSION (pin a version), MCPKIT_PREFIX (install into $MCPKIT_PREFIX/bin),
# MCPKIT_DOWNLOAD_URL (the directory holding the archives and SHA256SUMS, e.g. a mirror).
# Everything lives in functions and main runs on the last line, so a truncated download runs nothing.
set -eu

REPO_RELEASES="https://github.com/mcpkit/mcpkit/releases"
TOOLS="mcp-inspect mcp-proxy mcp-daemon mcp-host"

say() {
    printf 'mcpkit-install: %s\n' "$1"
}

err() {
    printf 'mcpkit-install: error: %s\n' "$1" >&2
    exit 1
}

need_cmd() {
    command -v "$1" >/dev/null 2>&1 || err "need '$1' (command not found)"
}

usage() {
    cat <<EOF
mcpkit installer

Usage: install.sh [--prefix DIR] [--version VERSION]

  --prefix DIR       install into DIR/bin (default: ~/.local, so ~/.local/bin)
  --version VERSION  install this version (default: the latest release)

Environment: MCPKIT_PREFIX, MCPKIT_VERSION, MCPKIT_DOWNLOAD_URL (a mirror of the release files)
EOF
}

# The platform name of the archive to fetch: os-arch[-variant].
detect_platform() {
    _os=$(uname -s)
    _arch=$(uname -m)
    case "$_os" in
        Linux) _os=linux ;;
        Darwin) _os=darwin ;;
        MINGW* | MSYS* | CYGWIN* | Windows_NT) err "on Windows, download mcpkit-windows-x64.zip from $REPO_RELEASES and unpack it" ;;
        *) err "unsupported operating system: $_os" ;;
    esac
    case "$_arch" in
        x86_64 | amd64) _arch=x64 ;;
        aarch64 | arm64) _arch=arm64 ;;
        *) err "unsupported CPU architecture: $_arch" ;;
    esac
    # An x64 shell under Rosetta on Apple silicon: the native build is the right one.
    if [ "$_os" = darwin ] && [ "$_arch" = x64 ] && [ "$(sysctl -n sysctl.proc_translated 2>/dev/null || echo 0)" = 1 ]; then
        _arch=arm64
    fi
    _variant=""
    if [ "$_os" = linux ] && is_musl; then
        [ "$_arch" = x64 ] || err "musl systems are supported on x64 only"
        _variant=-musl
    elif [ "$_arch" = x64 ] && ! has_avx2 "$_os"; then
        _variant=-baseline
        [ "$_os" = linux ] || _variant=""
    fi
    printf '%s-%s%s' "$_os" "$_arch" "$_variant"
}

# musl is the C library of the system, not a loader some package put on a glibc system.
is_musl() {
    if ldd --version 2>&1 | grep -qi musl; then return 0; fi
    if getconf GNU_LIBC_VERSION >/dev/null 2>&1; then return 1; fi
    for _loader in /lib/ld-musl-*; do
        [ -e "$_loader" ] && return 0
    done
    return 1
}

has_avx2() {
    if [ "$1" = linux ]; then
        grep -qw avx2 /proc/cpuinfo 2>/dev/null
    else
        sysctl -n machdep.cpu.leaf7_features 2>/dev/null | grep -qi avx2
    fi
}

# Fetches URL into FILE. Only https, except a loopback address (a local mirror or a test).
download() {
    case "$1" in
        *@*) err "refusing a download URL with credentials or an @ in it: $1" ;;
        https://*) _proto='=https' ;;
        http://127.0.0.1:* | http://127.0.0.1/* | http://localhost:* | http://localhost/* | http://\[::1\]*) _proto='=http' ;;
        *) err "refusing to download from $1 (only https, or http on this machine)" ;;
    esac
    if command -v curl >/dev/null 2>&1; then
        curl --proto "$_proto" --tlsv1.2 -fsSL "$1" -o "$2" || err "download failed: $1"
    elif command -v wget >/dev/null 2>&1; then
        if [ "$_proto" = '=https' ]; then
            wget -q --https-only -O "$2" "$1" || err "download failed: $1"
        else
            wget -q -O "$2" "$1" || err "download failed: $1"
        fi
    else
        err "need curl or wget to download"
    fi
}

sha256_of() {
    if command -v sha256sum >/dev/null 2>&1; then
        sha256sum "$1" | cut -d ' ' -f 1
    elif command -v shasum >/dev/null 2>&1; then
        shasum -a 256 "$1" | cut -d ' ' -f 1
    else
        err "need sha256sum or shasum to verify the download"
    fi
}

# Stops unless FILE's SHA-256 is the one SHA256SUMS lists for NAME (fail closed).
verify() {
    _expected=$(awk -v name="$2" '$2 == name || $2 == "*" name { print $1 }' "$3")
    [ -n "$_expected" ] || err "SHA256SUMS lists no checksum for $2; nothing was installed"
    _actual=$(sha256_of "$1")
    if [ "$_expected" != "$_actual" ]; then
        err "checksum mismatch for $2: expected $_expected, got $_actual (a corrupted or tampered download); nothing was installed"
    fi
}

main() {
    _prefix="${MCPKIT_PREFIX:-$HOME/.local}"
    _version="${MCPKIT_VERSION:-}"
    while [ $# -gt 0 ]; do
        case "$1" in
            --prefix) [ $# -ge 2 ] || err "--prefix needs a directory"; _prefix="$2"; shift 2 ;;
            --version) [ $# -ge 2 ] || err "--version needs a version"; _version="${2#v}"; shift 2 ;;
            -h | --help) usage; return 0 ;;
            *) err "unknown option $1 (see --help)" ;;
        esac
    done
    need_cmd uname
    need_cmd tar
    need_cmd mktemp
    need_cmd awk

    _platform=$(detect_platform)
    _archive="mcpkit-$_platform.tar.gz"
    if [ -n "${MCPKIT_DOWNLOAD_URL:-}" ]; then
        _base="${MCPKIT_DOWNLOAD_URL%/}"
    elif [ -n "$_version" ]; then
        _base="$REPO_RELEASES/download/v$_version"
    else
        _base="$REPO_RELEASES/latest/download"
    fi

    _work=$(mktemp -d)
    _new=""
    trap 'rm -rf "$_work" ${_new:+"$_new"}' EXIT
    trap 'rm -rf "$_work" ${_new:+"$_new"}; exit 130' INT TERM
    say "downloading $_archive (${_version:-latest}) from $_base"
    download "$_base/SHA256SUMS" "$_work/SHA256SUMS"
    download "$_base/$_archive" "$_work/$_archive"
    verify "$_work/$_archive" "$_archive" "$_work/SHA256SUMS"
    say "checksum verified"

    mkdir -p "$_work/unpacked"
    tar -xzf "$_work/$_archive" -C "$_work/unpacked" || err "could not unpack $_archive"
    [ -f "$_work/unpacked/mcpkit" ] || err "$_archive holds no mcpkit binary"

    _bin="$_prefix/bin"
    mkdir -p "$_bin" || err "cannot create $_bin"
    _bin=$(CDPATH='' cd -- "$_bin" && pwd)
    # ln -sf and mv into a directory (or a link to one) would put our files inside it instead.
    for _name in mcpkit $TOOLS; do
        if [ -d "$_bin/$_name" ]; then
            err "$_bin/$_name is a directory (or a link to one); move it away and run again; nothing was installed"
        fi
    done
    # Copy next to the target, check that it runs here, then rename: a working install is never
    # replaced by one that does not run, and a running mcpkit is never half-overwritten. The copy
    # goes to a file mktemp has just created (exclusively), never to a fixed name someone could
    # have planted a link at; the rename replaces whatever mcpkit was, a link too, without following it.
    _new=$(mktemp "$_bin/.mcpkit.XXXXXX") || err "cannot write in $_bin"
    cp "$_work/unpacked/mcpkit" "$_new" || { rm -f "$_new"; err "cannot write in $_bin"; }
    chmod 755 "$_new"
    if ! _installed=$("$_new" --version 2>/dev/null); then
        rm -f "$_new"
        err "the downloaded mcpkit does not run on this machine ($_platform); the existing install was left as it was"
    fi
    mv -f "$_new" "$_bin/mcpkit"
    for _tool in $TOOLS; do
        ln -sf mcpkit "$_bin/$_tool"
    done

    say "installed mcpkit $_installed:"
    for _tool in mcpkit $TOOLS; do
        printf '  %s\n' "$_bin/$_tool"
    done
    case ":${PATH:-}:" in
        *":$_bin:"*) ;;
        *) say "$_bin is not on your PATH; add it: export PATH=\"$_bin:\$PATH\"" ;;
    esac
    _json_bin=$(json_escape "$_bin")
    cat <<EOF

Apps started from the dock do not see your shell's PATH, so use absolute paths in client configs:

{
  "mcpServers": {
    "my-server-dev": {
      "command": "$_json_bin/mcp-proxy",
      "args": ["--watch", "src", "--", "node", "/path/to/server.js"]
    },
    "inspect-my-server": {
      "command": "$_json_bin/mcp-inspect",
      "args": ["mcp", "--", "node", "/path/to/server.js"]
    }
  }
}
EOF
}

# TEXT as the inside of a JSON string: backslashes, quotes, tabs, CRs and newlines escaped.
json_escape() {
    _tab=$(printf '\t')
    _cr=$(printf '\r')
    printf '%s' "$1" | sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e "s/$_tab/\\\\t/g" -e "s/$_cr/\\\\r/g" | awk '{ printf "%s%s", (NR > 1 ? "\\n" : ""), $0 }'
}

main "$@"
