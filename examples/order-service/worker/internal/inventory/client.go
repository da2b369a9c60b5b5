package inventory

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"time"
)

// HTTPReleaser calls the inventory service's release endpoint.
type HTTPReleaser struct {
	BaseURL string
	Client  *http.Client
}

// NewHTTPReleaser returns a releaser with a short request timeout.
func NewHTTPReleaser(baseURL string) *HTTPReleaser {
	return &HTTPReleaser{BaseURL: baseURL, Client: &http.Client{Timeout: 5 * time.Second}}
}

// Release posts {"reason": reason} to /reservations/{id}/release.
func (h *HTTPReleaser) Release(ctx context.Context, reservationID, reason string) error {
	body, err := json.Marshal(map[string]string{"reason": reason})
	if err != nil {
		return err
	}
	endpoint := fmt.Sprintf("%s/reservations/%s/release", h.BaseURL, url.PathEscape(reservationID))
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := h.Client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusOK, http.StatusNoContent:
		return nil
	case http.StatusNotFound:
		return ErrReservationNotFound
	case http.StatusConflict:
		return ErrAlreadyReleased
	default:
		return fmt.Errorf("inventory: release %s: unexpected status %s", reservationID, resp.Status)
	}
}

// FakeReleaser records releases in memory; useful in tests and dry runs.
type FakeReleaser struct {
	Released map[string]string
	Fail     map[string]error
}

// NewFakeReleaser returns an empty FakeReleaser.
func NewFakeReleaser() *FakeReleaser {
	return &FakeReleaser{Released: map[string]string{}, Fail: map[string]error{}}
}

// Release records the reservation, or returns the configured failure.
func (f *FakeReleaser) Release(ctx context.Context, reservationID, reason string) error {
	if err, ok := f.Fail[reservationID]; ok {
		return err
	}
	if _, done := f.Released[reservationID]; done {
		return ErrAlreadyReleased
	}
	f.Released[reservationID] = reason
	return nil
}
