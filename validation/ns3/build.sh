#!/usr/bin/env bash
# Builds validation/ns3/dumbbell.cc against Debian's ns-3 3.37 packages (libns3-dev).
#
#   bash validation/ns3/build.sh [OUTPUT]     # default OUTPUT: validation/ns3/build/dumbbell
#
# Exits 2, saying how to install ns-3, when its pkg-config files or g++ are missing.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
output="${1:-$here/build/dumbbell}"
modules=(ns3-core ns3-network ns3-internet ns3-point-to-point ns3-applications ns3-traffic-control)

missing() {
    echo "ns-3 is not installed: $1." >&2
    echo "Install it with: apt-get install libns3-dev g++ pkg-config   (Debian 12: ns-3 3.37)" >&2
    exit 2
}

command -v pkg-config >/dev/null || missing "pkg-config not found"
command -v g++ >/dev/null || missing "g++ not found"
pkg-config --exists "${modules[@]}" || missing "pkg-config finds no ${modules[*]}"

version="$(pkg-config --modversion ns3-core)"
case "$version" in
    3.37*) ;;
    *) echo "warning: ns-3 $version found; the references were made with 3.37" >&2 ;;
esac

# Debian's .pc files carry a stray '-I/usr;' (a CMake list separator); drop such tokens.
cflags=()
for flag in $(pkg-config --cflags "${modules[@]}"); do
    [[ "$flag" == *";"* ]] || cflags+=("$flag")
done
# They also name dependencies by their development symlinks (/usr/lib/.../libgsl.so),
# which exist only with those libraries' -dev packages; the program does not use them
# directly, and ns-3's shared libraries bring their own, so missing ones are dropped.
libs=()
for flag in $(pkg-config --libs "${modules[@]}"); do
    if [[ "$flag" == /*.so && ! -e "$flag" ]]; then
        continue
    fi
    libs+=("$flag")
done

mkdir -p "$(dirname "$output")"
g++ -std=c++17 -O2 -Wall -Wextra -Wno-unused-parameter "${cflags[@]}" \
    "$here/dumbbell.cc" -o "$output.tmp" "${libs[@]}"
mv "$output.tmp" "$output"
echo "built $output (ns-3 $version)"
