// Package config reads the worker configuration from the environment.
package config

import (
	"fmt"
	"os"
	"strconv"
	"time"
)

// Config holds everything the worker needs to run.
type Config struct {
	DataDir        string
	OutboxPath     string
	InventoryURL   string
	UnpaidTimeout  time.Duration
	CloseInterval  time.Duration
	PollInterval   time.Duration
	MaxClosePerRun int
}

// Load builds a Config from ORDERS_* environment variables, using the same
// names and defaults as the Python API so both sides agree on the timeout.
func Load(getenv func(string) string) (Config, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	cfg := Config{
		DataDir:        orDefault(getenv("ORDERS_DATA_DIR"), "var/orders"),
		OutboxPath:     orDefault(getenv("ORDERS_OUTBOX"), "var/outbox.jsonl"),
		InventoryURL:   orDefault(getenv("ORDERS_INVENTORY_URL"), "http://127.0.0.1:8081"),
		UnpaidTimeout:  30 * time.Minute,
		CloseInterval:  time.Minute,
		PollInterval:   time.Second,
		MaxClosePerRun: 500,
	}
	var err error
	if cfg.UnpaidTimeout, err = seconds(getenv, "ORDERS_UNPAID_TIMEOUT", cfg.UnpaidTimeout); err != nil {
		return Config{}, err
	}
	if cfg.CloseInterval, err = seconds(getenv, "ORDERS_CLOSE_INTERVAL", cfg.CloseInterval); err != nil {
		return Config{}, err
	}
	if raw := getenv("ORDERS_MAX_CLOSE_PER_RUN"); raw != "" {
		n, convErr := strconv.Atoi(raw)
		if convErr != nil || n <= 0 {
			return Config{}, fmt.Errorf("ORDERS_MAX_CLOSE_PER_RUN must be a positive integer, got %q", raw)
		}
		cfg.MaxClosePerRun = n
	}
	return cfg, nil
}

func orDefault(value, fallback string) string {
	if value == "" {
		return fallback
	}
	return value
}

func seconds(getenv func(string) string, name string, fallback time.Duration) (time.Duration, error) {
	raw := getenv(name)
	if raw == "" {
		return fallback, nil
	}
	n, err := strconv.Atoi(raw)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%s must be a non-negative number of seconds, got %q", name, raw)
	}
	return time.Duration(n) * time.Second, nil
}
