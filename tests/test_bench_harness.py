"""The benchmark harness's own guarantees, in the normal test run.

bench/test_bench.py holds them beside its pytest-benchmark rows (which only
`pytest bench/test_bench.py` runs): every library of a row is given its own
copy of the document, with str objects no other library has touched; fresh-
object rows give every call an object of its own; a library whose output
decodes to something else, on its first or its second call, is marked and
not ranked. The tests that need the benchmark-only peers (ssrjson, yyjson:
bench/requirements.txt) run there only.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))
pytest.register_assert_rewrite("test_bench")

from test_bench import (  # noqa: E402, F401
    test_a_library_marked_wrong_is_not_ranked,
    test_check_independent_refuses_shared_and_cached_strs,
    test_check_marks_wrong_output_on_either_call,
    test_cjk_memory_rows_count_the_utf8_copies_left_in_the_strs,
    test_every_library_of_a_row_gets_its_own_strs,
    test_fresh_rows_give_every_call_an_object_of_its_own,
    test_has_utf8_copy_sees_the_cache_of_every_string_kind,
    test_kept_sample_starts_collected_and_ends_with_the_young_collection_left_due,
    test_kept_setting_times_every_library_with_one_count,
    test_numpy_fresh_process_samples_time_a_checked_round_trip_per_process,
    test_the_loader_rebuilds_strs_that_the_builder_shares,
)
