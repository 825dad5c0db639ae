# Sourced by the A/B run scripts here: from the repository root, with SpikingJelly's wheels (.whl)
# installed to /tmp/site, NEW = this tree's packages and OLD = the tree before the change (.ab, the
# commit each run script names) as PYTHONPATHs.
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
unset TRITON_INTERPRET
export PYTHONUNBUFFERED=1
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>&1 | tail -2
NEW=/tmp/site:$(ls -d "$PWD"/packages/*/src | paste -sd: -)
OLD=/tmp/site:$(ls -d "$PWD"/.ab/packages/*/src | paste -sd: -)
