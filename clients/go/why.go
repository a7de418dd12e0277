package fcmemu

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"
)

// Why a wait failed: what the emulator did with the device's messages (its outcomes), the nearest
// miss of the WhereFields and WhereData options, and fault rules a test added that never fired.

// whyTimeout bounds the reads that explain a failure: the wait's own context may have ended.
const whyTimeout = 5 * time.Second

// quietOutcomes say nothing about a message going astray.
var quietOutcomes = map[string]bool{"accepted": true, "delivered": true, "stored": true}

// messageOutcomes are those of a message accepted and then dropped: "message 0:17… was discarded: …".
var messageOutcomes = map[string]bool{"discarded": true, "collapsed": true, "evicted": true, "expired": true}

type outcome struct {
	Kind      string `json:"kind"`
	MessageID string `json:"messageId"`
	Summary   string `json:"summary"`
}

type outcomesDocument struct {
	Device struct {
		State string `json:"state"`
	} `json:"device"`
	Stored   *int      `json:"stored"`
	Outcomes []outcome `json:"outcomes"`
}

// deviceOutcomes reads GET …/devices/{device}/outcomes; nil when the emulator has no such route
// (an older one), does not know the device, or cannot be asked: the failure is reported anyway.
func deviceOutcomes(ctx context.Context, client *Client, device *Device) *outcomesDocument {
	var doc outcomesDocument
	path := "/projects/" + seg(device.ProjectID) + "/devices/" + seg(device.ID) + "/outcomes"
	if _, err := client.getJSON(ctx, Request{Method: "GET", Path: path}, &doc); err != nil {
		return nil
	}
	return &doc
}

func heldText(state string, stored int) string {
	if stored <= 0 {
		return ""
	}
	if state == "" {
		state = "unknown"
	}
	return fmt.Sprintf("held: device %s, %d stored", state, stored)
}

// outcomeReasons leads with the newest outcome that lost or refused a message (the list is newest
// first, and a send comes before the wait for it), then what the device holds back. Without the
// outcomes route, a fresh read of the device says what it holds.
func outcomeReasons(device *Device) []string {
	client, err := device.bound()
	if err != nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), whyTimeout)
	defer cancel()
	var reasons []string
	held := ""
	if doc := deviceOutcomes(ctx, client, device); doc != nil {
		for _, o := range doc.Outcomes {
			if quietOutcomes[o.Kind] {
				continue
			}
			text := o.Summary
			if text == "" {
				text = o.Kind
			}
			if o.MessageID != "" && messageOutcomes[o.Kind] {
				text = "message " + o.MessageID + " was " + text
			}
			reasons = append(reasons, text)
			break
		}
		if doc.Stored != nil {
			held = heldText(doc.Device.State, *doc.Stored)
		}
		// The server's words, when it says why it holds them (offline, Doze, …).
		for _, o := range doc.Outcomes {
			if o.Kind == "stored" {
				if held != "" && strings.HasPrefix(o.Summary, "held: ") {
					held = o.Summary
				}
				break
			}
		}
	} else if now, err := client.GetDevice(ctx, device.ProjectID, device.ID); err == nil {
		held = heldText(string(now.State), now.StoredCount)
	}
	if held != "" {
		reasons = append(reasons, held)
	}
	return reasons
}

// fieldSpec is one field a WhereFields or WhereData option asks for, for the nearest miss.
type fieldSpec struct {
	path   string
	wanted any
	get    func(d Delivery, doc any) (any, bool)
}

// fieldSpecs flattens WhereFields' map into its leaves, reading each key as subset does: literally
// first, then as a dotted path.
func fieldSpecs(expected map[string]any, prefix []string) []fieldSpec {
	keys := make([]string, 0, len(expected))
	for k := range expected {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var specs []fieldSpec
	for _, k := range keys {
		path := append(append([]string{}, prefix...), k)
		if nested, ok := expected[k].(map[string]any); ok && len(nested) > 0 {
			specs = append(specs, fieldSpecs(nested, path)...)
			continue
		}
		specs = append(specs, fieldSpec{path: strings.Join(path, "."), wanted: expected[k],
			get: func(_ Delivery, doc any) (any, bool) { return resolve(doc, path) }})
	}
	return specs
}

func resolve(data any, keys []string) (any, bool) {
	for _, k := range keys {
		node, ok := data.(map[string]any)
		if !ok {
			return nil, false
		}
		got, found := node[k]
		if !found && strings.Contains(k, ".") {
			got, found = lookup(node, k)
		}
		if !found {
			return nil, false
		}
		data = got
	}
	return data, true
}

func shown(v any, found bool) string {
	if !found {
		return "missing"
	}
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(data)
}

// nearestMiss names the delivery with the fewest differing fields among those that did not match,
// and its first difference; "" when the options ask for no fields or nothing came.
func nearestMiss(c *waitConfig, all []Delivery) string {
	if len(c.fields) == 0 {
		return ""
	}
	var best []string
	for _, d := range all {
		if c.matches(d) {
			continue
		}
		var doc any
		_ = json.Unmarshal(d.Raw, &doc)
		var differing []string
		for _, spec := range c.fields {
			got, found := spec.get(d, doc)
			if !found || !subset(spec.wanted, got) {
				differing = append(differing, fmt.Sprintf("%s: %s, wanted %s", spec.path, shown(got, found), shown(spec.wanted, true)))
			}
		}
		if len(differing) > 0 && (best == nil || len(differing) < len(best)) {
			best = differing
		}
	}
	switch {
	case best == nil:
		return ""
	case len(c.fields) == 1:
		return "the nearest delivery has " + best[0]
	case len(best) == 1:
		return "a delivery matched all but " + best[0]
	}
	return fmt.Sprintf("the nearest delivery differs in %d of %d fields, first %s", len(best), len(c.fields), best[0])
}

// whyNoneCame is the device's outcomes, then the nearest miss.
func whyNoneCame(device *Device, c *waitConfig, all []Delivery) []string {
	reasons := outcomeReasons(device)
	if miss := nearestMiss(c, all); miss != "" {
		reasons = append(reasons, miss)
	}
	return reasons
}

// faultRuleIDs returns the ids of the rules in force now; nil when they cannot be read.
func faultRuleIDs(client *Client) map[string]bool {
	ctx, cancel := context.WithTimeout(context.Background(), whyTimeout)
	defer cancel()
	rules, err := client.Faults(ctx)
	if err != nil {
		return nil
	}
	ids := map[string]bool{}
	for _, r := range rules {
		ids[r.ID] = true
	}
	return ids
}

// unusedFaultRules returns the rules that never fired and belong to the test: they name its
// project, or were added since before (the ids at its start) and name no other project. Rules are
// the emulator's, not a project's: deleting the project leaves them in force.
func unusedFaultRules(client *Client, project string, before map[string]bool) []FaultRule {
	ctx, cancel := context.WithTimeout(context.Background(), whyTimeout)
	defer cancel()
	rules, err := client.Faults(ctx)
	if err != nil {
		return nil
	}
	var unused []FaultRule
	for _, r := range rules {
		if r.Fired != 0 {
			continue
		}
		if r.Match.Project == project || (r.Match.Project == "" && before != nil && !before[r.ID]) {
			unused = append(unused, r)
		}
	}
	return unused
}

// logUnusedFaultRules reports each unused rule with t.Logf; the test does not fail for it.
func logUnusedFaultRules(t testing.TB, client *Client, project string, before map[string]bool) {
	t.Helper()
	for _, r := range unusedFaultRules(client, project, before) {
		match, _ := json.Marshal(r.Match)
		action, _ := json.Marshal(r.Action)
		t.Logf("fcm-emu: fault rule %q never fired during %s (match %s, action %s): no call matched it, so the "+
			"failure it was meant to cause was not tested; check its api, route, project, target and device",
			r.ID, t.Name(), match, action)
	}
}
