#!/usr/bin/env bash
# Validates every shader stage in Shaders/ with glslangValidator after expanding `#include "file"` the way
# Coif's loader does, so a syntax error names its file before any GL context exists. Both variants
# (with and without COIF_SAMPLE_MASK) are checked.
set -euo pipefail
cd "$(dirname "$0")/../Shaders"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0
for stage in *.vert *.frag; do
    for variant in "" "COIF_SAMPLE_MASK 1"; do
        ext=${stage##*.}
        out="$work/$(basename "$stage" ".$ext")${variant:+-mask}.$ext"
        {
            head -n 1 "$stage"
            [ -n "$variant" ] && echo "#define $variant"
            tail -n +2 "$stage" | while IFS= read -r line; do
                if [[ $line =~ ^[[:space:]]*#include[[:space:]]+\"([^\"]+)\" ]]; then cat "${BASH_REMATCH[1]}"; else printf '%s\n' "$line"; fi
            done
        } > "$out"
        if ! glslangValidator "$out" > "$work/log" 2>&1; then
            echo "shader $stage${variant:+ ($variant)}: glslangValidator failed:"; cat "$work/log"; status=1
        fi
    done
done
[ $status = 0 ] && echo "shaders: $(ls *.vert *.frag | wc -l) stages valid (GLSL ES 3.20, both variants)"
exit $status
