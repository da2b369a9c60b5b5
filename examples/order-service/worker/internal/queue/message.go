// Package queue consumes the order events the Python API appends to its outbox.
package queue

import (
	"encoding/json"
	"fmt"
)

// Event types published by api/events.py.
const (
	OrderPaid          = "order.paid"
	OrderPaymentFailed = "order.payment_failed"
	OrderCancelled     = "order.cancelled"
	OrderExpired       = "order.expired"
	OrderRefunded      = "order.refunded"
	OrderShipped       = "order.shipped"
)

// Payload is the body of an order event.
type Payload struct {
	OrderID       string  `json:"order_id"`
	CustomerID    string  `json:"customer_id"`
	From          string  `json:"from"`
	To            string  `json:"to"`
	Reason        string  `json:"reason"`
	TotalCents    int64   `json:"total_cents"`
	Currency      string  `json:"currency"`
	ReservationID *string `json:"reservation_id"`
}

// Message is one outbox line.
type Message struct {
	Type       string  `json:"type"`
	Key        string  `json:"key"`
	Payload    Payload `json:"payload"`
	OccurredAt float64 `json:"occurred_at"`
}

// Decode parses one outbox line.
func Decode(line []byte) (Message, error) {
	var m Message
	if err := json.Unmarshal(line, &m); err != nil {
		return Message{}, fmt.Errorf("decode message: %w", err)
	}
	if m.Type == "" || m.Key == "" {
		return Message{}, fmt.Errorf("decode message: missing type or key in %q", line)
	}
	return m, nil
}
