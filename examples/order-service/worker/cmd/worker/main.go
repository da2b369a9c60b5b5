// Command worker runs the order service's background jobs: the unpaid-order
// timeout and the outbox consumer that notifies customers.
package main

import (
	"context"
	"flag"
	"log"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"example.com/orderservice/worker/internal/config"
	"example.com/orderservice/worker/internal/inventory"
	"example.com/orderservice/worker/internal/notify"
	"example.com/orderservice/worker/internal/queue"
	"example.com/orderservice/worker/internal/store"
	"example.com/orderservice/worker/internal/timeout"
)

func main() {
	once := flag.Bool("once", false, "run the timeout job once and exit")
	dryRun := flag.Bool("dry-run", false, "do not call the inventory service")
	flag.Parse()

	cfg, err := config.Load(os.Getenv)
	if err != nil {
		log.Fatalf("worker: %v", err)
	}
	var releaser inventory.Releaser = inventory.NewHTTPReleaser(cfg.InventoryURL)
	if *dryRun {
		releaser = inventory.NewFakeReleaser()
	}
	closer := &timeout.Closer{
		Store:     store.FileStore{Dir: cfg.DataDir},
		Inventory: releaser,
		Timeout:   cfg.UnpaidTimeout,
		Limit:     cfg.MaxClosePerRun,
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	if *once {
		report, err := closer.CloseExpiredOrders(ctx)
		if err != nil {
			log.Fatalf("worker: %v", err)
		}
		log.Printf("worker: %s", report)
		return
	}

	consumer := queue.NewConsumer(cfg.OutboxPath)
	notifier := notify.New(os.Stdout)
	for _, t := range []string{queue.OrderPaid, queue.OrderPaymentFailed, queue.OrderExpired,
		queue.OrderCancelled, queue.OrderRefunded} {
		consumer.Handle(t, notifier.HandleEvent)
	}

	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		_ = closer.Run(ctx, cfg.CloseInterval)
	}()
	go func() {
		defer wg.Done()
		_ = consumer.Run(ctx, cfg.PollInterval)
	}()
	log.Printf("worker: running (data=%s outbox=%s timeout=%s)", cfg.DataDir, cfg.OutboxPath, cfg.UnpaidTimeout)
	wg.Wait()
	log.Print("worker: stopped")
}
