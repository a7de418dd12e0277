package fcmemu_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	fcmemu "github.com/fcm-emu/fcm-emu/clients/go"
)

// needsOutcomes skips a test that reads the device's outcomes on an emulator without that route
// (one built before it): the waits then say less.
func needsOutcomes(t *testing.T, ctx context.Context, emu *fcmemu.Emulator, device *fcmemu.Device) {
	t.Helper()
	_, err := emu.Client().Do(ctx, fcmemu.Request{Method: "GET", Path: "/projects/" + device.ProjectID + "/devices/" + device.ID + "/outcomes"})
	if fcmemu.IsNotFound(err) {
		t.Skipf("this emulator has no GET …/devices/{device}/outcomes route (404): %v", err)
	} else if err != nil {
		t.Fatal(err)
	}
}

// whyFailed waits 200ms for data score=3-0 and returns the failure's text.
func whyFailed(t *testing.T, ctx context.Context, device *fcmemu.Device, opts ...fcmemu.WaitOption) string {
	t.Helper()
	if len(opts) == 0 {
		opts = []fcmemu.WaitOption{fcmemu.WhereData("score", "3-0")}
	}
	_, err := fcmemu.WaitForDelivery(ctx, device, append(opts, fcmemu.Within(200*time.Millisecond))...)
	if _, ok := err.(*fcmemu.DeliveryError); !ok {
		t.Fatalf("got %v, want a *DeliveryError", err)
	}
	return err.Error()
}

func newPhone(t *testing.T, ctx context.Context, project *fcmemu.Project, name string, state fcmemu.State) *fcmemu.Device {
	t.Helper()
	phone, err := project.CreateDevice(ctx, fcmemu.NewDevice{Name: name, State: state})
	if err != nil {
		t.Fatal(err)
	}
	return phone
}

func TestAFailedWaitNamesADiscardedMessage(t *testing.T) {
	emu, ctx := sharedEmulator(t), ctxFor(t)
	project := emu.NewProject(t)
	phone := newPhone(t, ctx, project, "pixel", fcmemu.Offline)
	needsOutcomes(t, ctx, emu, phone)
	name := sendV1(t, emu, project, map[string]any{"token": phone.Token, "data": map[string]string{"score": "3-0"},
		"android": map[string]string{"ttl": "0s"}})
	messageID := name[strings.LastIndex(name, "/")+1:]
	text := whyFailed(t, ctx, phone)
	for _, want := range []string{"but 0 matched: message " + messageID + " was discarded: ", "TTL 0", "; the inbox was empty"} {
		if !strings.Contains(text, want) {
			t.Errorf("%q not in %s", want, text)
		}
	}
}

func TestAFailedWaitNamesARefusedSend(t *testing.T) {
	emu, ctx := sharedEmulator(t), ctxFor(t)
	project := emu.NewProject(t)
	phone := newPhone(t, ctx, project, "pixel", "")
	needsOutcomes(t, ctx, emu, phone)
	_, err := send(emu, project, map[string]any{"token": phone.Token, "data": map[string]string{"from": "me", "score": "3-0"}})
	if err == nil || !strings.Contains(err.Error(), "send: 400") {
		t.Fatalf("a reserved data key: %v, want a 400", err)
	}
	if text := whyFailed(t, ctx, phone); !strings.Contains(text, "but 0 matched: refused: 400 INVALID_ARGUMENT") {
		t.Errorf("no refusal in %s", text)
	}
}

func TestAFailedWaitCountsWhatAnOfflineDeviceHolds(t *testing.T) {
	emu, ctx := sharedEmulator(t), ctxFor(t)
	project := emu.NewProject(t)
	phone := newPhone(t, ctx, project, "pixel", fcmemu.Offline)
	for _, score := range []string{"1-0", "2-0", "3-0"} {
		sendV1(t, emu, project, map[string]any{"token": phone.Token, "data": map[string]string{"score": score}})
	}
	// With or without the outcomes route: a fresh read of the device says it too.
	if text := whyFailed(t, ctx, phone); !strings.Contains(text, "but 0 matched: held: device offline, 3 stored; the inbox was empty") {
		t.Errorf("nothing held in %s", text)
	}
}

func TestAFailedWaitNamesTheNearestMiss(t *testing.T) {
	emu, ctx := sharedEmulator(t), ctxFor(t)
	project := emu.NewProject(t)
	phone := newPhone(t, ctx, project, "pixel", "")
	sendV1(t, emu, project, map[string]any{"token": phone.Token, "data": map[string]string{"score": "1-1", "team": "away"}})
	sendV1(t, emu, project, map[string]any{"token": phone.Token, "data": map[string]string{"score": "3-1", "team": "home"}})
	fcmemu.RequireDeliveredCount(t, phone, 2)
	text := whyFailed(t, ctx, phone, fcmemu.WhereFields(map[string]any{"payload": map[string]any{"data": map[string]any{"team": "home", "score": "3-0"}}}))
	if want := `a delivery matched all but payload.data.score: "3-1", wanted "3-0"; the inbox held 2`; !strings.Contains(text, want) {
		t.Errorf("%q not in %s", want, text)
	}
	text = whyFailed(t, ctx, phone, fcmemu.WhereData("score", "3-0"), fcmemu.WhereData("minute", "90"))
	if want := `the nearest delivery differs in 2 of 2 fields, first data.score: "1-1", wanted "3-0"`; !strings.Contains(text, want) {
		t.Errorf("%q not in %s", want, text)
	}
}

// recordingTB keeps what NewProject logs and its cleanups, to run them in the test.
type recordingTB struct {
	testing.TB
	logs     []string
	cleanups []func()
}

func (r *recordingTB) Logf(format string, args ...any) {
	r.logs = append(r.logs, fmt.Sprintf(format, args...))
}
func (r *recordingTB) Cleanup(f func()) { r.cleanups = append(r.cleanups, f) }

func TestAFaultRuleThatNeverFiredIsLoggedWhenTheProjectGoes(t *testing.T) {
	emu := sharedEmulator(t)
	recorder := &recordingTB{TB: t}
	project := emu.NewProject(recorder)
	ctx := context.Background()
	rule, err := emu.Client().AddFault(ctx, fcmemu.FaultRule{ID: "never-" + project.ID(),
		Match: fcmemu.FaultMatch{Project: project.ID(), API: "legacy"}, Action: fcmemu.FaultAction{Error: "UNAVAILABLE"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = emu.Client().RemoveFault(context.Background(), rule.ID) })
	for i := len(recorder.cleanups) - 1; i >= 0; i-- {
		recorder.cleanups[i]()
	}
	if len(recorder.logs) != 1 || !strings.Contains(recorder.logs[0], fmt.Sprintf("fault rule %q never fired during %s", rule.ID, t.Name())) {
		t.Errorf("logged %q", recorder.logs)
	}
	if t.Failed() {
		t.Error("an unused rule failed the test")
	}
}
