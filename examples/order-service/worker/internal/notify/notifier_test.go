package notify

import (
	"bytes"
	"context"
	"testing"

	"example.com/orderservice/worker/internal/queue"
)

func TestMessages(t *testing.T) {
	m := queue.Message{Type: queue.OrderExpired, Key: "ord_1",
		Payload: queue.Payload{OrderID: "ord_1", CustomerID: "cus_42", TotalCents: 5280, Currency: "EUR"}}
	text, ok := Message(m)
	want := "Order ord_1 was closed because no payment of EUR 52.80 arrived in time."
	if !ok || text != want {
		t.Fatalf("Message = %q, %v", text, ok)
	}
	var buf bytes.Buffer
	if err := New(&buf).HandleEvent(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	if buf.String() != "to=cus_42 "+want+"\n" {
		t.Fatalf("notification = %q", buf.String())
	}
}

func TestFormatAmount(t *testing.T) {
	if got := FormatAmount(-5, "USD"); got != "USD -0.05" {
		t.Fatalf("FormatAmount = %q", got)
	}
}
