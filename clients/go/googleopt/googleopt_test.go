package googleopt_test

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	fcmemu "github.com/fcm-emu/fcm-emu/clients/go"
	"github.com/fcm-emu/fcm-emu/clients/go/googleopt"
	fcm "google.golang.org/api/fcm/v1"
	"google.golang.org/api/option"
)

func ctxFor(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// world is an emulator, a fresh project with one device, and a generated fcm/v1 client made with
// the project's options.
type world struct {
	emu     *fcmemu.Emulator
	project *fcmemu.Project
	phone   *fcmemu.Device
	svc     *fcm.Service
	opts    []option.ClientOption
}

func newWorld(t *testing.T, device fcmemu.NewDevice) world {
	ctx := ctxFor(t)
	w := world{emu: fcmemu.Start(t)}
	w.project = w.emu.NewProject(t)
	var err error
	if w.phone, err = w.project.CreateDevice(ctx, device); err != nil {
		t.Fatal(err)
	}
	if w.opts, err = googleopt.ClientOptions(ctx, w.project); err != nil {
		t.Fatal(err)
	}
	if w.svc, err = fcm.NewService(ctx, w.opts...); err != nil {
		t.Fatal(err)
	}
	return w
}

// The generated fcm/v1 client, given the options, sends to https://fcm.googleapis.com/ with a
// bearer it obtained by the JWT exchange at the key's token_uri; the strict project checks it.
func TestGeneratedClientWithClientOptions(t *testing.T) {
	w := newWorld(t, fcmemu.NewDevice{Platform: fcmemu.IOS, Name: "iphone"})
	ctx, emu, project, phone, svc := ctxFor(t), w.emu, w.project, w.phone, w.svc
	if svc.BasePath != "https://fcm.googleapis.com/" {
		t.Errorf("base path %s: the client's own endpoint should be kept", svc.BasePath)
	}
	for i := 0; i < 2; i++ { // the second send reuses the token
		sent, err := svc.Projects.Messages.Send("projects/"+project.ID(), &fcm.SendMessageRequest{Message: &fcm.Message{
			Token: phone.Token, Notification: &fcm.Notification{Title: "Goal!"}, Data: map[string]string{"n": string(rune('1' + i))},
		}}).Context(ctx).Do()
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(sent.Name, "projects/"+project.ID()+"/messages/") {
			t.Errorf("name %q", sent.Name)
		}
	}
	d := fcmemu.RequireDelivered(t, phone, fcmemu.WhereData("n", "1"))
	if aps, _ := d.Payload["aps"].(map[string]any); aps == nil {
		t.Errorf("an iOS delivery without aps: %s", d.Raw)
	}
	fcmemu.RequireDeliveredCount(t, phone, 2)
	// One token exchange at the key's token_uri on the emulator, as the Google libraries do.
	if n := strings.Count(emu.LogTail(400), "path=/token "); n != 1 {
		t.Errorf("%d token requests in the log:\n%s", n, emu.LogTail(40))
	}
}

// The explicit endpoint works too, with the same HTTP client.
func TestGeneratedClientWithAnExplicitEndpoint(t *testing.T) {
	emu := fcmemu.Start(t)
	ctx := ctxFor(t)
	project := emu.NewProject(t)
	phone, err := project.CreateDevice(ctx, fcmemu.NewDevice{Name: "pixel"})
	if err != nil {
		t.Fatal(err)
	}
	client, err := googleopt.HTTPClient(ctx, project)
	if err != nil {
		t.Fatal(err)
	}
	svc, err := fcm.NewService(ctx, option.WithHTTPClient(client), option.WithEndpoint(emu.HTTPSURL()+"/"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Projects.Messages.Send("projects/"+project.ID(), &fcm.SendMessageRequest{Message: &fcm.Message{
		Token: phone.Token, Data: map[string]string{"via": "endpoint"}}}).Context(ctx).Do(); err != nil {
		t.Fatal(err)
	}
	fcmemu.RequireDelivered(t, phone, fcmemu.WhereData("via", "endpoint"))
}

// Errors come back as the generated client reports FCM's: an unknown token is a 404 UNREGISTERED.
func TestGeneratedClientSeesFCMErrors(t *testing.T) {
	w := newWorld(t, fcmemu.NewDevice{Name: "gone"})
	ctx, project, phone, svc := ctxFor(t), w.project, w.phone, w.svc
	if err := phone.Delete(ctx); err != nil {
		t.Fatal(err)
	}
	_, err := svc.Projects.Messages.Send("projects/"+project.ID(), &fcm.SendMessageRequest{Message: &fcm.Message{Token: phone.Token}}).Context(ctx).Do()
	if err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("send to a deleted device: %v", err)
	}
}

// The child of TestApplicationDefaultCredentialsInAChildProcess: the generated client with no
// option at all (Application Default Credentials from GOOGLE_APPLICATION_CREDENTIALS, the proxy
// from HTTPS_PROXY, the CA from SSL_CERT_FILE).
func TestChildWithNoOptions(t *testing.T) {
	if os.Getenv("FCMEMU_CHILD") == "" {
		t.Skip("run as a child by TestApplicationDefaultCredentialsInAChildProcess")
	}
	ctx := ctxFor(t)
	svc, err := fcm.NewService(ctx)
	if err != nil {
		t.Fatal(err)
	}
	project := os.Getenv("GOOGLE_CLOUD_PROJECT")
	if _, err := svc.Projects.Messages.Send("projects/"+project, &fcm.SendMessageRequest{Message: &fcm.Message{
		Token: os.Getenv("FCMEMU_TOKEN"), Data: map[string]string{"via": "adc"}}}).Context(ctx).Do(); err != nil {
		t.Fatal(err)
	}
}

func TestApplicationDefaultCredentialsInAChildProcess(t *testing.T) {
	emu := fcmemu.Start(t)
	ctx := ctxFor(t)
	project := emu.NewProject(t)
	phone, err := project.CreateDevice(ctx, fcmemu.NewDevice{Name: "pixel"})
	if err != nil {
		t.Fatal(err)
	}
	env, err := project.Env(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestChildWithNoOptions$", "-test.count=1")
	cmd.Env = append(fcmemu.Environ(env), "FCMEMU_CHILD=1", "FCMEMU_TOKEN="+phone.Token)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	fcmemu.RequireDelivered(t, phone, fcmemu.WhereData("via", "adc"))
	events, err := emu.Client().Events(ctx, fcmemu.EventQuery{Kinds: []string{"proxyConnect"}})
	if err != nil || len(events.Events) == 0 {
		t.Errorf("the child did not go through the proxy: %+v %v", events, err)
	}
}

// The code under test of first_push_test.go, with a phone that is offline when the goal is sent.
func TestAnOfflinePhoneGetsNothingYet(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t, fcmemu.NewDevice{Platform: fcmemu.IOS, State: fcmemu.Offline})
	phone := w.phone
	if err := sendGoal(ctx, w.project.ID(), phone.Token, "3-1", w.opts...); err != nil {
		t.Fatal(err)
	}
	fcmemu.RequireNothingDelivered(t, phone)
	if err := phone.SetState(ctx, fcmemu.Foreground); err != nil {
		t.Fatal(err)
	}
	fcmemu.RequireDelivered(t, phone, fcmemu.WhereFields(map[string]any{"payload.score": "3-1"}))
}
