package googleopt_test

// "Your first test" (Go): the code under test takes Google's client options, as code that uses
// google.golang.org/api or the Firebase Admin SDK usually does, and sets no endpoint of its own.

import (
	"context"
	"testing"

	fcmemu "github.com/fcm-emu/fcm-emu/clients/go"
	"github.com/fcm-emu/fcm-emu/clients/go/googleopt"
	fcm "google.golang.org/api/fcm/v1"
	"google.golang.org/api/option"
)

// GoalAlerts is the code under test: it knows nothing of the emulator.
type GoalAlerts struct {
	fcm     *fcm.Service
	project string
}

func NewGoalAlerts(ctx context.Context, project string, opts ...option.ClientOption) (*GoalAlerts, error) {
	svc, err := fcm.NewService(ctx, opts...)
	return &GoalAlerts{fcm: svc, project: project}, err
}

func (g *GoalAlerts) Send(ctx context.Context, token, score string) error {
	_, err := g.fcm.Projects.Messages.Send("projects/"+g.project, &fcm.SendMessageRequest{Message: &fcm.Message{
		Token: token, Notification: &fcm.Notification{Title: "Goal!"}, Data: map[string]string{"score": score},
	}}).Context(ctx).Do()
	return err
}

func TestAGoalReachesThePhone(t *testing.T) {
	ctx := context.Background()
	emu := fcmemu.Start(t)       // on free ports; stopped when the test ends
	project := emu.NewProject(t) // a fresh project, deleted after the test
	phone, err := project.CreateDevice(ctx, fcmemu.NewDevice{Platform: fcmemu.Android, Name: "pixel"})
	if err != nil {
		t.Fatal(err)
	}
	opts, err := googleopt.ClientOptions(ctx, project)
	if err != nil {
		t.Fatal(err)
	}
	alerts, err := NewGoalAlerts(ctx, project.ID(), opts...)
	if err != nil {
		t.Fatal(err)
	}
	if err := alerts.Send(ctx, phone.Token, "3-0"); err != nil {
		t.Fatal(err)
	}
	delivery := fcmemu.RequireDelivered(t, phone, fcmemu.WhereData("score", "3-0"))
	if title := delivery.Payload["notification"].(map[string]any)["title"]; title != "Goal!" {
		t.Errorf("title %v", title)
	}
}

func TestAnOfflinePhoneGetsNothingYet(t *testing.T) {
	ctx := context.Background()
	emu := fcmemu.Start(t)
	project := emu.NewProject(t)
	phone, err := project.CreateDevice(ctx, fcmemu.NewDevice{Platform: fcmemu.IOS, State: fcmemu.Offline})
	if err != nil {
		t.Fatal(err)
	}
	opts, err := googleopt.ClientOptions(ctx, project)
	if err != nil {
		t.Fatal(err)
	}
	alerts, err := NewGoalAlerts(ctx, project.ID(), opts...)
	if err != nil {
		t.Fatal(err)
	}
	if err := alerts.Send(ctx, phone.Token, "3-1"); err != nil {
		t.Fatal(err)
	}
	fcmemu.RequireNothingDelivered(t, phone)
	if err := phone.SetState(ctx, fcmemu.Foreground); err != nil {
		t.Fatal(err)
	}
	fcmemu.RequireDelivered(t, phone, fcmemu.WhereFields(map[string]any{"payload.score": "3-1"}))
}
