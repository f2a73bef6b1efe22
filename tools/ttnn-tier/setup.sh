#!/usr/bin/env bash
# The ttnn tier's environment: a Python 3.10 venv with the real ttnn 0.81.1 from the package
# index, and meshspec from this checkout installed into it as a user would (pip install, beside
# ttnn), checked to leave ttnn's numpy and ml_dtypes as ttnn installed them. ttnn runs in mock
# mode (no hardware): it needs a mock cluster descriptor (MESHSPEC_CLUSTERS, default
# ../shared/ttnn-mock/clusters beside the checkout) and a runtime root whose RISC-V compiler answers
# --version (ttnn asks it when opening a device; kernels are never compiled in mock mode).
# Usage: tools/ttnn-tier/setup.sh DIR [CHECKOUT]   then: source DIR/env.sh   (about 40 s)
set -euo pipefail
dir=${1:?usage: setup.sh DIR [CHECKOUT]}
checkout=$(cd "${2:-$(dirname "$0")/../..}" && pwd)
clusters=${MESHSPEC_CLUSTERS:-$checkout/../shared/ttnn-mock/clusters}
py=""
if command -v pyenv >/dev/null 2>&1; then
  v=$(pyenv versions --bare 2>/dev/null | grep -E '^3\.10(\.|$)' | head -n 1 || true)
  [[ -n $v ]] && py="$(pyenv root)/versions/$v/bin/python3.10"
fi
[[ -n $py && -x $py ]] || py=$(command -v python3.10 || true)
[[ -n $py && -x $py ]] || { echo "ttnn-tier: ttnn 0.81.1 needs Python 3.10; none found" >&2; exit 77; }
[[ -f $clusters/../t3k_cluster_desc.yaml ]] || { echo "ttnn-tier: no mock cluster descriptors in $clusters (set MESHSPEC_CLUSTERS)" >&2; exit 77; }
clusters=$(cd "$clusters" && pwd)
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
"$py" -m venv "$dir/venv"
pip="$dir/venv/bin/pip"
"$pip" install -q --disable-pip-version-check ttnn==0.81.1
before=$("$pip" list --format=freeze 2>/dev/null | grep -iE '^(numpy|ml[-_]dtypes|ttnn)==' | sort)
# the tier's tests also need pytest (the test extra); jsonschema and hypothesis come with it
"$pip" install -q --disable-pip-version-check "$checkout[test]"
after=$("$pip" list --format=freeze 2>/dev/null | grep -iE '^(numpy|ml[-_]dtypes|ttnn)==' | sort)
if [[ $before != "$after" ]]; then
  echo "ttnn-tier: installing meshspec changed ttnn's environment:" >&2
  diff <(echo "$before") <(echo "$after") >&2 || true
  exit 1
fi
# pytest --meshspec-record under pytest-xdist (tests_ttnn/test_record.py): workers name folders too
"$pip" install -q --disable-pip-version-check "pytest-xdist>=3"
# the runtime root: ttnn's own files, and a compiler stand-in that only answers --version
site=$("$dir/venv/bin/python" -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")
root=$dir/rtroot
mkdir -p "$root/runtime/sfpi/compiler/bin"
for f in "$site"/ttnn/*; do [[ $(basename "$f") == runtime ]] || ln -sfn "$f" "$root/$(basename "$f")"; done
for f in "$site"/ttnn/runtime/*; do [[ -e $f && $(basename "$f") != sfpi ]] && ln -sfn "$f" "$root/runtime/$(basename "$f")"; done
compiler=$root/runtime/sfpi/compiler/bin/riscv-tt-elf-g++
printf '%s\n' '#!/bin/sh' \
  'if [ "$1" = "--version" ]; then echo "riscv-tt-elf-g++ (tenstorrent/sfpi:7.89.0[1050]) 15.1.0"; exit 0; fi' \
  'if [ "$1" = "-dumpversion" ]; then echo 15.1.0; exit 0; fi' \
  'echo "meshspec ttnn tier: no device kernels in mock mode" >&2; exit 1' > "$compiler"
chmod +x "$compiler"
cat > "$dir/env.sh" <<EOS
. "$dir/venv/bin/activate"
export MESHSPEC_CLUSTERS="$clusters"
export TT_METAL_MOCK_CLUSTER_DESC_PATH="$clusters/../t3k_cluster_desc.yaml"
export TT_METAL_RUNTIME_ROOT="$root"
export TT_METAL_CACHE="$dir/cache"
export TT_LOGGER_LEVEL=FATAL
EOS
echo "ttnn-tier: ready ($after; meshspec from $checkout): source $dir/env.sh"
