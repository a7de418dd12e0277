package fcmemu_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	fcmemu "github.com/fcm-emu/fcm-emu/clients/go"
)

func TestProjectsAndDevices(t *testing.T) {
	emu := sharedEmulator(t)
	ctx := ctxFor(t)
	project := emu.NewProject(t)
	if !strings.HasPrefix(project.ID(), "t-testprojectsanddevic") || len(project.ID()) > 30 {
		t.Errorf("project id %q", project.ID())
	}
	info, err := project.Info(ctx)
	if err != nil || info.ID != project.ID() || info.Number == "" {
		t.Fatalf("info %+v, %v", info, err)
	}
	phone, err := project.CreateDevice(ctx, fcmemu.NewDevice{Platform: fcmemu.IOS, Name: "iphone", Topics: []string{"news"}})
	if err != nil {
		t.Fatal(err)
	}
	if phone.Platform != fcmemu.IOS || phone.State != fcmemu.Foreground || phone.Token == "" || !phone.TokenValid {
		t.Errorf("device %+v", phone)
	}
	if err := phone.SetState(ctx, fcmemu.Offline); err != nil || phone.State != fcmemu.Offline {
		t.Errorf("state %s, %v", phone.State, err)
	}
	if err := phone.Subscribe(ctx, "sport"); err != nil || len(phone.Topics) != 2 {
		t.Errorf("topics %v, %v", phone.Topics, err)
	}
	topics, err := project.Topics(ctx)
	if err != nil || len(topics) != 2 {
		t.Errorf("topics %+v, %v", topics, err)
	}
	oldToken := phone.Token
	if err := phone.RefreshToken(ctx, ""); err != nil || phone.Token == oldToken {
		t.Errorf("refresh: %v", err)
	}
	byName, err := project.Device(ctx, "iphone")
	if err != nil || byName.ID != phone.ID {
		t.Errorf("by name: %+v %v", byName, err)
	}
	many, err := project.CreateDevices(ctx, 3, fcmemu.NewDevice{Platform: fcmemu.Web})
	if err != nil || len(many) != 3 || many[2].Platform != fcmemu.Web {
		t.Fatalf("three devices: %v", err)
	}
	all, err := project.Devices(ctx)
	if err != nil || len(all) != 4 {
		t.Errorf("devices %d, %v", len(all), err)
	}
	if err := many[0].Delete(ctx); err != nil {
		t.Fatal(err)
	}
	_, err = project.Device(ctx, many[0].ID)
	var apiErr *fcmemu.APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 404 || apiErr.Status != "NOT_FOUND" || apiErr.Message == "" || !fcmemu.IsNotFound(err) {
		t.Errorf("a deleted device: %v", err)
	}
	key, err := project.ServiceAccount(ctx)
	if err != nil || !strings.Contains(string(key), `"token_uri"`) {
		t.Errorf("service account: %v", err)
	}
}

func TestErrorsCarryTheAPIMessage(t *testing.T) {
	emu := sharedEmulator(t)
	_, err := emu.Client().CreateDevice(ctxFor(t), emu.DemoProjectID(), fcmemu.NewDevice{Platform: "toaster"})
	var apiErr *fcmemu.APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 400 || apiErr.Status != "INVALID_ARGUMENT" || apiErr.Field != "platform" {
		t.Fatalf("got %#v", err)
	}
	if !strings.Contains(err.Error(), "400 INVALID_ARGUMENT") || !strings.Contains(err.Error(), `(field "platform")`) {
		t.Errorf("message %q", err)
	}
	unreachable := fcmemu.NewClient("http://127.0.0.1:1", fcmemu.WithTimeout(2*time.Second))
	err = unreachable.Health(ctxFor(t))
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 0 || !strings.Contains(err.Error(), "no answer") {
		t.Errorf("unreachable: %v", err)
	}
}

func TestInboxEventsAndWaits(t *testing.T) {
	emu := sharedEmulator(t)
	ctx := ctxFor(t)
	project := emu.NewProject(t)
	phone, err := project.CreateDevice(ctx, fcmemu.NewDevice{Platform: fcmemu.Android, Name: "pixel"})
	if err != nil {
		t.Fatal(err)
	}
	inbox, err := phone.Inbox(ctx)
	if err != nil || len(inbox.Deliveries) != 0 || inbox.Satisfied != nil {
		t.Fatalf("inbox %+v %v", inbox, err)
	}
	inbox, err = phone.WaitInbox(ctx, 1, 50*time.Millisecond)
	if err != nil || inbox.Satisfied == nil || *inbox.Satisfied {
		t.Fatalf("a wait with nothing coming: %+v %v", inbox, err)
	}
	name := sendV1(t, emu, project, map[string]any{"token": phone.Token, "data": map[string]string{"score": "3-0"}})
	inbox, err = phone.WaitInbox(ctx, 1, 5*time.Second)
	if err != nil || inbox.Satisfied == nil || !*inbox.Satisfied || len(inbox.Deliveries) != 1 {
		t.Fatalf("inbox %+v %v", inbox, err)
	}
	d := inbox.Deliveries[0]
	if d.Data()["score"] != "3-0" || d.API != "v1" || !strings.HasSuffix(name, d.MessageID) || len(d.Raw) == 0 {
		t.Errorf("delivery %+v", d)
	}
	events, err := phone.Events(ctx, fcmemu.EventQuery{Kinds: []string{"delivered"}, WaitFor: 1, Timeout: 5 * time.Second})
	if err != nil || len(events.Events) != 1 || events.Satisfied == nil || !*events.Satisfied {
		t.Fatalf("events %+v %v", events, err)
	}
	all, err := project.Events(ctx, fcmemu.EventQuery{Device: "pixel"})
	if err != nil || strings.Join(all.Kinds(), ",") != "deviceCreated,accepted,delivered" {
		t.Errorf("kinds %v %v", all.Kinds(), err)
	}
	if err := phone.ClearInbox(ctx); err != nil {
		t.Fatal(err)
	}
	if inbox, _ := phone.Inbox(ctx); len(inbox.Deliveries) != 0 {
		t.Error("inbox not cleared")
	}
}

func TestEventStream(t *testing.T) {
	emu := sharedEmulator(t)
	ctx := ctxFor(t)
	project := emu.NewProject(t)
	stream, err := project.StreamEvents(ctx, fcmemu.StreamQuery{Kinds: []string{"deviceCreated"}})
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Close()
	first, err := stream.Next()
	if err != nil || first.Event != "ready" {
		t.Fatalf("first frame %+v %v", first, err)
	}
	if _, err := project.CreateDevice(ctx, fcmemu.NewDevice{Name: "streamed"}); err != nil {
		t.Fatal(err)
	}
	event, err := stream.NextEvent()
	if err != nil || event.Kind != "deviceCreated" || event.Project != project.ID() {
		t.Fatalf("event %+v %v", event, err)
	}
}

func TestFaultsClockAndSnapshots(t *testing.T) {
	emu := fcmemu.Start(t, fcmemu.WithPausedClock())
	ctx := ctxFor(t)
	c := emu.Client()
	rule, err := c.AddFault(ctx, fcmemu.FaultRule{Match: fcmemu.FaultMatch{API: "v1", Count: 1}, Action: fcmemu.FaultAction{Error: "UNAVAILABLE"}})
	if err != nil || rule.ID == "" {
		t.Fatalf("rule %+v %v", rule, err)
	}
	rules, err := c.Faults(ctx)
	if err != nil || len(rules) != 1 || !strings.EqualFold(rules[0].Action.Error, "UNAVAILABLE") {
		t.Errorf("rules %+v %v", rules, err)
	}
	if left, err := c.RemoveFault(ctx, rule.ID); err != nil || len(left) != 0 {
		t.Errorf("left %+v %v", left, err)
	}
	before, err := c.Clock(ctx)
	if err != nil || !before.Paused {
		t.Fatalf("clock %+v %v", before, err)
	}
	after, err := c.AdvanceClock(ctx, 15*time.Minute)
	if err != nil || after.Time().Sub(before.Time()) != 15*time.Minute {
		t.Errorf("advanced %v, %v", after.Time().Sub(before.Time()), err)
	}
	target := after.Time().Add(time.Hour)
	if after, err = c.AdvanceClockTo(ctx, target); err != nil || !after.Time().Equal(target) {
		t.Errorf("advanced to %v, %v", after.Time(), err)
	}
	project := emu.Project("")
	if _, err := project.CreateDevice(ctx, fcmemu.NewDevice{Name: "kept"}); err != nil {
		t.Fatal(err)
	}
	archive, err := c.ExportSnapshotTar(ctx)
	if err != nil || len(archive) == 0 {
		t.Fatalf("export %d bytes, %v", len(archive), err)
	}
	if err := c.Reset(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := project.Device(ctx, "kept"); !fcmemu.IsNotFound(err) {
		t.Fatalf("after reset: %v", err)
	}
	if _, err := c.ImportSnapshotTar(ctx, archive, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := project.Device(ctx, "kept"); err != nil {
		t.Errorf("after import: %v", err)
	}
}

// 20,000 topics of 900 bytes (18 MB of names) come in pages of about 8 MiB; Topics follows
// nextOffset to the last.
func TestTopicsFollowNextOffset(t *testing.T) {
	emu := sharedEmulator(t)
	ctx := ctxFor(t)
	project := emu.NewProject(t)
	for d := 0; d < 10; d++ {
		topics := make([]string, 2000)
		for i := range topics {
			topics[i] = fmt.Sprintf("d%d-t%d-%s", d, i, strings.Repeat("x", 880))
		}
		if _, err := project.CreateDevice(ctx, fcmemu.NewDevice{Platform: fcmemu.Android, Topics: topics}); err != nil {
			t.Fatal(err)
		}
	}
	topics, err := project.Topics(ctx)
	if err != nil || len(topics) != 20000 {
		t.Fatalf("%d topics, %v", len(topics), err)
	}
	seen := map[string]bool{}
	for _, topic := range topics {
		seen[topic.Name] = true
	}
	if len(seen) != 20000 {
		t.Errorf("%d distinct topics", len(seen))
	}
}
