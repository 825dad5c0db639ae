#!/usr/bin/env bash
# run6: the fingerprint's later changes on CUDA (0839dc7: a GraphModule's node arguments by value; the README-examples
# skip): the hop package, the trace cache, Inductor's cache across processes, neighbour fusion, compiled networks.
cd "$(dirname "$0")/../../.."
export PYTHONPATH=$(ls -d "$PWD"/packages/*/src | paste -sd: -) FLEXSN_CACHE_DIR=$(mktemp -d)
unset TRITON_INTERPRET
timeout 400 python3 -m pytest -q -rs -p no:cacheprovider -n 8 packages/flexsn-hop/tests packages/flexsn-runtime/tests/test_tracecache.py \
  tests-integration/test_compile_cache.py tests-integration/test_neighbour_fusion.py tests-integration/test_compiled_networks.py \
  tests-integration/test_readme_examples.py 2>&1 | grep -E "^(FAILED|ERROR|SKIPPED)|passed|failed" | cut -c1-200 | tail -15
