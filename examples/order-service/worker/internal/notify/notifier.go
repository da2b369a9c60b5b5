// Package notify tells customers what happened to their orders.
package notify

import (
	"context"
	"fmt"
	"io"
	"sync"

	"example.com/orderservice/worker/internal/queue"
)

// Notifier writes customer notifications; a real deployment would send email.
type Notifier struct {
	mu  sync.Mutex
	out io.Writer
}

// New returns a Notifier writing to out.
func New(out io.Writer) *Notifier {
	return &Notifier{out: out}
}

var templates = map[string]string{
	queue.OrderPaid:          "Thanks! We received %s for order %s.",
	queue.OrderPaymentFailed: "Your payment of %s for order %s failed; you can retry it.",
	queue.OrderExpired:       "Order %[2]s was closed because no payment of %[1]s arrived in time.",
	queue.OrderCancelled:     "Order %[2]s (%[1]s) has been cancelled.",
	queue.OrderRefunded:      "We refunded %s for order %s.",
}

// FormatAmount renders minor units as "EUR 12.50".
func FormatAmount(cents int64, currency string) string {
	sign := ""
	if cents < 0 {
		sign, cents = "-", -cents
	}
	return fmt.Sprintf("%s %s%d.%02d", currency, sign, cents/100, cents%100)
}

// Message renders the customer-facing text for an event, if there is one.
func Message(m queue.Message) (string, bool) {
	tmpl, ok := templates[m.Type]
	if !ok {
		return "", false
	}
	amount := FormatAmount(m.Payload.TotalCents, m.Payload.Currency)
	return fmt.Sprintf(tmpl, amount, m.Payload.OrderID), true
}

// HandleEvent is a queue.Handler that notifies the order's customer.
func (n *Notifier) HandleEvent(ctx context.Context, m queue.Message) error {
	text, ok := Message(m)
	if !ok {
		return nil
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	_, err := fmt.Fprintf(n.out, "to=%s %s\n", m.Payload.CustomerID, text)
	return err
}
