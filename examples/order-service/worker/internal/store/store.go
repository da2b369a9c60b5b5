// Package store reads and writes the order documents shared with the Python API.
package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"example.com/orderservice/worker/internal/orders"
)

// ErrNotFound is returned when no order has the requested id.
var ErrNotFound = errors.New("order not found")

// Store is the subset of order storage the worker needs.
type Store interface {
	Get(ctx context.Context, id string) (*orders.Order, error)
	Save(ctx context.Context, o *orders.Order) error
	ListByState(ctx context.Context, states ...orders.State) ([]*orders.Order, error)
}

// FileStore keeps one JSON file per order, the layout of JsonFileOrderRepository.
type FileStore struct {
	Dir string
}

func (s FileStore) path(id string) (string, error) {
	if id == "" || strings.ContainsAny(id, `/\`) || strings.HasPrefix(id, ".") {
		return "", fmt.Errorf("%q: %w", id, ErrNotFound)
	}
	return filepath.Join(s.Dir, id+".json"), nil
}

// Get loads one order.
func (s FileStore) Get(ctx context.Context, id string) (*orders.Order, error) {
	p, err := s.path(id)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(p)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w", id, ErrNotFound)
	} else if err != nil {
		return nil, err
	}
	var o orders.Order
	if err := json.Unmarshal(data, &o); err != nil {
		return nil, fmt.Errorf("decode %s: %w", p, err)
	}
	return &o, nil
}

// Save writes the order atomically through a temporary file.
func (s FileStore) Save(ctx context.Context, o *orders.Order) error {
	p, err := s.path(o.ID)
	if err != nil {
		return err
	}
	data, err := json.MarshalIndent(o, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(s.Dir, ".tmp-*.json")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), p)
}

// ListByState returns the orders in any of the given states, sorted by id.
func (s FileStore) ListByState(ctx context.Context, states ...orders.State) ([]*orders.Order, error) {
	paths, err := filepath.Glob(filepath.Join(s.Dir, "*.json"))
	if err != nil {
		return nil, err
	}
	sort.Strings(paths)
	var out []*orders.Order
	for _, p := range paths {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		name := filepath.Base(p)
		if strings.HasPrefix(name, ".") {
			continue
		}
		o, err := s.Get(ctx, strings.TrimSuffix(name, ".json"))
		if err != nil {
			return nil, err
		}
		if hasState(o, states) {
			out = append(out, o)
		}
	}
	return out, nil
}

// MemoryStore is an in-memory Store for tests and dry runs.
type MemoryStore struct {
	mu     sync.Mutex
	orders map[string]orders.Order
}

// NewMemoryStore returns a MemoryStore holding copies of the given orders.
func NewMemoryStore(initial ...*orders.Order) *MemoryStore {
	m := &MemoryStore{orders: make(map[string]orders.Order)}
	for _, o := range initial {
		m.orders[o.ID] = *o
	}
	return m
}

// Get returns a copy of the stored order.
func (m *MemoryStore) Get(ctx context.Context, id string) (*orders.Order, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	o, ok := m.orders[id]
	if !ok {
		return nil, fmt.Errorf("%s: %w", id, ErrNotFound)
	}
	return &o, nil
}

// Save stores a copy of the order.
func (m *MemoryStore) Save(ctx context.Context, o *orders.Order) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.orders[o.ID] = *o
	return nil
}

// ListByState returns copies of the matching orders, sorted by id.
func (m *MemoryStore) ListByState(ctx context.Context, states ...orders.State) ([]*orders.Order, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []*orders.Order
	for _, o := range m.orders {
		o := o
		if hasState(&o, states) {
			out = append(out, &o)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

func hasState(o *orders.Order, states []orders.State) bool {
	for _, s := range states {
		if o.State == s {
			return true
		}
	}
	return false
}
