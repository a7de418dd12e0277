package fcmemu_test

import (
	"testing"

	fcmemu "github.com/fcm-emu/fcm-emu/clients/go"
)

func TestOutcomesTellWhyAMessageDidNotArrive(t *testing.T) {
	emu := sharedEmulator(t)
	ctx := ctxFor(t)
	project := emu.NewProject(t)
	offline, err := project.CreateDevice(ctx, fcmemu.NewDevice{Platform: fcmemu.Android, Name: "why-go", State: fcmemu.Offline})
	if err != nil {
		t.Fatal(err)
	}
	if fresh, err := offline.Outcomes(ctx); err != nil || fresh.Story != "Nothing was sent to it yet." || len(fresh.Outcomes) != 0 {
		t.Fatalf("fresh %+v %v", fresh, err)
	}
	sendV1(t, emu, project, map[string]any{"token": offline.Token, "data": map[string]string{"a": "b"}, "android": map[string]string{"ttl": "0s"}})
	got, err := emu.Client().Outcomes(ctx, project.ID(), offline.Token)
	if err != nil {
		t.Fatal(err)
	}
	if got.Device.Name != "why-go" || got.Stored != 0 || got.Story != "discarded: TTL 0 while the device was offline" {
		t.Errorf("outcomes %+v", got)
	}
	if len(got.Outcomes) != 2 || got.Outcomes[0].Kind != "discarded" || got.Outcomes[0].Reason != "ttl-zero" || got.Outcomes[1].Kind != "accepted" {
		t.Errorf("outcomes %+v", got.Outcomes)
	}
}
