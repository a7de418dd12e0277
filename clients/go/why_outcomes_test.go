package fcmemu

import (
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"
)

// sampleOutcomes is an outcomes document shaped as the control API documents it: newest first.
const sampleOutcomes = `{"device": {"id": "0", "name": "pixel", "state": "offline", "token": "t"}, "stored": 3,
 "story": "held: device offline, 3 stored", "outcomes": [
 {"time": "2026-11-28T15:00:03Z", "kind": "stored", "messageId": "0:3", "reason": "offline", "summary": "held: device offline, 3 stored"},
 {"time": "2026-11-28T15:00:02Z", "kind": "accepted", "messageId": "0:3", "summary": "accepted: sent to its token"},
 {"time": "2026-11-28T15:00:01Z", "kind": "refused", "status": 400, "code": "INVALID_ARGUMENT",
  "summary": "refused: 400 INVALID_ARGUMENT Invalid data payload key: from"},
 {"time": "2026-11-28T15:00:00Z", "kind": "discarded", "messageId": "0:1", "reason": "ttl-zero",
  "summary": "discarded: TTL 0 while the device was offline"}]}`

func TestReasonsFromAnOutcomesDocumentWithoutAnEmulator(t *testing.T) {
	documents := map[string]string{
		"/emulator/v1/projects/p/devices/0/outcomes": sampleOutcomes,
		"/emulator/v1/projects/p/devices/1/outcomes": `{"device": {"state": "offline"}, "stored": 0, "outcomes": [
			{"kind": "discarded", "messageId": "0:1", "summary": "discarded: TTL 0 while the device was offline"}]}`,
	}
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		document, ok := documents[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(document))
	}))
	defer server.Close()
	client := NewClient(server.URL + "/emulator/v1")
	got := outcomeReasons(client.bind(&Device{ID: "0", ProjectID: "p"}))
	if want := []string{"refused: 400 INVALID_ARGUMENT Invalid data payload key: from", "held: device offline, 3 stored"}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	got = outcomeReasons(client.bind(&Device{ID: "1", ProjectID: "p"}))
	if want := []string{"message 0:1 was discarded: TTL 0 while the device was offline"}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	// No outcomes route and no device: nothing to say, and no error.
	if got := outcomeReasons(client.bind(&Device{ID: "2", ProjectID: "p"})); len(got) != 0 {
		t.Errorf("got %q for an unknown device", got)
	}
}
