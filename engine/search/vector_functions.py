"""Temporary: exact distance macros (replaced by the vector-values work at merge)."""

from __future__ import annotations

from typing import Any

MACROS = {
    "l2_distance": "list_distance(a::DOUBLE[], b::DOUBLE[])",
    "inner_product": "list_inner_product(a::DOUBLE[], b::DOUBLE[])",
    "cosine_distance": "list_cosine_distance(a::DOUBLE[], b::DOUBLE[])",
    "l2_distance_approximate": "list_distance(a::DOUBLE[], b::DOUBLE[])",
    "inner_product_approximate": "list_inner_product(a::DOUBLE[], b::DOUBLE[])",
}


def install(db: Any) -> None:
    for name, body in MACROS.items():
        db.execute(f"CREATE OR REPLACE MACRO {name}(a, b) AS {body}")
