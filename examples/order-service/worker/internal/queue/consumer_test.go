package queue

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

const outbox = `{"key":"ord_1","occurred_at":1700000000,"payload":{"order_id":"ord_1","to":"paid"},"type":"order.paid"}
not json
{"key":"ord_2","occurred_at":1700000001,"payload":{"order_id":"ord_2","to":"expired"},"type":"order.expired"}
{"key":"ord_3","occurred_at":1700000002,"payload":{"order_id":"ord_3"},"type":"order.paid"`

func writeOutbox(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "outbox.jsonl")
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestPollDispatchesCompleteLines(t *testing.T) {
	c := NewConsumer(writeOutbox(t, outbox))
	var paid, expired []string
	c.Handle(OrderPaid, func(ctx context.Context, m Message) error {
		paid = append(paid, m.Payload.OrderID)
		return nil
	})
	c.Handle(OrderExpired, func(ctx context.Context, m Message) error {
		expired = append(expired, m.Key)
		return nil
	})
	n, err := c.Poll(context.Background())
	if err != nil {
		t.Fatalf("Poll: %v", err)
	}
	if n != 3 || len(paid) != 1 || len(expired) != 1 {
		t.Fatalf("n=%d paid=%v expired=%v", n, paid, expired)
	}
	if again, _ := c.Poll(context.Background()); again != 0 {
		t.Fatalf("second poll handled %d messages", again)
	}
}

func TestHandlerErrorStopsAtMessage(t *testing.T) {
	c := NewConsumer(writeOutbox(t, outbox))
	fail := true
	c.Handle(OrderExpired, func(ctx context.Context, m Message) error {
		if fail {
			return errors.New("mail server down")
		}
		return nil
	})
	if _, err := c.Poll(context.Background()); err == nil {
		t.Fatal("expected the handler error")
	}
	stuck := c.Offset()
	fail = false
	if _, err := c.Poll(context.Background()); err != nil {
		t.Fatalf("retry: %v", err)
	}
	if c.Offset() <= stuck {
		t.Fatalf("offset did not advance past %d", stuck)
	}
}

func TestMissingOutboxIsEmpty(t *testing.T) {
	c := NewConsumer(filepath.Join(t.TempDir(), "absent.jsonl"))
	if n, err := c.Poll(context.Background()); n != 0 || err != nil {
		t.Fatalf("got %d, %v", n, err)
	}
}
