"""Large decodes pause the cyclic GC and must always restore its state."""

import gc

import msgpack
import orcodec
import pytest

BIG = [{"k": [i, str(i)], "n": None} for i in range(5000)]
BIG_JSON = orcodec.dumps(BIG)
BIG_MSGPACK = msgpack.packb(BIG)


@pytest.fixture
def gc_state():
    was = gc.isenabled()
    yield
    (gc.enable if was else gc.disable)()


@pytest.mark.parametrize("enabled", [True, False])
def test_state_restored_after_success_and_error(gc_state, enabled):
    (gc.enable if enabled else gc.disable)()
    assert orcodec.loads(BIG_JSON) == BIG
    assert gc.isenabled() is enabled
    assert orcodec.unpackb(BIG_MSGPACK) == BIG
    assert gc.isenabled() is enabled
    with pytest.raises(orcodec.JSONDecodeError):
        orcodec.loads(BIG_JSON[:-1])
    assert gc.isenabled() is enabled
    with pytest.raises(orcodec.MsgpackDecodeError):
        orcodec.unpackb(BIG_MSGPACK[:-1])
    assert gc.isenabled() is enabled


def test_decoded_containers_are_tracked(gc_state):
    gc.enable()
    value = orcodec.loads(BIG_JSON)
    assert gc.is_tracked(value) and gc.is_tracked(value[0]["k"])
    value.append(value)  # a cycle made later is still collectable
    del value
    gc.collect()
