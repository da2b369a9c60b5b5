import json

from api.orders.service import start_fulfilment
from api.server.handlers import Request
from api.server.routes import dispatch
from api.tests.payment_helpers import callback_body, signed_headers


def post(services, path, payload=None, body=None, headers=None):
    raw = body if body is not None else json.dumps(payload or {}).encode()
    return dispatch(services, Request("POST", path, raw, headers or {}))


def get(services, path):
    return dispatch(services, Request("GET", path))


def test_create_and_fetch_order(services):
    response = post(services, "/orders", {
        "customer_id": "cus_1",
        "items": [{"sku": "MUG-01", "quantity": 1, "unit_price_cents": 1250}],
    })
    assert response.status == 201
    order_id = response.body["id"]
    assert response.headers["Location"] == f"/orders/{order_id}"
    fetched = get(services, f"/orders/{order_id}")
    assert fetched.status == 200
    assert fetched.body["total_cents"] == 1500


def test_status_endpoint_for_polling(services, order):
    response = get(services, f"/orders/{order.id}/status")
    assert response.body == {"id": order.id, "state": "pending_payment",
                             "updated_at": order.updated_at, "terminal": False}


def test_errors_map_to_status_codes(services, order):
    assert get(services, "/orders/ord_nope").status == 404
    assert post(services, "/orders", {"customer_id": "c", "items": []}).status == 400
    assert post(services, "/orders", body=b"[1,2]").status == 400
    assert post(services, f"/orders/{order.id}/ship", {"tracking_code": "X1"}).status == 409
    too_many = {"customer_id": "c", "items": [{"sku": "TEE-M", "quantity": 9, "unit_price_cents": 1}]}
    assert post(services, "/orders", too_many).body["error"] == "insufficient_stock"


def test_unknown_route_and_method(services):
    assert get(services, "/nope").status == 404
    assert get(services, "/payments/callback").status == 405


def test_payment_webhook_end_to_end(services, order):
    body = callback_body(order, "succeeded")
    response = post(services, "/payments/callback", body=body, headers=signed_headers(body))
    assert response.status == 200
    assert response.body["order_state"] == "paid"
    unsigned = post(services, "/payments/callback", body=body)
    assert unsigned.status == 401


def test_paid_order_can_still_be_cancelled(services, order):
    body = callback_body(order, "succeeded")
    post(services, "/payments/callback", body=body, headers=signed_headers(body))
    response = post(services, f"/orders/{order.id}/cancel", {"reason": "changed mind"})
    assert response.body["state"] == "cancelled"
    assert response.body["history"][-1]["reason"] == "changed mind"
    assert services.inventory.available("MUG-01") == 10


def test_full_lifecycle_to_shipment(services, order):
    body = callback_body(order, "succeeded")
    post(services, "/payments/callback", body=body, headers=signed_headers(body))
    start_fulfilment(services, order.id)
    shipped = post(services, f"/orders/{order.id}/ship", {"tracking_code": "DHL-123"})
    assert shipped.body["state"] == "shipped"
    # Shipping consumes the stock instead of returning it.
    assert services.inventory.available("MUG-01") == 8
    assert services.outbox.of_type("order.shipped")
