// Package orders mirrors the order model and lifecycle of the Python API.
package orders

import (
	"errors"
	"fmt"
	"time"
)

// State is where an order is in its lifecycle; values match the API's OrderState.
type State string

// The order states, identical to api/orders/state_machine.py.
const (
	PendingPayment State = "pending_payment"
	PaymentFailed  State = "payment_failed"
	Paid           State = "paid"
	Fulfilling     State = "fulfilling"
	Shipped        State = "shipped"
	Delivered      State = "delivered"
	Cancelled      State = "cancelled"
	Expired        State = "expired"
	Refunded       State = "refunded"
)

var allowed = map[State][]State{
	PendingPayment: {Paid, PaymentFailed, Cancelled, Expired},
	PaymentFailed:  {PendingPayment, Cancelled, Expired},
	Paid:           {Fulfilling, Cancelled, Refunded},
	Fulfilling:     {Shipped, Cancelled},
	Shipped:        {Delivered},
	Delivered:      {Refunded},
}

// ErrInvalidTransition is wrapped by Transition when a move is not allowed.
var ErrInvalidTransition = errors.New("invalid transition")

// StateChange is one entry of an order's history.
type StateChange struct {
	From   State   `json:"from"`
	To     State   `json:"to"`
	At     float64 `json:"at"`
	Reason string  `json:"reason"`
}

// LineItem is one product line of an order.
type LineItem struct {
	SKU            string `json:"sku"`
	Quantity       int    `json:"quantity"`
	UnitPriceCents int64  `json:"unit_price_cents"`
}

// Order is the stored order document written by the API.
type Order struct {
	ID            string        `json:"id"`
	CustomerID    string        `json:"customer_id"`
	Items         []LineItem    `json:"items"`
	Currency      string        `json:"currency"`
	SubtotalCents int64         `json:"subtotal_cents"`
	TaxCents      int64         `json:"tax_cents"`
	TotalCents    int64         `json:"total_cents"`
	State         State         `json:"state"`
	CreatedAt     float64       `json:"created_at"`
	UpdatedAt     float64       `json:"updated_at"`
	PaidAt        *float64      `json:"paid_at"`
	ClosedAt      *float64      `json:"closed_at"`
	PaymentID     *string       `json:"payment_id"`
	ReservationID *string       `json:"reservation_id"`
	History       []StateChange `json:"history"`
}

// CanTransition reports whether the lifecycle allows moving from one state to another.
func CanTransition(from, to State) bool {
	for _, s := range allowed[from] {
		if s == to {
			return true
		}
	}
	return false
}

// IsTerminal reports whether no transition leaves the state.
func (s State) IsTerminal() bool {
	return len(allowed[s]) == 0
}

// AwaitingPayment reports whether the order can still be paid or expire.
func (o *Order) AwaitingPayment() bool {
	return o.State == PendingPayment || o.State == PaymentFailed
}

// CreatedTime returns CreatedAt as a time.Time.
func (o *Order) CreatedTime() time.Time {
	return unixFloat(o.CreatedAt)
}

// Transition moves the order to state to, recording the change in its history.
func (o *Order) Transition(to State, reason string, now time.Time) error {
	if !CanTransition(o.State, to) {
		return fmt.Errorf("order %s: %s -> %s: %w", o.ID, o.State, to, ErrInvalidTransition)
	}
	at := float64(now.UnixNano()) / 1e9
	o.History = append(o.History, StateChange{From: o.State, To: to, At: at, Reason: reason})
	o.State = to
	o.UpdatedAt = at
	if to == Paid {
		o.PaidAt = &at
	} else if to.IsTerminal() {
		o.ClosedAt = &at
	}
	return nil
}

func unixFloat(seconds float64) time.Time {
	whole := int64(seconds)
	return time.Unix(whole, int64((seconds-float64(whole))*1e9))
}
