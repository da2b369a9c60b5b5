package timeout

import (
	"context"
	"errors"
	"testing"
	"time"

	"example.com/orderservice/worker/internal/inventory"
	"example.com/orderservice/worker/internal/orders"
	"example.com/orderservice/worker/internal/store"
)

const created = 1_700_000_000

func order(id string, state orders.State, reservation string) *orders.Order {
	o := &orders.Order{ID: id, State: state, CreatedAt: created}
	if reservation != "" {
		o.ReservationID = &reservation
	}
	return o
}

func newCloser(s store.Store, r inventory.Releaser, after time.Duration) *Closer {
	return &Closer{
		Store:     s,
		Inventory: r,
		Timeout:   30 * time.Minute,
		Retry:     inventory.RetryPolicy{Attempts: 1},
		Now:       func() time.Time { return time.Unix(created, 0).Add(after) },
	}
}

func TestCloseExpiredOrders(t *testing.T) {
	s := store.NewMemoryStore(
		order("ord_1", orders.PendingPayment, "res_1"),
		order("ord_2", orders.PaymentFailed, ""),
		order("ord_3", orders.Paid, "res_3"),
	)
	releaser := inventory.NewFakeReleaser()
	report, err := newCloser(s, releaser, 31*time.Minute).CloseExpiredOrders(context.Background())
	if err != nil {
		t.Fatalf("CloseExpiredOrders: %v", err)
	}
	if len(report.Expired) != 2 || report.Released != 1 {
		t.Fatalf("unexpected report: %s", report)
	}
	got, _ := s.Get(context.Background(), "ord_1")
	if got.State != orders.Expired {
		t.Errorf("ord_1 state = %s", got.State)
	}
	if releaser.Released["res_1"] != "expired" {
		t.Errorf("res_1 not released: %v", releaser.Released)
	}
	if _, ok := releaser.Released["res_3"]; ok {
		t.Error("paid order's reservation must stay")
	}
}

func TestOrdersBeforeDeadlineStay(t *testing.T) {
	s := store.NewMemoryStore(order("ord_1", orders.PendingPayment, "res_1"))
	report, err := newCloser(s, inventory.NewFakeReleaser(), 29*time.Minute).CloseExpiredOrders(context.Background())
	if err != nil || len(report.Expired) != 0 {
		t.Fatalf("report=%s err=%v", report, err)
	}
}

func TestFailedRollbackStillExpires(t *testing.T) {
	s := store.NewMemoryStore(order("ord_1", orders.PendingPayment, "res_1"))
	releaser := inventory.NewFakeReleaser()
	releaser.Fail["res_1"] = errors.New("inventory down")
	report, err := newCloser(s, releaser, time.Hour).CloseExpiredOrders(context.Background())
	if err != nil {
		t.Fatalf("CloseExpiredOrders: %v", err)
	}
	if len(report.Expired) != 1 || report.Released != 0 {
		t.Fatalf("unexpected report: %s", report)
	}
}

func TestLimitCapsARun(t *testing.T) {
	s := store.NewMemoryStore(
		order("ord_1", orders.PendingPayment, ""),
		order("ord_2", orders.PendingPayment, ""),
	)
	c := newCloser(s, inventory.NewFakeReleaser(), time.Hour)
	c.Limit = 1
	report, _ := c.CloseExpiredOrders(context.Background())
	if len(report.Expired) != 1 || report.Expired[0] != "ord_1" {
		t.Fatalf("unexpected report: %+v", report)
	}
}
