package fcmemu

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// DefaultWithin is how long WaitForDelivery and WaitForDeliveries wait by default (wall time).
const DefaultWithin = 10 * time.Second

// maxServerWait is the longest wait one inbox read may ask for (the API's limit is 5m).
const maxServerWait = 5 * time.Minute

// WaitOption selects deliveries and sets how long to wait for them.
type WaitOption func(*waitConfig)

type waitConfig struct {
	preds     []func(Delivery) bool
	descs     []string
	fields    []fieldSpec // what WhereFields and WhereData ask for, to name the nearest miss
	within    time.Duration
	withinSet bool
	advance   time.Duration
}

// Where selects the deliveries for which pred returns true. Several Where options must all hold.
func Where(pred func(Delivery) bool) WaitOption {
	return func(c *waitConfig) {
		c.preds = append(c.preds, pred)
		c.descs = append(c.descs, "a predicate")
	}
}

// WhereFields selects the deliveries whose JSON (as the inbox API returns it) contains fields: a
// subset match, recursive for nested maps, where a key with dots ("payload.data.score") is a path.
//
//	fcmemu.WhereFields(map[string]any{"payload.data.score": "3-0", "priority": "high"})
func WhereFields(fields map[string]any) WaitOption {
	expected := normalize(fields)
	text, _ := json.Marshal(fields)
	asked, _ := expected.(map[string]any)
	return func(c *waitConfig) {
		c.fields = append(c.fields, fieldSpecs(asked, nil)...)
		c.preds = append(c.preds, func(d Delivery) bool {
			var actual any
			if json.Unmarshal(d.Raw, &actual) != nil {
				return false
			}
			return subset(expected, actual)
		})
		c.descs = append(c.descs, string(text))
	}
}

// WhereData selects the deliveries whose data field key is value, wherever the platform puts the
// data (Delivery.Data).
func WhereData(key, value string) WaitOption {
	return func(c *waitConfig) {
		c.preds = append(c.preds, func(d Delivery) bool { return d.Data()[key] == value })
		c.fields = append(c.fields, fieldSpec{path: "data." + key, wanted: value, get: func(d Delivery, _ any) (any, bool) {
			got, found := d.Data()[key]
			return got, found
		}})
		c.descs = append(c.descs, fmt.Sprintf("data %s=%q", key, value))
	}
}

// Within sets how long to wait, in wall time, through the inbox's own server-side wait (never a
// sleep): the default is DefaultWithin for the waits for deliveries and 0 (look once, now) for
// NothingDelivered. A deadline on the context also ends the wait.
func Within(d time.Duration) WaitOption {
	return func(c *waitConfig) { c.within, c.withinSet = d, true }
}

// AfterAdvancing moves the emulator's clock forward by d before looking, firing everything due on
// the way (TTL expiry, Doze maintenance windows, latencies): with an emulator started with
// WithPausedClock, "nothing within 15 minutes" is NothingDelivered(ctx, dev, AfterAdvancing(15*time.Minute))
// and takes no wall time.
func AfterAdvancing(d time.Duration) WaitOption {
	return func(c *waitConfig) { c.advance = d }
}

func newWaitConfig(opts []WaitOption, within time.Duration) *waitConfig {
	c := &waitConfig{within: within}
	for _, opt := range opts {
		opt(c)
	}
	return c
}

func (c *waitConfig) matches(d Delivery) bool {
	for _, p := range c.preds {
		if !p(d) {
			return false
		}
	}
	return true
}

func (c *waitConfig) describe() string {
	if len(c.descs) == 0 {
		return "any delivery"
	}
	return "a delivery matching " + strings.Join(c.descs, " and ")
}

// DeliveryError is the failure of a wait: what was expected, on which device, why none came as
// far as the emulator knows, and every delivery the inbox held.
type DeliveryError struct {
	Device     *Device
	Expected   string // what was waited for
	Within     time.Duration
	Matched    int
	Deliveries []Delivery
	// Reasons say why too few came: the newest outcome of the device that lost or refused a
	// message ("message 0:… was discarded: TTL 0 while the device was offline", "refused: 400 …"),
	// what it holds back ("held: device offline, 3 stored"), and the delivery nearest the
	// WhereFields/WhereData options ("a delivery matched all but payload.data.score: "3-1", wanted "3-0"").
	Reasons []string
}

func (e *DeliveryError) Error() string {
	var b strings.Builder
	name := ""
	if e.Device.Name != "" {
		name = fmt.Sprintf(" %q", e.Device.Name)
	}
	token := e.Device.Token
	if len(token) > 24 {
		token = token[:24] + "…"
	}
	fmt.Fprintf(&b, "fcm-emu: expected %s on device %s%s (%s, project %s, token %s)", e.Expected,
		e.Device.ID, name, e.Device.Platform, e.Device.ProjectID, token)
	if e.Within > 0 {
		fmt.Fprintf(&b, " within %s", e.Within)
	}
	fmt.Fprintf(&b, ", but %d matched", e.Matched)
	if len(e.Reasons) > 0 {
		b.WriteString(": " + strings.Join(e.Reasons, "; "))
	}
	b.WriteString("; ")
	if len(e.Deliveries) == 0 {
		b.WriteString("the inbox was empty")
		return b.String()
	}
	fmt.Fprintf(&b, "the inbox held %d deliveries:", len(e.Deliveries))
	for i, d := range e.Deliveries {
		text := string(d.Raw)
		if len(text) > 600 {
			text = text[:600] + "…"
		}
		fmt.Fprintf(&b, "\n  %d. %s", i+1, text)
	}
	return b.String()
}

// collect reads the inbox until want deliveries match or the wait ends; it returns every delivery
// of the last read. Each round waits, server side, for one more delivery.
func collect(ctx context.Context, device *Device, c *waitConfig, want int) ([]Delivery, error) {
	client, err := device.bound()
	if err != nil {
		return nil, err
	}
	if c.advance > 0 {
		if _, err := client.AdvanceClock(ctx, c.advance); err != nil {
			return nil, err
		}
	}
	deadline := time.Now().Add(c.within)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	inbox, err := client.Inbox(ctx, device.ProjectID, device.ID)
	for {
		if err != nil {
			return nil, err
		}
		matched := 0
		for _, d := range inbox.Deliveries {
			if c.matches(d) {
				matched++
			}
		}
		left := time.Until(deadline)
		if matched >= want || left <= 0 {
			return inbox.Deliveries, nil
		}
		// The server takes whole milliseconds: round up, so the wait never ends before the
		// deadline (rounding down ended it up to a millisecond early).
		remaining := left.Truncate(time.Millisecond)
		if remaining < left {
			remaining += time.Millisecond
		}
		if remaining > maxServerWait {
			remaining = maxServerWait
		}
		inbox, err = client.WaitInbox(ctx, device.ProjectID, device.ID, len(inbox.Deliveries)+1, remaining)
	}
}

func matching(c *waitConfig, all []Delivery) []Delivery {
	var found []Delivery
	for _, d := range all {
		if c.matches(d) {
			found = append(found, d)
		}
	}
	return found
}

// WaitForDelivery waits until the device's inbox holds a delivery matching the options (by
// default any delivery, within DefaultWithin) and returns the first one. It uses the inbox's
// server-side wait, so a delivery ends the wait at once. On failure the *DeliveryError says why
// none came, as far as the emulator knows, and lists what the inbox held.
func WaitForDelivery(ctx context.Context, device *Device, opts ...WaitOption) (Delivery, error) {
	c := newWaitConfig(opts, DefaultWithin)
	all, err := collect(ctx, device, c, 1)
	if err != nil {
		return Delivery{}, err
	}
	if found := matching(c, all); len(found) > 0 {
		return found[0], nil
	}
	return Delivery{}, &DeliveryError{Device: device, Expected: c.describe(), Within: c.within, Deliveries: all,
		Reasons: whyNoneCame(device, c, all)}
}

// WaitForDeliveries waits until n deliveries match the options and checks that exactly n do;
// it returns them, oldest first.
func WaitForDeliveries(ctx context.Context, device *Device, n int, opts ...WaitOption) ([]Delivery, error) {
	if n == 0 {
		return nil, NothingDelivered(ctx, device, opts...)
	}
	c := newWaitConfig(opts, DefaultWithin)
	all, err := collect(ctx, device, c, n)
	if err != nil {
		return nil, err
	}
	found := matching(c, all)
	if len(found) != n {
		var reasons []string
		if len(found) < n {
			reasons = whyNoneCame(device, c, all)
		}
		return found, &DeliveryError{Device: device, Expected: fmt.Sprintf("exactly %d × %s", n, c.describe()),
			Within: c.within, Matched: len(found), Deliveries: all, Reasons: reasons}
	}
	return found, nil
}

// NothingDelivered checks that the device's inbox holds no delivery matching the options. By
// default it looks once, now; Within(d) also waits d (wall time) for one to arrive, and
// AfterAdvancing(d) first moves the emulator's clock by d (virtual time, no waiting).
func NothingDelivered(ctx context.Context, device *Device, opts ...WaitOption) error {
	c := newWaitConfig(opts, 0)
	all, err := collect(ctx, device, c, 1)
	if err != nil {
		return err
	}
	if found := matching(c, all); len(found) > 0 {
		what := "no delivery"
		if len(c.descs) > 0 {
			what = "no " + strings.TrimPrefix(c.describe(), "a ")
		}
		return &DeliveryError{Device: device, Expected: what, Within: c.within, Matched: len(found), Deliveries: all}
	}
	return nil
}

// RequireDelivered is WaitForDelivery for tests: it fails the test (t.Fatal) when no matching
// delivery comes.
func RequireDelivered(t testing.TB, device *Device, opts ...WaitOption) Delivery {
	t.Helper()
	d, err := WaitForDelivery(context.Background(), device, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// RequireDeliveredCount is WaitForDeliveries for tests.
func RequireDeliveredCount(t testing.TB, device *Device, n int, opts ...WaitOption) []Delivery {
	t.Helper()
	found, err := WaitForDeliveries(context.Background(), device, n, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return found
}

// RequireNothingDelivered is NothingDelivered for tests.
func RequireNothingDelivered(t testing.TB, device *Device, opts ...WaitOption) {
	t.Helper()
	if err := NothingDelivered(context.Background(), device, opts...); err != nil {
		t.Fatal(err)
	}
}

// ---- subset matching ----

func normalize(v any) any {
	data, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out any
	if json.Unmarshal(data, &out) != nil {
		return v
	}
	return out
}

func lookup(data any, path string) (any, bool) {
	for _, part := range strings.Split(path, ".") {
		switch node := data.(type) {
		case map[string]any:
			v, ok := node[part]
			if !ok {
				return nil, false
			}
			data = v
		case []any:
			i, err := strconv.Atoi(part)
			if err != nil || i < 0 || i >= len(node) {
				return nil, false
			}
			data = node[i]
		default:
			return nil, false
		}
	}
	return data, true
}

func subset(expected, actual any) bool {
	exp, ok := expected.(map[string]any)
	if !ok {
		return reflect.DeepEqual(expected, actual)
	}
	act, ok := actual.(map[string]any)
	if !ok {
		return false
	}
	keys := make([]string, 0, len(exp))
	for k := range exp {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		got, found := act[k]
		if !found && strings.Contains(k, ".") {
			got, found = lookup(act, k)
		}
		if !found || !subset(exp[k], got) {
			return false
		}
	}
	return true
}
