package store

import (
	"context"
	"errors"
	"testing"

	"example.com/orderservice/worker/internal/orders"
)

func TestFileStoreRoundTrip(t *testing.T) {
	ctx := context.Background()
	s := FileStore{Dir: t.TempDir()}
	res := "res_0001"
	o := &orders.Order{ID: "ord_0001", State: orders.PendingPayment, CreatedAt: 1_700_000_000, ReservationID: &res}
	if err := s.Save(ctx, o); err != nil {
		t.Fatalf("Save: %v", err)
	}
	got, err := s.Get(ctx, "ord_0001")
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	if got.ReservationID == nil || *got.ReservationID != res {
		t.Fatalf("reservation lost: %+v", got)
	}
	pending, err := s.ListByState(ctx, orders.PendingPayment)
	if err != nil || len(pending) != 1 {
		t.Fatalf("ListByState = %v, %v", pending, err)
	}
}

func TestFileStoreNotFound(t *testing.T) {
	s := FileStore{Dir: t.TempDir()}
	for _, id := range []string{"ord_missing", "../secrets", ""} {
		if _, err := s.Get(context.Background(), id); !errors.Is(err, ErrNotFound) {
			t.Errorf("Get(%q) = %v, want ErrNotFound", id, err)
		}
	}
}
