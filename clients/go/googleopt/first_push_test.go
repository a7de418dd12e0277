// "Your first test (Go)" of README.md, as CI runs it: keep the two the same.
package googleopt_test

import (
	"context"
	"testing"

	fcmemu "github.com/fcm-emu/fcm-emu/clients/go"
	"github.com/fcm-emu/fcm-emu/clients/go/googleopt"
	fcm "google.golang.org/api/fcm/v1"
	"google.golang.org/api/option"
)

// The code under test: it knows nothing of the emulator.
func sendGoal(ctx context.Context, project, token, score string, opts ...option.ClientOption) error {
	svc, err := fcm.NewService(ctx, opts...)
	if err != nil {
		return err
	}
	_, err = svc.Projects.Messages.Send("projects/"+project, &fcm.SendMessageRequest{Message: &fcm.Message{
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
	opts, err := googleopt.ClientOptions(ctx, project) // key, and an HTTP client that reaches the emulator
	if err != nil {
		t.Fatal(err)
	}
	if err := sendGoal(ctx, project.ID(), phone.Token, "3-0", opts...); err != nil {
		t.Fatal(err)
	}
	delivery := fcmemu.RequireDelivered(t, phone, fcmemu.WhereData("score", "3-0"))
	if title := delivery.Payload["notification"].(map[string]any)["title"]; title != "Goal!" {
		t.Errorf("title %v", title)
	}
}
