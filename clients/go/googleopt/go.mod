// Options for Google's Go clients (google.golang.org/api) and the Firebase Admin SDK that point
// them at fcm-emu. Not yet published; a module of its own so that the fcmemu package keeps no
// dependency outside the standard library.
//
// Before publishing: drop the replace directive, require a tagged version of the parent module,
// and let `go mod tidy` write go.sum. Until then, ../run-tests builds it in GOPATH mode against
// Debian's golang-google-api-dev (no module proxy is reachable where it is developed).
module github.com/fcm-emu/fcm-emu/clients/go/googleopt

go 1.19

require (
	github.com/fcm-emu/fcm-emu/clients/go v0.0.0
	golang.org/x/oauth2 v0.3.0
	google.golang.org/api v0.61.0
)

replace github.com/fcm-emu/fcm-emu/clients/go => ../
