from pathlib import Path
from typing import Any

import pyarrow as pa

from drydock.regression.framework import suite

SCHEMA = pa.schema([pa.field("id", pa.int64()), pa.field("item", pa.string())])


def _append(catalog: Any, name: str, rows: list[tuple[int, str]]) -> None:
    table = catalog.get_table(name)
    builder = table.new_batch_write_builder()
    writer = builder.new_write()
    writer.write_arrow(
        pa.table({"id": [r[0] for r in rows], "item": [r[1] for r in rows]}, schema=SCHEMA)
    )
    builder.new_commit().commit(writer.prepare_commit())
    writer.close()


@suite("test_paimon_catalog_and_procedures", "p0,external")
def body(s):  # type: ignore[no-untyped-def]
    from pypaimon import CatalogFactory, Schema

    warehouse = Path(s.context.config.otherConfigs["scratchDir"]) / "paimon_suite"
    warehouse.mkdir(parents=True, exist_ok=True)
    catalog = CatalogFactory.create({"warehouse": str(warehouse)})
    catalog.create_database("shop", True)
    catalog.create_table("shop.orders", Schema.from_pyarrow_schema(SCHEMA), True)
    _append(catalog, "shop.orders", [(1, "apple"), (2, "pear")])
    _append(catalog, "shop.orders", [(3, "plum")])
    s.sql("DROP CATALOG IF EXISTS reg_paimon")
    s.sql(f"CREATE CATALOG reg_paimon PROPERTIES ('type' = 'paimon', 'warehouse' = '{warehouse}')")
    s.qt_tables("SHOW TABLES FROM reg_paimon.shop")
    s.order_qt_rows("SELECT id, item FROM reg_paimon.shop.orders")
    s.qt_first_snapshot("SELECT count(*) FROM reg_paimon.shop.orders FOR VERSION AS OF 1")
    s.sql("CALL reg_paimon.sys.create_tag(table => 'shop.orders', tag => 'first', snapshot => 1)")
    s.qt_tagged("SELECT count(*) FROM reg_paimon.shop.orders@tag('first')")
    rolled = s.sql_return_maparray(
        "CALL reg_paimon.sys.rollback_to_as_latest(table => 'shop.orders', tag => 'first')"
    )
    s.assertEquals(1, rolled[0]["rolled_back_snapshot_id"])
    s.qt_after_rollback("SELECT count(*) FROM reg_paimon.shop.orders")
    with s.test() as t:
        t.sql(
            "CALL reg_paimon.sys.rollback_to_as_latest(table => 'shop.orders', tag => 'first', "
            "snapshot_id => 1)"
        )
        t.exception("Must specify exactly one of tag and snapshot_id")
    s.sql("CALL reg_paimon.sys.delete_tag('shop.orders', 'first')")
    s.sql("DROP CATALOG reg_paimon")
