package fcmemu_test

import (
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	fcmemu "github.com/fcm-emu/fcm-emu/clients/go"
)

// operationMethods maps each operationId of openapi.json to the Client method that calls it.
var operationMethods = map[string]string{
	"health": "Health", "info": "Info", "caCertificate": "CACertificate", "openapi": "OpenAPI",
	"resetAll": "Reset", "exportSnapshot": "ExportSnapshot", "importSnapshot": "ImportSnapshot",
	"getClock": "Clock", "listTimers": "Timers", "advanceClock": "AdvanceClock",
	"pauseClock": "PauseClock", "resumeClock": "ResumeClock", "setClockSpeed": "SetClockSpeed",
	"listAllEvents": "Events", "streamEvents": "StreamEvents",
	"listFaults": "Faults", "addFault": "AddFault", "setFaults": "SetFaults",
	"clearFaults": "ClearFaults", "getFault": "Fault", "removeFault": "RemoveFault",
	"listProjects": "ListProjects", "createProject": "CreateProject", "getProject": "GetProject",
	"updateProject": "UpdateProject", "deleteProject": "DeleteProject", "resetProject": "ResetProject",
	"getServiceAccount": "ServiceAccount", "createAccessToken": "CreateAccessToken",
	"revokeAccessTokens": "RevokeAccessTokens", "metrics": "Metrics", "listConnections": "Connections",
	"listXMPPConnections": "XMPPConnections", "sendUpstream": "SendUpstream",
	"drainXMPP": "DrainXMPP", "listTopics": "Topics", "listGroups": "Groups",
	"listProjectEvents": "ProjectEvents", "streamProjectEvents": "StreamProjectEvents",
	"listDevices": "ListDevices", "createDevice": "CreateDevice", "getDevice": "GetDevice",
	"updateDevice": "UpdateDevice", "deleteDevice": "DeleteDevice",
	"uninstallDevice": "UninstallDevice", "refreshToken": "RefreshToken",
	"subscribe": "Subscribe", "unsubscribe": "Unsubscribe",
	"getInbox": "Inbox", "clearInbox": "ClearInbox",
	"getTray": "Tray", "showNotification": "ShowNotification", "clearTray": "ClearTray", "getOutcomes": "Outcomes",
	"getStored":        "Stored",
	"listDeviceEvents": "DeviceEvents", "streamDeviceEvents": "StreamDeviceEvents",
}

func TestEveryOperationHasAMethod(t *testing.T) {
	emu := sharedEmulator(t)
	doc, err := emu.Client().OpenAPI(ctxFor(t))
	if err != nil {
		t.Fatal(err)
	}
	paths, _ := doc["paths"].(map[string]any)
	if len(paths) == 0 {
		t.Fatal("no paths in the served OpenAPI document")
	}
	clientType := reflect.TypeOf(&fcmemu.Client{})
	var missing []string
	for _, item := range paths {
		ops, _ := item.(map[string]any)
		for _, op := range ops {
			o, _ := op.(map[string]any)
			id, _ := o["operationId"].(string)
			if id == "" {
				continue
			}
			name, ok := operationMethods[id]
			if !ok {
				missing = append(missing, id+" (not mapped)")
			} else if _, ok := clientType.MethodByName(name); !ok {
				missing = append(missing, id+" → "+name+" (no such method)")
			}
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("operations not covered: %s", strings.Join(missing, ", "))
	}
}

func TestAPIOffRevokedBearersAndMetrics(t *testing.T) {
	emu := sharedEmulator(t)
	ctx := ctxFor(t)
	project := emu.NewProject(t)
	phone, err := project.CreateDevice(ctx, fcmemu.NewDevice{Platform: fcmemu.Android})
	if err != nil {
		t.Fatal(err)
	}
	message := map[string]any{"token": phone.Token, "data": map[string]string{"a": "1"}}

	off, on := false, true
	if info, err := project.Update(ctx, fcmemu.ProjectUpdate{APIEnabled: &off}); err != nil || info.APIEnabled {
		t.Fatalf("API off: %+v, %v", info, err)
	}
	if _, err := send(emu, project, message); err == nil || !strings.Contains(err.Error(), "403") || !strings.Contains(err.Error(), "SERVICE_DISABLED") {
		t.Fatalf("send with the API off: %v, want 403 SERVICE_DISABLED", err)
	}
	if info, err := emu.Client().UpdateProject(ctx, project.ID(), fcmemu.ProjectUpdate{APIEnabled: &on}); err != nil || !info.APIEnabled {
		t.Fatalf("API on: %+v, %v", info, err)
	}

	token, err := project.CreateAccessToken(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sendWith(ctx, emu, project, token.AccessToken, message); err != nil {
		t.Fatal(err)
	}
	if err := project.RevokeAccessTokens(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := sendWith(ctx, emu, project, token.AccessToken, message); err == nil || !strings.Contains(err.Error(), "401") {
		t.Fatalf("send with a revoked bearer: %v, want 401", err)
	}
	sendV1(t, emu, project, message)

	metrics, err := emu.Client().Metrics(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(metrics, "\nfcm_emu_messages_accepted_total") {
		t.Errorf("metrics have no fcm_emu_messages_accepted_total:\n%s", metrics)
	}
}

func TestStoredTimersFaultAndTray(t *testing.T) {
	emu := sharedEmulator(t)
	ctx := ctxFor(t)
	c := emu.Client()
	project := emu.NewProject(t)

	// An offline device holds the message; its expiry is a pending timer.
	offline, err := project.CreateDevice(ctx, fcmemu.NewDevice{Platform: fcmemu.Android, Name: "asleep", State: fcmemu.Offline})
	if err != nil {
		t.Fatal(err)
	}
	name := sendV1(t, emu, project, map[string]any{"token": offline.Token, "data": map[string]string{"k": "v"}})
	stored, err := offline.Stored(ctx)
	if err != nil || len(stored.Stored) != 1 || !strings.HasSuffix(name, stored.Stored[0].MessageID) || stored.Stored[0].ExpiresAt == "" {
		t.Fatalf("stored %+v %v", stored, err)
	}
	if stored.Device == nil || stored.Device.ID != offline.ID {
		t.Errorf("stored device %+v", stored.Device)
	}
	page, err := c.Timers(ctx, 0, 1000)
	if err != nil || page.Total < 1 {
		t.Fatalf("timers %+v %v", page, err)
	}
	found := false
	for _, timer := range page.Timers {
		if timer.What == "expiry" && timer.Project == project.ID() && timer.MessageID == stored.Stored[0].MessageID {
			found = true
		}
	}
	if !found {
		t.Errorf("no expiry timer for %s in %+v", stored.Stored[0].MessageID, page.Timers)
	}
	if one, err := c.Timers(ctx, 0, 1); err != nil || len(one.Timers) != 1 || (one.Total > 1 && (one.NextOffset == nil || *one.NextOffset != 1)) {
		t.Errorf("one timer %+v %v", one, err)
	}

	// A fault rule reads back as posted, not yet fired.
	rule, err := c.AddFault(ctx, fcmemu.FaultRule{ID: "never-" + project.ID(), Match: fcmemu.FaultMatch{Project: project.ID() + "-none"}, Action: fcmemu.FaultAction{Error: "UNAVAILABLE"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = c.RemoveFault(ctxFor(t), rule.ID) })
	got, err := c.Fault(ctx, rule.ID)
	if err != nil || got.ID != rule.ID || got.Fired != 0 || !strings.EqualFold(got.Action.Error, "UNAVAILABLE") || got.Match.Project != project.ID()+"-none" {
		t.Errorf("fault %+v %v", got, err)
	}
	if _, err := c.Fault(ctx, "no-such-rule"); !fcmemu.IsNotFound(err) {
		t.Errorf("unknown fault: %v", err)
	}

	// A background app shows a notification for a data message it received.
	bg, err := project.CreateDevice(ctx, fcmemu.NewDevice{Platform: fcmemu.Android, Name: "pocket", State: fcmemu.Background})
	if err != nil {
		t.Fatal(err)
	}
	sendV1(t, emu, project, map[string]any{"token": bg.Token, "data": map[string]string{"n": "1"}})
	inbox, err := bg.WaitInbox(ctx, 1, 5*time.Second)
	if err != nil || len(inbox.Deliveries) != 1 {
		t.Fatalf("inbox %+v %v", inbox, err)
	}
	if tray, err := bg.Tray(ctx); err != nil || len(tray.Notifications) != 0 {
		t.Fatalf("tray before %+v %v", tray, err)
	}
	tray, err := bg.ShowNotification(ctx, inbox.Deliveries[0].MessageID, "score")
	if err != nil || len(tray.Notifications) != 1 || tray.Notifications[0].Tag != "score" || tray.Notifications[0].MessageID != inbox.Deliveries[0].MessageID {
		t.Fatalf("shown %+v %v", tray, err)
	}
	if tray, err = bg.Tray(ctx); err != nil || len(tray.Notifications) != 1 || tray.UnshownHighPriority != 0 {
		t.Errorf("tray %+v %v", tray, err)
	}
	if err := bg.ClearTray(ctx); err != nil {
		t.Fatal(err)
	}
	if tray, err = bg.Tray(ctx); err != nil || len(tray.Notifications) != 0 {
		t.Errorf("tray after clearing %+v %v", tray, err)
	}
}
