"""The tile-copy L2 read microbenchmark's plan (the GPU part is run on the device)."""

from gpusim.calibrate import l2_tile_read as L


def test_every_group_walks_a_buffer_the_l2_keeps():
    for tile in L.TILES_BYTES:
        for group in L.GROUPS:
            k = L.tiles_per_group(132, group, tile)
            assert 1 <= k <= L.MAX_TILES
            assert -(-132 // group) * k * tile <= L.FOOTPRINT_BYTES


def test_the_table_prints_each_row():
    doc = {"rows": [{"tile_bytes": 32768, "group": 64, "tiles_per_group": 64,
                     "footprint_bytes": 4 << 20, "bytes_per_s": 8.6e12}]}  # fmt: skip
    assert "| 32 KiB | 64 | 64 | 4.0 MiB | 8.600 |" in L.table(doc)
