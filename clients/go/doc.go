// Package fcmemu starts fcm-emu, a local Firebase Cloud Messaging emulator, from Go tests; drives
// it through its control API; waits for what simulated devices receive; and routes Google's
// clients to it in the test process with no change to the code under test.
//
// A test:
//
//	func TestGoalAlert(t *testing.T) {
//		emu := fcmemu.Start(t)                // free ports; stopped by t.Cleanup
//		project := emu.NewProject(t)          // a fresh strict project, deleted after the test
//		phone, err := project.CreateDevice(ctx, fcmemu.NewDevice{Platform: fcmemu.Android})
//		...
//		// The code under test sends to https://fcm.googleapis.com/v1/... through the client the
//		// test hands it: project.HTTPClient() (or googleopt.ClientOptions for Google's clients).
//		fcmemu.RequireDelivered(t, phone, fcmemu.WhereData("score", "3-0"))
//	}
//
// Start or attach: Start (and Launch outside tests) runs the binary from $FCM_EMU_BIN or PATH
// on free ports, with no state on disk; on Linux the emulator also dies with the test process,
// however that ends. Attach uses a running emulator named by $FCM_EMU_CONTROL_API.
//
// Waits: WaitForDelivery, WaitForDeliveries and NothingDelivered (and their Require forms for
// tests) wait on the emulator's own inbox wait, never by sleeping; AfterAdvancing moves a paused
// clock instead of waiting.
//
// Routing: Emulator.HTTPClient and Project.HTTPClient reach the emulator when asked for Google's
// hosts (fcm.googleapis.com, iid, oauth2, ...), trusting the emulator's CA in this process only.
// Project.Env gives the environment for a child process (proxy, CA bundle, key file).
//
// The package uses only the standard library. The sub-package googleopt (its own module, which
// depends on google.golang.org/api) turns a project into option.ClientOption values.
package fcmemu
