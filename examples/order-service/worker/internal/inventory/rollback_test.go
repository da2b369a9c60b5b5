package inventory

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

var fast = RetryPolicy{Attempts: 3, Backoff: time.Millisecond}

func TestRollbackReservationIsIdempotent(t *testing.T) {
	ctx := context.Background()
	f := NewFakeReleaser()
	first, err := RollbackReservation(ctx, f, "res_1", "expired", fast)
	if err != nil || first != Released {
		t.Fatalf("first rollback = %v, %v", first, err)
	}
	second, err := RollbackReservation(ctx, f, "res_1", "cancelled", fast)
	if err != nil || second != AlreadyReleased {
		t.Fatalf("second rollback = %v, %v", second, err)
	}
	if f.Released["res_1"] != "expired" {
		t.Fatalf("reason overwritten: %q", f.Released["res_1"])
	}
}

func TestRollbackReservationUnknownIsNotAnError(t *testing.T) {
	f := NewFakeReleaser()
	f.Fail["res_gone"] = ErrReservationNotFound
	got, err := RollbackReservation(context.Background(), f, "res_gone", "expired", fast)
	if err != nil || got != Missing {
		t.Fatalf("got %v, %v", got, err)
	}
}

func TestRollbackReservationGivesUpAfterRetries(t *testing.T) {
	f := NewFakeReleaser()
	boom := errors.New("connection refused")
	f.Fail["res_2"] = boom
	_, err := RollbackReservation(context.Background(), f, "res_2", "payment_failed", fast)
	if !errors.Is(err, boom) {
		t.Fatalf("want wrapped %v, got %v", boom, err)
	}
}

func TestRollbackReservationRejectsUnknownReason(t *testing.T) {
	if _, err := RollbackReservation(context.Background(), NewFakeReleaser(), "res_3", "oops", fast); err == nil {
		t.Fatal("expected an error for an unknown reason")
	}
}

func TestHTTPReleaserMapsStatusCodes(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/reservations/res_ok/release":
			w.WriteHeader(http.StatusNoContent)
		case "/reservations/res_done/release":
			w.WriteHeader(http.StatusConflict)
		default:
			w.WriteHeader(http.StatusNotFound)
		}
	}))
	defer srv.Close()
	h := NewHTTPReleaser(srv.URL)
	ctx := context.Background()
	if err := h.Release(ctx, "res_ok", "expired"); err != nil {
		t.Errorf("res_ok: %v", err)
	}
	if err := h.Release(ctx, "res_done", "expired"); !errors.Is(err, ErrAlreadyReleased) {
		t.Errorf("res_done: %v", err)
	}
	if err := h.Release(ctx, "res_x", "expired"); !errors.Is(err, ErrReservationNotFound) {
		t.Errorf("res_x: %v", err)
	}
}
