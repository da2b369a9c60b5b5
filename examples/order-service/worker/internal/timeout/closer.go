// Package timeout expires orders that were not paid in time and releases their stock.
package timeout

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

	"example.com/orderservice/worker/internal/inventory"
	"example.com/orderservice/worker/internal/orders"
	"example.com/orderservice/worker/internal/store"
)

// Report summarizes one run of the closer.
type Report struct {
	Scanned  int
	Expired  []string
	Skipped  []string
	Released int
}

func (r Report) String() string {
	return fmt.Sprintf("scanned=%d expired=%d skipped=%d released=%d",
		r.Scanned, len(r.Expired), len(r.Skipped), r.Released)
}

// Closer applies the unpaid-order timeout, like api/jobs/timeout_close.py.
type Closer struct {
	Store     store.Store
	Inventory inventory.Releaser
	Timeout   time.Duration
	Limit     int
	Retry     inventory.RetryPolicy
	Now       func() time.Time
}

// Deadline is the moment after which an unpaid order expires.
func (c *Closer) Deadline(o *orders.Order) time.Time {
	return o.CreatedTime().Add(c.Timeout)
}

// CloseExpiredOrders expires every overdue unpaid order and rolls back its
// reservation. An order that changed state since it was listed is skipped.
// A failed rollback is logged and does not undo the expiry: the inventory
// service reconciles orphaned reservations on its own.
func (c *Closer) CloseExpiredOrders(ctx context.Context) (Report, error) {
	now := c.now()
	var report Report
	candidates, err := c.Store.ListByState(ctx, orders.PendingPayment, orders.PaymentFailed)
	if err != nil {
		return report, fmt.Errorf("list unpaid orders: %w", err)
	}
	for _, o := range candidates {
		if c.Limit > 0 && len(report.Expired) >= c.Limit {
			break
		}
		if now.Before(c.Deadline(o)) {
			continue
		}
		report.Scanned++
		if err := o.Transition(orders.Expired, "payment timeout", now); err != nil {
			if errors.Is(err, orders.ErrInvalidTransition) {
				report.Skipped = append(report.Skipped, o.ID)
				continue
			}
			return report, err
		}
		if err := c.Store.Save(ctx, o); err != nil {
			return report, fmt.Errorf("save %s: %w", o.ID, err)
		}
		report.Expired = append(report.Expired, o.ID)
		if o.ReservationID != nil {
			c.rollback(ctx, o, &report)
		}
	}
	return report, nil
}

func (c *Closer) rollback(ctx context.Context, o *orders.Order, report *Report) {
	outcome, err := inventory.RollbackReservation(ctx, c.Inventory, *o.ReservationID, "expired", c.Retry)
	if err != nil {
		log.Printf("timeout: order %s expired but reservation %s was not released: %v",
			o.ID, *o.ReservationID, err)
		return
	}
	if outcome == inventory.Released {
		report.Released++
	}
}

// Run calls CloseExpiredOrders every interval until ctx is cancelled.
func (c *Closer) Run(ctx context.Context, interval time.Duration) error {
	ticker := time.NewTicker(interval)
	defer ticker.Stop()
	for {
		report, err := c.CloseExpiredOrders(ctx)
		if err != nil {
			log.Printf("timeout: run failed: %v", err)
		} else if report.Scanned > 0 {
			log.Printf("timeout: %s", report)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-ticker.C:
		}
	}
}

func (c *Closer) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}
