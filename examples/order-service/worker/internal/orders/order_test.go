package orders

import (
	"errors"
	"testing"
	"time"
)

func TestTransitionRecordsHistory(t *testing.T) {
	o := &Order{ID: "ord_1", State: PendingPayment, CreatedAt: 1_700_000_000}
	now := time.Unix(1_700_000_100, 0)
	if err := o.Transition(Expired, "payment timeout", now); err != nil {
		t.Fatalf("Transition: %v", err)
	}
	if o.State != Expired || o.ClosedAt == nil || *o.ClosedAt != 1_700_000_100 {
		t.Fatalf("unexpected order after expiry: %+v", o)
	}
	if len(o.History) != 1 || o.History[0].From != PendingPayment {
		t.Fatalf("history not recorded: %+v", o.History)
	}
}

func TestTransitionRejectsInvalidMoves(t *testing.T) {
	o := &Order{ID: "ord_2", State: Shipped}
	err := o.Transition(Expired, "", time.Now())
	if !errors.Is(err, ErrInvalidTransition) {
		t.Fatalf("want ErrInvalidTransition, got %v", err)
	}
	if o.State != Shipped {
		t.Fatalf("state changed to %s", o.State)
	}
}

func TestTerminalStates(t *testing.T) {
	for _, s := range []State{Cancelled, Expired, Refunded} {
		if !s.IsTerminal() {
			t.Errorf("%s should be terminal", s)
		}
	}
	if PendingPayment.IsTerminal() {
		t.Error("pending_payment should not be terminal")
	}
}
