package fcmemu_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"reflect"
	"sort"
	"strings"
	"testing"

	fcmemu "github.com/fcm-emu/fcm-emu/clients/go"
)

// post makes a request as firebase-admin-go's messaging client does (its URL, body and headers;
// see its messaging/messaging.go): the code under test, with no endpoint of its own.
func post(t *testing.T, client *http.Client, url string, headers map[string]string, body any) (*http.Response, []byte) {
	t.Helper()
	data, _ := json.Marshal(body)
	req, err := http.NewRequestWithContext(ctxFor(t), "POST", url, bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(resp.Body)
	return resp, answer
}

func TestAdminSDKShapedCallsReachTheEmulator(t *testing.T) {
	emu := sharedEmulator(t)
	ctx := ctxFor(t)
	environ := os.Environ()
	project := emu.NewProject(t) // strict: the bearer is checked
	phone, err := project.CreateDevice(ctx, fcmemu.NewDevice{Name: "pixel"})
	if err != nil {
		t.Fatal(err)
	}
	client := project.HTTPClient()

	// messaging.Client.Send: POST https://fcm.googleapis.com/v1/projects/{p}/messages:send
	resp, answer := post(t, client, "https://fcm.googleapis.com/v1/projects/"+project.ID()+"/messages:send",
		map[string]string{"X-GOOG-API-FORMAT-VERSION": "2", "X-Firebase-Client": "fire-admin-go/4.14.0"},
		map[string]any{"message": map[string]any{"token": phone.Token, "data": map[string]string{"score": "3-0"}}})
	if resp.StatusCode != 200 || !strings.Contains(string(answer), "projects/"+project.ID()+"/messages/") {
		t.Fatalf("send: %d %s", resp.StatusCode, answer)
	}
	if resp.ProtoMajor != 2 {
		t.Errorf("spoke %s, not HTTP/2 as with Google", resp.Proto)
	}
	fcmemu.RequireDelivered(t, phone, fcmemu.WhereData("score", "3-0"))

	// messaging.Client.SubscribeToTopic: POST https://iid.googleapis.com/iid/v1:batchAdd
	resp, answer = post(t, client, "https://iid.googleapis.com/iid/v1:batchAdd", map[string]string{"access_token_auth": "true"},
		map[string]any{"to": "/topics/news", "registration_tokens": []string{phone.Token}})
	if resp.StatusCode != 200 {
		t.Fatalf("batchAdd: %d %s", resp.StatusCode, answer)
	}
	if err := phone.Reload(ctx); err != nil || !reflect.DeepEqual(phone.Topics, []string{"news"}) {
		t.Errorf("topics %v %v", phone.Topics, err)
	}

	// Without credentials, the strict project refuses the call: the bearer above was checked.
	resp, _ = post(t, emu.HTTPClient(), "https://fcm.googleapis.com/v1/projects/"+project.ID()+"/messages:send", nil,
		map[string]any{"message": map[string]any{"token": phone.Token}})
	if resp.StatusCode != 401 {
		t.Errorf("no bearer: %d", resp.StatusCode)
	}

	// The explicit endpoint (option.WithEndpoint(emu.HTTPSURL()+"/")) works with the same client.
	resp, answer = post(t, client, emu.HTTPSURL()+"/v1/projects/"+project.ID()+"/messages:send", nil,
		map[string]any{"message": map[string]any{"token": phone.Token, "data": map[string]string{"via": "endpoint"}}})
	if resp.StatusCode != 401 {
		t.Errorf("the project's bearer went to a host that is not Google's: %d %s", resp.StatusCode, answer)
	}
	token, _ := project.CreateAccessToken(ctx)
	resp, answer = post(t, emu.HTTPClient(), emu.HTTPSURL()+"/v1/projects/"+project.ID()+"/messages:send",
		map[string]string{"Authorization": "Bearer " + token.AccessToken},
		map[string]any{"message": map[string]any{"token": phone.Token, "data": map[string]string{"via": "endpoint"}}})
	if resp.StatusCode != 200 {
		t.Errorf("explicit endpoint: %d %s", resp.StatusCode, answer)
	}
	fcmemu.RequireDelivered(t, phone, fcmemu.WhereData("via", "endpoint"))

	// Nothing outside the client changed: no variable set, no global transport replaced.
	if !reflect.DeepEqual(environ, os.Environ()) {
		t.Error("the environment changed")
	}
	if http.DefaultTransport.(*http.Transport).DialContext == nil || http.DefaultClient.Transport != nil {
		t.Error("the default transport was touched")
	}
}

func TestRoutesOnlyGooglesHostsOn443(t *testing.T) {
	emu := sharedEmulator(t)
	for addr, want := range map[string]bool{
		"fcm.googleapis.com:443": true, "FCM.googleapis.com.:443": true, "oauth2.googleapis.com:443": true,
		"iid.googleapis.com:443": true, "fcm.googleapis.com:80": false, "example.com:443": false,
		"evil-fcm.googleapis.com:443": false, "127.0.0.1:443": false,
	} {
		if got := emu.RoutesTo(addr); got != want {
			t.Errorf("RoutesTo(%s) = %v", addr, got)
		}
	}
}

// The child of TestEnvForAChildProcess: an unmodified program that sends with net/http's default
// client to Google's host, its bearer from the harness's control API.
func TestChildSender(t *testing.T) {
	if os.Getenv("FCMEMU_CHILD") != "send" {
		t.Skip("run as a child by TestEnvForAChildProcess")
	}
	control, err := fcmemu.NewClientFromEnv()
	if err != nil {
		t.Fatal(err)
	}
	project := os.Getenv("GOOGLE_CLOUD_PROJECT")
	token, err := control.CreateAccessToken(ctxFor(t), project)
	if err != nil {
		t.Fatal(err)
	}
	resp, answer := post(t, http.DefaultClient, "https://fcm.googleapis.com/v1/projects/"+project+"/messages:send",
		map[string]string{"Authorization": "Bearer " + token.AccessToken},
		map[string]any{"message": map[string]any{"token": os.Getenv("FCMEMU_TOKEN"), "data": map[string]string{"sender": "child"}}})
	if resp.StatusCode != 200 {
		t.Fatalf("send: %d %s", resp.StatusCode, answer)
	}
}

func TestEnvForAChildProcess(t *testing.T) {
	emu := sharedEmulator(t)
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
	var names []string
	for k := range env {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, want := range []string{"GOOGLE_APPLICATION_CREDENTIALS", "GOOGLE_CLOUD_PROJECT", "FIREBASE_CONFIG", "HTTPS_PROXY",
		"NO_PROXY", "SSL_CERT_FILE", "NODE_EXTRA_CA_CERTS", "FCM_EMU_CONTROL_API"} {
		if env[want] == "" {
			t.Errorf("%s missing from %v", want, names)
		}
	}
	bundle, _ := os.ReadFile(env["SSL_CERT_FILE"])
	if !bytes.Contains(bundle, emu.CACertificatePEM()) || bytes.Count(bundle, []byte("BEGIN CERTIFICATE")) < 2 {
		t.Errorf("the bundle lacks the system roots or the CA (%d certificates)", bytes.Count(bundle, []byte("BEGIN CERTIFICATE")))
	}
	key, _ := os.ReadFile(env["GOOGLE_APPLICATION_CREDENTIALS"])
	if !strings.Contains(string(key), emu.HTTPURL()+"/token") {
		t.Errorf("key file: %.200s", key)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestChildSender$", "-test.count=1")
	cmd.Env = append(fcmemu.Environ(env), "FCMEMU_CHILD=send", "FCMEMU_TOKEN="+phone.Token)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	fcmemu.RequireDelivered(t, phone, fcmemu.WhereData("sender", "child"))
	// It went through the emulator's proxy.
	events, err := emu.Client().Events(ctx, fcmemu.EventQuery{Kinds: []string{"proxyConnect"}})
	if err != nil || len(events.Events) == 0 || !strings.Contains(events.Events[len(events.Events)-1].Target+events.Events[len(events.Events)-1].Detail, "fcm.googleapis.com") {
		t.Errorf("proxy events %+v %v", events, err)
	}
}
