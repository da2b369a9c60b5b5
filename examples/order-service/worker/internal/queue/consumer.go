package queue

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"time"
)

// Handler processes one message. Returning an error stops the consumer at
// that message so it is retried on the next poll.
type Handler func(ctx context.Context, m Message) error

// Consumer tails the outbox file and dispatches each message to the handler
// registered for its type. Its offset is the number of bytes processed.
type Consumer struct {
	Path     string
	handlers map[string]Handler
	offset   int64
}

// NewConsumer returns a consumer of the outbox at path.
func NewConsumer(path string) *Consumer {
	return &Consumer{Path: path, handlers: make(map[string]Handler)}
}

// Handle registers h for messages of type eventType.
func (c *Consumer) Handle(eventType string, h Handler) {
	c.handlers[eventType] = h
}

// Offset returns how many bytes of the outbox have been processed.
func (c *Consumer) Offset() int64 { return c.offset }

// Poll processes every complete line after the current offset and returns
// how many messages were handled. Malformed lines are logged and skipped.
func (c *Consumer) Poll(ctx context.Context) (int, error) {
	f, err := os.Open(c.Path)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	} else if err != nil {
		return 0, err
	}
	defer f.Close()
	if _, err := f.Seek(c.offset, io.SeekStart); err != nil {
		return 0, err
	}
	reader := bufio.NewReader(f)
	handled := 0
	for {
		line, err := reader.ReadBytes('\n')
		if errors.Is(err, io.EOF) {
			return handled, nil // a partial last line is read again next time
		} else if err != nil {
			return handled, err
		}
		if err := c.dispatch(ctx, line); err != nil {
			return handled, err
		}
		c.offset += int64(len(line))
		handled++
	}
}

func (c *Consumer) dispatch(ctx context.Context, line []byte) error {
	m, err := Decode(line)
	if err != nil {
		log.Printf("queue: skipping malformed line at offset %d: %v", c.offset, err)
		return nil
	}
	h, ok := c.handlers[m.Type]
	if !ok {
		return nil
	}
	if err := h(ctx, m); err != nil {
		return fmt.Errorf("%s for %s: %w", m.Type, m.Key, err)
	}
	return nil
}

// Run polls every interval until ctx is cancelled.
func (c *Consumer) Run(ctx context.Context, interval time.Duration) error {
	for {
		if _, err := c.Poll(ctx); err != nil {
			log.Printf("queue: %v", err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(interval):
		}
	}
}
