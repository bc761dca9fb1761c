"""`texflow bench --collective`'s tables from given figures (nothing is timed): the browser
workers against one browser echo (the target) and against two echoes at once."""

from texflow.bench import collective


def test_tables_compare_browser_workers_with_one_echo_and_with_two_at_once():
    sizes = [1_000_000, 10_000_000]
    raw = {1_000_000: 8.0, 10_000_000: 80.0}
    native = {2: {1_000_000: 10.0, 10_000_000: 100.0}}
    browser = {1_000_000: 400.0, 10_000_000: 4000.0}
    one = {1_000_000: 300.0, 10_000_000: 2000.0}
    two = {1_000_000: 360.0, 10_000_000: 4400.0}
    out = []
    collective.tables(sizes, raw, None, native, browser, (one, two), None, out)
    assert ("| floats | websockets echo | TensorFlow MWMS, 2 | texflow, 2 native | texflow, "
            "2 browser | browser WebSocket echo | 2 browser echoes at once |") in out
    assert ("| 1,000,000 |     8.000 | – |      10.0 |     400.0 |     300.0 |     360.0 |"
            in out), out
    assert "| 2 browser vs browser WebSocket, 1M | 75% of its throughput | > 70%: met |" in out
    assert ("| 2 browser vs browser WebSocket, 10M | 50% of its throughput | > 70%: NOT met |"
            in out)
    assert any(line.startswith("| 2 browser vs 2 browser echoes at once, 10M | 110% of their")
               for line in out), out
    out = []
    collective.tables(sizes, raw, None, native, None, None, None, out)
    assert not any("browser" in line for line in out)


def test_the_message_size_table_gives_1m_and_10m_for_each_chunk():
    def run(n, ms):
        return collective.NativeRun({n: ms}, {n: ms / 2}, ms / 4)

    out = []
    collective.chunk_table({1 << 20: (run(1_000_000, 10.0), run(10_000_000, 90.0)),
                            4 << 20: (run(1_000_000, 12.0), run(10_000_000, 80.0))}, out)
    assert "| 1024 KiB | 10.0 | 5.0 | 2.5 | 90.0 | 45.0 | 22.5 |" in out
    assert "| 4096 KiB | 12.0 | 6.0 | 3.0 | 80.0 | 40.0 | 20.0 |" in out


def test_two_native_workers_with_two_shards_get_a_column_and_a_ratio_to_tensorflow():
    sizes = [1_000_000]
    raw, tf = {1_000_000: 6.0}, {1_000_000: 16.0}
    native = {2: {1_000_000: 10.0}}
    out = []
    collective.tables(sizes, raw, tf, native, None, None, None, out, {1_000_000: 7.5})
    assert ("| floats | websockets echo | TensorFlow MWMS, 2 | texflow, 2 native | texflow, "
            "2 native, --shards 2 |") in out
    assert "| 1,000,000 |     6.000 |      16.0 |      10.0 |     7.500 |" in out, out
    assert "| 2 native vs TensorFlow, 1M | 0.62x of its time | <= 0.5x: NOT met |" in out
    assert any(line.startswith("| 2 native, --shards 2, vs TensorFlow, 1M | 0.47x of its time")
               for line in out), out
