#!/usr/bin/env bash
# The ttnn tier's environment: a Python 3.10 venv with a real ttnn (0.81.1, or --version V: 0.67.0 and
# 0.66.0 open a mock mesh too; ../shared/ttnn-mock/README.md) from the package index, and meshspec from this checkout installed into it as a user would (pip install, beside
# ttnn), checked to leave ttnn's numpy and ml_dtypes as ttnn installed them. ttnn runs in mock
# mode (no hardware): it needs a mock cluster descriptor (MESHSPEC_CLUSTERS, default
# ../shared/ttnn-mock/clusters beside the checkout) and a runtime root whose RISC-V compiler answers
# --version (ttnn asks it when opening a device; kernels are never compiled in mock mode).
# Usage: tools/ttnn-tier/setup.sh [--version V] DIR [CHECKOUT]   then: source DIR/env.sh   (about 40 s)
set -euo pipefail
version=0.81.1
if [[ ${1:-} == --version ]]; then version=${2:?--version needs a version}; shift 2; fi
case $version in  # what each version asks its compiler (--version) when a mesh opens (../shared/ttnn-mock/setup.sh)
  0.81.1) sfpi=7.89.0 ;;
  0.67.0 | 0.66.0) sfpi=7.10.0 ;;
  *) echo "ttnn-tier: ttnn $version does not open a mock mesh (0.81.1, 0.67.0 and 0.66.0 do; 0.67.4 to 0.80.0 need kernels the mock cannot build, 0.65 and older no mock mesh)" >&2; exit 77 ;;
esac
dir=${1:?usage: setup.sh [--version V] DIR [CHECKOUT]}
checkout=$(cd "${2:-$(dirname "$0")/../..}" && pwd)
clusters=${MESHSPEC_CLUSTERS:-$checkout/../shared/ttnn-mock/clusters}
py=""
if command -v pyenv >/dev/null 2>&1; then
  v=$(pyenv versions --bare 2>/dev/null | grep -E '^3\.10(\.|$)' | head -n 1 || true)
  [[ -n $v ]] && py="$(pyenv root)/versions/$v/bin/python3.10"
fi
[[ -n $py && -x $py ]] || py=$(command -v python3.10 || true)
[[ -n $py && -x $py ]] || { echo "ttnn-tier: ttnn $version needs Python 3.10; none found" >&2; exit 77; }
[[ -f $clusters/../t3k_cluster_desc.yaml ]] || { echo "ttnn-tier: no mock cluster descriptors in $clusters (set MESHSPEC_CLUSTERS)" >&2; exit 77; }
clusters=$(cd "$clusters" && pwd)
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
"$py" -m venv "$dir/venv"
pip="$dir/venv/bin/pip"
"$pip" install -q --disable-pip-version-check "ttnn==$version" || { echo "ttnn-tier: pip could not install ttnn $version from the package index" >&2; exit 77; }
before=$("$pip" list --format=freeze 2>/dev/null | grep -iE '^(numpy|ml[-_]dtypes|ttnn)==' | sort)
# the tier's tests also need pytest (the test extra); jsonschema and hypothesis come with it.
# Installed with ttnn's own pins as constraints: pip's resolver does not weigh what is installed, and
# without them it takes meshspec's ml_dtypes 0.6 beside ttnn 0.67.0 and 0.66.0, and numpy 2 with it,
# which those versions refuse (numpy<2): observed. A user does the same (README, Checked against the real ttnn).
echo "$before" > "$dir/ttnn-pins.txt"
"$pip" install -q --disable-pip-version-check -c "$dir/ttnn-pins.txt" "$checkout[test]"
# what ttnn installed is unchanged (meshspec may add ml_dtypes where ttnn has none)
after=$("$pip" list --format=freeze 2>/dev/null | grep -iE '^(numpy|ml[-_]dtypes|ttnn)==' | sort | grep -iF -f <(echo "$before" | cut -d= -f1 | sed 's/$/==/') || true)
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
  'if [ "$1" = "--version" ]; then echo "riscv-tt-elf-g++ (tenstorrent/sfpi:'"$sfpi"'[1050]) 15.1.0"; exit 0; fi' \
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
echo "ttnn-tier: ready ($(echo $after); meshspec from $checkout): source $dir/env.sh"
