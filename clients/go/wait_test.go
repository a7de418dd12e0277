package fcmemu_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	fcmemu "github.com/fcm-emu/fcm-emu/clients/go"
)

func TestWaitForDelivery(t *testing.T) {
	emu := sharedEmulator(t)
	ctx := ctxFor(t)
	project := emu.NewProject(t)
	phone, err := project.CreateDevice(ctx, fcmemu.NewDevice{Name: "pixel"})
	if err != nil {
		t.Fatal(err)
	}
	// A delivery already there ends the wait at once; the wait is the server's, so a later one
	// ends it as soon as it lands.
	sendV1(t, emu, project, map[string]any{"token": phone.Token, "data": map[string]string{"score": "1-0"}})
	sent := make(chan error, 1)
	go func() {
		time.Sleep(50 * time.Millisecond) // a sender a little later than the wait's start
		_, err := send(emu, project, map[string]any{"token": phone.Token, "notification": map[string]string{"title": "Goal!"},
			"data": map[string]string{"score": "2-0"}})
		sent <- err
	}()
	start := time.Now()
	d, err := fcmemu.WaitForDelivery(ctx, phone, fcmemu.WhereFields(map[string]any{
		"payload.data.score": "2-0", "payload": map[string]any{"notification": map[string]any{"title": "Goal!"}}}))
	if err != nil {
		t.Fatal(err)
	}
	if err := <-sent; err != nil {
		t.Fatal(err)
	}
	if d.Data()["score"] != "2-0" || time.Since(start) > 5*time.Second {
		t.Errorf("delivery %+v after %s", d, time.Since(start))
	}
	found := fcmemu.RequireDeliveredCount(t, phone, 2)
	if len(found) != 2 {
		t.Errorf("found %d", len(found))
	}
	fcmemu.RequireDelivered(t, phone, fcmemu.WhereData("score", "1-0"), fcmemu.Where(func(d fcmemu.Delivery) bool { return d.API == "v1" }))
	fcmemu.RequireNothingDelivered(t, phone, fcmemu.WhereData("score", "9-9"))
}

func TestAFailedWaitListsTheInbox(t *testing.T) {
	emu := sharedEmulator(t)
	ctx := ctxFor(t)
	project := emu.NewProject(t)
	phone, err := project.CreateDevice(ctx, fcmemu.NewDevice{Platform: fcmemu.Web, Name: "browser"})
	if err != nil {
		t.Fatal(err)
	}
	sendV1(t, emu, project, map[string]any{"token": phone.Token, "data": map[string]string{"score": "0-1"}})
	start := time.Now()
	_, err = fcmemu.WaitForDelivery(ctx, phone, fcmemu.WhereData("score", "3-0"), fcmemu.Within(300*time.Millisecond))
	var failed *fcmemu.DeliveryError
	if !errors.As(err, &failed) || len(failed.Deliveries) != 1 {
		t.Fatalf("got %v", err)
	}
	text := err.Error()
	for _, want := range []string{`data score="3-0"`, `"browser"`, "within 300ms", "the inbox held 1 deliveries", `"0-1"`} {
		if !strings.Contains(text, want) {
			t.Errorf("%q not in %s", want, text)
		}
	}
	if took := time.Since(start); took < 300*time.Millisecond || took > 5*time.Second {
		t.Errorf("the wait took %s", took)
	}
	err = fcmemu.NothingDelivered(ctx, phone)
	if !errors.As(err, &failed) || !strings.Contains(err.Error(), "expected no delivery") {
		t.Errorf("nothing delivered: %v", err)
	}
	if _, err := fcmemu.WaitForDeliveries(ctx, phone, 2, fcmemu.Within(100*time.Millisecond)); !errors.As(err, &failed) || failed.Matched != 1 {
		t.Errorf("two deliveries: %v", err)
	}
	// The context's deadline ends a wait too.
	short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	if _, err := fcmemu.WaitForDelivery(short, phone, fcmemu.WhereData("score", "3-0")); err == nil {
		t.Error("no error at the deadline")
	}
	if _, err := fcmemu.WaitForDelivery(ctx, &fcmemu.Device{ID: "x"}); err == nil || !strings.Contains(err.Error(), "not bound") {
		t.Errorf("an unbound device: %v", err)
	}
}

func TestWaitsOnTheVirtualClock(t *testing.T) {
	emu := fcmemu.Start(t, fcmemu.WithPausedClock())
	ctx := ctxFor(t)
	project := emu.NewProject(t)
	dozing, err := project.CreateDevice(ctx, fcmemu.NewDevice{Name: "dozing", State: fcmemu.Doze})
	if err != nil {
		t.Fatal(err)
	}
	away, err := project.CreateDevice(ctx, fcmemu.NewDevice{Name: "away", State: fcmemu.Offline})
	if err != nil {
		t.Fatal(err)
	}
	sendV1(t, emu, project, map[string]any{"token": dozing.Token, "data": map[string]string{"n": "1"},
		"android": map[string]any{"priority": "normal"}})
	sendV1(t, emu, project, map[string]any{"token": away.Token, "data": map[string]string{"n": "2"},
		"android": map[string]any{"ttl": "60s"}})
	start := time.Now()
	// Doze holds a normal-priority message until its maintenance window (15 minutes).
	fcmemu.RequireNothingDelivered(t, dozing, fcmemu.AfterAdvancing(10*time.Minute))
	fcmemu.RequireDelivered(t, dozing, fcmemu.AfterAdvancing(5*time.Minute), fcmemu.WhereData("n", "1"))
	// The offline device's message expires while it is away: nothing when it is back.
	if err := away.SetState(ctx, fcmemu.Foreground); err != nil {
		t.Fatal(err)
	}
	fcmemu.RequireNothingDelivered(t, away)
	events, err := away.Events(ctx, fcmemu.EventQuery{Kinds: []string{"expired"}})
	if err != nil || len(events.Events) != 1 {
		t.Errorf("expired events %+v %v", events, err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("virtual waits took %s of wall time", took)
	}
}
