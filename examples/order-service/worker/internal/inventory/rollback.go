// Package inventory releases stock reservations held by orders that will not ship.
package inventory

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"
)

// ErrReservationNotFound is returned by a Releaser for unknown reservations.
var ErrReservationNotFound = errors.New("reservation not found")

// ErrAlreadyReleased is returned by a Releaser when the reservation was released before.
var ErrAlreadyReleased = errors.New("reservation already released")

// Releaser returns a reservation's units to available stock.
type Releaser interface {
	Release(ctx context.Context, reservationID, reason string) error
}

// Reasons accepted by RollbackReservation, matching the Python ROLLBACK_REASONS.
var validReasons = map[string]bool{
	"payment_failed": true,
	"cancelled":      true,
	"expired":        true,
	"refunded":       true,
}

// Outcome describes what a rollback did.
type Outcome int

// Possible rollback outcomes.
const (
	Released Outcome = iota
	AlreadyReleased
	Missing
)

func (o Outcome) String() string {
	switch o {
	case Released:
		return "released"
	case AlreadyReleased:
		return "already_released"
	default:
		return "missing"
	}
}

// RetryPolicy controls how transient release failures are retried.
type RetryPolicy struct {
	Attempts int
	Backoff  time.Duration
}

// DefaultRetry is used when RollbackReservation gets a zero RetryPolicy.
var DefaultRetry = RetryPolicy{Attempts: 3, Backoff: 200 * time.Millisecond}

// RollbackReservation releases a reservation, treating "already released" and
// "not found" as success so the call is safe to repeat. Other errors are
// retried with linear backoff and returned if every attempt fails.
func RollbackReservation(ctx context.Context, r Releaser, reservationID, reason string, policy RetryPolicy) (Outcome, error) {
	if !validReasons[reason] {
		return Missing, fmt.Errorf("unknown rollback reason %q", reason)
	}
	if policy.Attempts <= 0 {
		policy = DefaultRetry
	}
	var err error
	for attempt := 1; attempt <= policy.Attempts; attempt++ {
		err = r.Release(ctx, reservationID, reason)
		switch {
		case err == nil:
			return Released, nil
		case errors.Is(err, ErrAlreadyReleased):
			return AlreadyReleased, nil
		case errors.Is(err, ErrReservationNotFound):
			log.Printf("inventory: rollback of unknown reservation %s (%s)", reservationID, reason)
			return Missing, nil
		}
		if attempt < policy.Attempts {
			select {
			case <-ctx.Done():
				return Missing, ctx.Err()
			case <-time.After(time.Duration(attempt) * policy.Backoff):
			}
		}
	}
	return Missing, fmt.Errorf("release %s after %d attempts: %w", reservationID, policy.Attempts, err)
}
