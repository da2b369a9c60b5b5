package config

import (
	"testing"
	"time"
)

func env(values map[string]string) func(string) string {
	return func(k string) string { return values[k] }
}

func TestDefaultsMatchTheAPI(t *testing.T) {
	cfg, err := Load(env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.UnpaidTimeout != 30*time.Minute || cfg.DataDir != "var/orders" {
		t.Fatalf("unexpected defaults: %+v", cfg)
	}
}

func TestInvalidValues(t *testing.T) {
	for _, bad := range []map[string]string{
		{"ORDERS_UNPAID_TIMEOUT": "soon"},
		{"ORDERS_CLOSE_INTERVAL": "-1"},
		{"ORDERS_MAX_CLOSE_PER_RUN": "0"},
	} {
		if _, err := Load(env(bad)); err == nil {
			t.Errorf("Load(%v) succeeded", bad)
		}
	}
}
